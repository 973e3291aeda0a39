#pragma once
/// The CPU backend's chunked forward pass over coordinates, apart from the bound training state:
/// a network given its parameters, encoded and run forward a chunk of the workspace's rows at a
/// time (each chunk through cpu/cpu_passes.h), so memory stays bounded for any count.
/// - CpuBackend's stateless operations (predict, loss_and_gradients: cpu/cpu_backend_stateless.cpp)
///   build a ChunkedPass of their own; predict_bound runs predict_chunks on the training state's
///   view and workspace (cpu/cpu_backend.cpp).
/// - A forward pass gives the same bits in chunks of any multiple of a tile (cpu_passes.h), so the
///   chunk a caller picks changes only the memory and the cost.
#include "cpu/cpu_backend.h"
#include "cpu/cpu_family_encoders.h"
#include "cpu/cpu_passes.h"
#include "engine/model_spec.h"

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace redraw::cpu {

/// Encodes and runs forward rows [r0, r0 + rows) of the n coordinates in `ws`; returns rows
/// (ws.rows, or fewer for the last chunk). The outputs are ws.y.back().
int64_t forward_chunk(const NetView& net, CpuWorkspace& ws, const float* coords, int64_t r0, int64_t n);

/// out (n x channels) = the network's outputs at the n coordinates, a chunk of ws at a time.
void predict_chunks(const NetView& net, CpuWorkspace& ws, const float* coords, int64_t n, float* out);

/// What the stateless ops share: a view of the network with the given parameters and a workspace
/// of at most `chunk` rows, which runs the coordinates forward a chunk at a time. The model and
/// the spans must outlive it (net points into them).
struct ChunkedPass {
  std::vector<DenseLayer> layers;
  std::unique_ptr<CpuTrainedEncoding> trained;
  NetView net;
  CpuWorkspace ws;
  int32_t channels;

  /// kept: the trained encoding to use, the pass's own when null.
  ChunkedPass(const ModelSpec& model, std::span<const float> params, std::span<const float> fourier_b, int64_t n,
              int64_t chunk, CpuTrainedEncoding* kept = nullptr);
  /// Encodes and runs forward rows [r0, r0 + rows) of the n coordinates; returns rows.
  int64_t forward(const float* coords, int64_t r0, int64_t n) { return forward_chunk(net, ws, coords, r0, n); }
};

} // namespace redraw::cpu
