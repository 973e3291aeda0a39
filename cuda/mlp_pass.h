#pragma once
/// Forward and backward passes of a coordinate MLP on the device, as sequences of cuBLAS products
/// and fused kernels on one stream. Used by the bound training step (captured into a CUDA graph),
/// by dataset_mse, by rendering and by the stateless ops.
/// - MlpWorkspace holds the activations and gradient buffers for up to rows() samples; it is
///   allocated once per network shape and pass size, never inside a pass.
/// - Layer l keeps z (pre-activation) only when its activation's derivative needs it
///   (activation_needs_z); otherwise y is computed in place of z.
/// - When the context asks for it (ctx.fused, precision auto) and cuda/fused_mlp_rules.h covers the
///   network and its loss, allocate() sets the workspace up for the fused fp16 kernels instead, and
///   the passes below run them; the decision is the workspace's until it is allocated again.
/// - A pass over more rows than the workspace holds throws BackendError (never writes past it).
#include "cuda/device_buffer.h"
#include "cuda/fused_mlp.cuh"
#include "cuda/op_timer.h"
#include "engine/hash_grid_math.h"
#include "engine/loss_math.h"
#include "engine/model_spec.h"

#include <cublas_v2.h>

#include <vector>

namespace redraw::cuda {

/// What every enqueueing function needs. timer is null except in the benchmark's profiled steps.
struct CudaContext {
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  const DevicePool* pool = nullptr;
  OpTimer* timer = nullptr;
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F; ///< matrix-product precision (matmul.h)
  bool fused = false; ///< networks the fused fp16 kernels cover run on them (precision auto)
};

class MlpWorkspace {
public:
  /// Allocates buffers for `rows` samples of `model`; gradient buffers when with_backward. `loss`
  /// is the loss the network trains with (null: none known, forward passes only): a loss the
  /// fused kernels cannot carry in fp16 keeps the workspace on cuBLAS (fused_mlp_unsupported).
  void allocate(const CudaContext& ctx, const ModelSpec& model, int64_t rows, bool with_backward,
                const LossParams* loss = nullptr);
  /// Device bytes allocate() would take (the larger of the cuBLAS and the fused layouts).
  static uint64_t bytes_needed(const ModelSpec& model, int64_t rows, bool with_backward);
  bool fused() const { return m_fused.allocated(); }

  int64_t rows() const { return m_rows; }
  const std::vector<DenseLayer>& layers() const { return m_layers; }
  float* input() { return m_input.data(); }  ///< rows x encoding width
  float* output() { return m_y.back(); }     ///< rows x output channels, after mlp_forward

private:
  friend void mlp_forward(const CudaContext&, MlpWorkspace&, const float*, const float*, int64_t);
  friend const float* encode_grid_input(const CudaContext&, MlpWorkspace&, const HashGridParams&, const float*,
                                        const float*, int64_t);
  friend const float* encode_grid_pixels(const CudaContext&, MlpWorkspace&, const HashGridParams&, const float*,
                                         int32_t, int32_t, int64_t, int64_t);
  friend void mlp_backward(const CudaContext&, MlpWorkspace&, const float*, const float*, const float*, int64_t,
                           const LossParams&, float, float*, float*, bool, float*, float*);
  std::vector<DenseLayer> m_layers;
  float m_omega = 30.0f;
  float m_scale = 10.0f; ///< the model's gauss_scale
  int64_t m_rows = 0;
  std::vector<DeviceBuffer<float>> m_storage;
  std::vector<float*> m_z, m_y; ///< per layer; m_z[l] == m_y[l] when z is not kept
  DeviceBuffer<float> m_input, m_grad_a, m_grad_b, m_scratch;
  FusedMlp m_fused;
};

/// Forward pass of `rows` (<= ws.rows()) encoded inputs; the result is ws.output(). input null:
/// the fp16 inputs an encoder wrote into a fused workspace (encode_grid_input).
void mlp_forward(const CudaContext& ctx, MlpWorkspace& ws, const float* params, const float* input, int64_t rows);

/// The hash-grid encoding of coords (rows x 2), or of pixels [p0, p0 + rows) of a w x h image,
/// written where ws's forward pass reads it: fp16 straight into the fused MLP's input when ws is
/// fused and hash_grid_kernels().half_features, else fp32 into ws.input(). Returns the input to
/// hand mlp_forward and mlp_backward (null: the fp16 input).
const float* encode_grid_input(const CudaContext& ctx, MlpWorkspace& ws, const HashGridParams& g, const float* table,
                               const float* coords, int64_t rows);
const float* encode_grid_pixels(const CudaContext& ctx, MlpWorkspace& ws, const HashGridParams& g, const float* table,
                                int32_t w, int32_t h, int64_t p0, int64_t rows);

/// After mlp_forward on the same rows (input: what it was given; null for fp16 inputs in a fused
/// workspace, which keeps them itself): the loss of the output against targets (rows x channels)
/// goes to loss_partial (loss_partial_count(rows * channels) floats, see loss_kernels.cuh) and its
/// gradient, scaled by inv_count, to grads (same layout as params; += when accumulate).
/// error_partial, when not null, receives the clamped squared error's partial sums beside the
/// loss's (loss_and_gradient). input_grad (rows x encoding width), when not null, receives dLoss/dInput (for a trainable
/// encoding).
void mlp_backward(const CudaContext& ctx, MlpWorkspace& ws, const float* params, const float* input,
                  const float* targets, int64_t rows, const LossParams& loss, float inv_count, float* loss_partial,
                  float* grads, bool accumulate, float* input_grad = nullptr, float* error_partial = nullptr);

} // namespace redraw::cuda
