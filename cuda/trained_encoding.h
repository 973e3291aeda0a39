#pragma once
/// The CUDA backend's interface to a family whose encoding reads trainable floats (hash grid,
/// Gaussians): the bound step, the renders and the stateless ops call it and never ask which
/// family it is. Each family's kernels implement it in the family's own file
/// (cuda/hash_grid_encoding.cpp, cuda/gaussians_encoding.cpp), registered in one table keyed by the
/// family's record (cuda/trained_encodings.cpp).
/// - The trained floats lead the parameter array (params[0, trained_count)) and their gradients
///   lead the gradient array.
/// - prepare() readies the kernels for one set of parameters (the Gaussians bin themselves); every
///   encode and backward with those parameters comes after it, until the next prepare().
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
  /// Whether prepare() enqueues only: a step whose prepare() waits for the stream (the Gaussians'
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

/// Empty, or why this backend has no kernels for the spec's family (a trained family whose
/// kernels are the CPU's only, for now: sad).
std::string cuda_family_refusal(const EncodingSpec& enc);
/// The kernels of a trained family's spec, or null for a closed-form family; BackendError (the
/// refusal) for a trained family this backend has no kernels for.
std::unique_ptr<CudaTrainedEncoding> cuda_trained_encoding(const EncodingSpec& enc);

/// The hash grid's and the Gaussians' kernels behind the interface (their own files).
std::unique_ptr<CudaTrainedEncoding> make_cuda_hash_grid_encoding(const EncodingSpec& enc);
std::unique_ptr<CudaTrainedEncoding> make_cuda_gaussians_encoding(const EncodingSpec& enc);

} // namespace redraw::cuda
