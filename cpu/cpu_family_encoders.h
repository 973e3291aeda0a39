#pragma once
/// The CPU backend's kernels of each model family, registered in one table
/// (cpu/cpu_family_encoders.cpp, one line per family that has kernels of its own), keyed by the
/// family's record (engine/model_family.h):
/// - a closed-form family may have an encoder of its own (Fourier's, through libmvec); one without
///   is encoded element by element through encoding_value, and a family whose output is the
///   coordinates (its record's passes_coordinates) is copied;
/// - a family whose encoding reads trainable floats (hash grid, Gaussians, sad) has a CpuTrainedEncoding,
///   made for one spec when a network is bound; the backend's passes call it and nothing else.
#include "engine/encoding_math.h"
#include "engine/model_spec.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace redraw::cpu {

/// Encodes n coordinates into out (n x width) with the calling thread's OpenMP team.
using CpuEncoder = void (*)(const EncodingParams& e, const float* fixed, const float* coords, int64_t n, float* out);

/// A trained family's CPU kernels for one spec. Its trainable floats lead the parameter array
/// (params[0, trained_count)) and their gradients lead the gradient array. Each call runs on the
/// calling thread's OpenMP team and gives the same bits on any team size.
class CpuTrainedEncoding {
public:
  virtual ~CpuTrainedEncoding() = default;
  /// out (n x encoding width) = the encoding at coords (n x 2) of the trained floats in params.
  virtual void encode(const float* params, const float* coords, int64_t n, float* out) = 0;
  /// grads[0, trained_count) = the gradient given d_out = dLoss/dEncoding (n x encoding width) at
  /// coords, or added to grads when `accumulate`.
  virtual void backward(const float* params, const float* coords, const float* d_out, int64_t n, float* grads,
                        bool accumulate) = 0;
  /// A hash grid's levels, when a minibatch step may defer its table's gradient and update level
  /// by level into the next step's encoding (cpu/cpu_backend.cpp, DeferredTableUpdate); null
  /// otherwise.
  virtual const HashGridParams* deferred_levels() const { return nullptr; }
  /// A training step begins with the trained floats in params (sad refreshes its sites' lists
  /// here); encode and backward see those parameters until the next call. Nothing by default.
  virtual void step_begins(const float*) {}
  /// The trained floats were replaced (set_parameters): state kept from the old ones goes.
  virtual void parameters_replaced() {}
  /// The trained floats in params were edited in place (set_moved_parameters, a relocation):
  /// state kept from the old ones may follow them (sad: one refresh pass of its lists). By
  /// default it goes, as parameters_replaced.
  virtual void parameters_moved(const float*) { parameters_replaced(); }
  /// A stateless render of the trained floats in params begins (Backend::predict, on an encoding
  /// the backend keeps for renders): the state encode reads is then a function of those floats
  /// alone, whatever was rendered before, and is kept while they stay the same (the bands of one
  /// picture, the frames of an unchanged model). Nothing by default.
  virtual void render_begins(const float*) {}
  /// The per-node site lists encode reads (sad's top-K lists) into `out`; false when none.
  virtual bool site_lists(std::vector<int32_t>&) const { return false; }
};

/// The CPU's own encoder of a closed-form family, or null.
CpuEncoder cpu_family_encoder(EncodingKind kind);
/// The CPU kernels of a trained family's spec, or null for a closed-form family.
std::unique_ptr<CpuTrainedEncoding> cpu_trained_encoding(const EncodingSpec& enc);

} // namespace redraw::cpu
