#pragma once
/// The CUDA backend's interface to a family whose encoding reads trainable floats (hash grid,
/// Gaussians, sad): the bound step, the renders and the stateless ops call it and never ask which
/// family it is. Each family's kernels implement it in the family's own file
/// (cuda/hash_grid_encoding.cpp, cuda/gaussians_encoding.cpp, cuda/sad_encoding.cpp), registered in one table keyed by the
/// family's record (cuda/trained_encodings.cpp).
/// - The trained floats lead the parameter array (params[0, trained_count)) and their gradients
///   lead the gradient array.
/// - prepare() readies the kernels for one set of parameters (the Gaussians bin themselves); every
///   encode and backward with those parameters comes after it, until the next prepare().
/// - The bound step calls step_begins() instead, once, before its chunks (sad follows its sites
///   with its lists there, as the CPU's step_begins); set_parameters() calls parameters_replaced().
#include "cuda/device_buffer.h"
#include "cuda/mlp_pass.h"
#include "engine/model_spec.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>

namespace redraw::cuda {

class CudaTrainedEncoding {
public:
  virtual ~CudaTrainedEncoding() = default;
  /// Its kernels' names in a step profile (string literals: the op timer keeps the pointers).
  virtual const char* prepare_name() const = 0;  ///< "gaussians binning"
  virtual const char* backward_name() const = 0; ///< "hash grid backward"
  /// Readies the kernels for `params` (device) on `stream`, growing its buffers from `pool`.
  virtual void prepare(const DevicePool& pool, cudaStream_t stream, const float* params) = 0;
  /// A training step begins with `params`: prepare() and whatever the family keeps from step to
  /// step (sad's lists follow the sites). Enqueues only when graph_safe().
  virtual void step_begins(const DevicePool& pool, cudaStream_t stream, const float* params) {
    prepare(pool, stream, params);
  }
  /// The trained floats were replaced: state kept from the old ones goes (the next step or
  /// prepare() builds it afresh, so the backend captures its step again). Nothing by default.
  virtual void parameters_replaced() {}
  /// Whether prepare() and step_begins() enqueue only: a step whose prepare() waits for the stream (the Gaussians'
  /// pair count) cannot be captured into a CUDA graph and runs eagerly.
  virtual bool graph_safe() const = 0;
  /// The network's input for coords (rows x 2), where ws's forward pass reads it: ws.input(), or
  /// null for fp16 inputs written into a fused workspace (see encode_grid_input).
  virtual const float* encode_input(const CudaContext& c, MlpWorkspace& ws, const float* params, const float* coords,
                                    int64_t rows) = 0;
  /// The same for pixels [p0, p0 + count) of a w x h image (their centres, row 0 at the top).
  virtual const float* encode_pixels(const CudaContext& c, MlpWorkspace& ws, const float* params, int32_t w,
                                     int32_t h, int64_t p0, int64_t count) = 0;
  /// out (n x encoding width, fp32) = the encoding at coords.
  virtual void encode(cudaStream_t stream, const float* params, const float* coords, int64_t n, float* out) = 0;
  /// grads[0, trained_count) = the gradient given d_out = dLoss/dEncoding (n x encoding width) at
  /// coords, or added to them when `accumulate`.
  virtual void backward(const DevicePool& pool, cudaStream_t stream, const float* params, const float* coords,
                        const float* d_out, int64_t n, float* grads, bool accumulate) = 0;
  /// Device bytes its kernels keep beside the parameters, and per row of a chunk, for the memory
  /// plan (estimates: buffers that grow say so by name when the pool is short).
  virtual uint64_t model_bytes() const = 0;
  virtual uint64_t row_bytes() const = 0;
};

/// Empty, or why "auto" should not train the spec's family on this backend: a trained family
/// without kernels here, or one whose kernels await their first check on a GPU (sad, until
/// tests/cuda/test_cuda_sad.cpp passes on a device; --backend cuda runs them when asked by name).
std::string cuda_family_refusal(const EncodingSpec& enc);
/// The kernels of a trained family's spec, or null for a closed-form family; BackendError for a
/// trained family this backend has no kernels for.
std::unique_ptr<CudaTrainedEncoding> cuda_trained_encoding(const EncodingSpec& enc);

/// The hash grid's, the Gaussians' and sad's kernels behind the interface (their own files).
std::unique_ptr<CudaTrainedEncoding> make_cuda_hash_grid_encoding(const EncodingSpec& enc);
std::unique_ptr<CudaTrainedEncoding> make_cuda_gaussians_encoding(const EncodingSpec& enc);
std::unique_ptr<CudaTrainedEncoding> make_cuda_sad_encoding(const EncodingSpec& enc);

} // namespace redraw::cuda
