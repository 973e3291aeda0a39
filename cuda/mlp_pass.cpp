#include "cuda/mlp_pass.h"

#include "cuda/activation_kernels.cuh"
#include "cuda/encoding_kernels.cuh"
#include "cuda/loss_kernels.cuh"
#include "cuda/matmul.h"
#include "engine/errors.h"

#include <algorithm>

namespace redraw::cuda {

namespace {
/// Widest dL/dY the backward pass holds: every layer's output, and the input of every layer but
/// the first (the encoding's gradient is never needed).
int32_t gradient_width(const std::vector<DenseLayer>& layers) {
  int32_t w = 1;
  for (size_t l = 0; l < layers.size(); ++l) w = std::max({w, layers[l].out, l > 0 ? layers[l].in : 1});
  return w;
}
int64_t scratch_count(const std::vector<DenseLayer>& layers, int64_t rows) {
  int64_t s = 0;
  for (const auto& l : layers) s = std::max(s, bias_grad_scratch_count(rows, l.out));
  return s;
}
void check_rows(const MlpWorkspace& ws, int64_t rows) {
  if (rows < 0 || rows > ws.rows())
    throw BackendError("mlp pass: " + std::to_string(rows) + " rows, the workspace holds " + std::to_string(ws.rows()));
}
} // namespace

uint64_t MlpWorkspace::bytes_needed(const ModelSpec& model, int64_t rows, bool with_backward) {
  const auto layers = dense_layers(model);
  uint64_t floats = uint64_t(rows) * uint64_t(model.encoding.width());
  for (const auto& l : layers) floats += uint64_t(rows) * uint64_t(l.out) * (activation_needs_z(l.activation) ? 2 : 1);
  if (with_backward)
    floats += 2 * uint64_t(rows) * uint64_t(gradient_width(layers)) + uint64_t(scratch_count(layers, rows));
  uint64_t bytes = floats * sizeof(float);
  if (fused_mlp_unsupported(model).empty()) {
    // The fused layout: fp32 inputs, outputs and loss gradient, and the fp16 buffers.
    const uint64_t fused =
        uint64_t(rows) * uint64_t(model.encoding.width() + 2 * model.output_channels) * sizeof(float) +
        FusedMlp::bytes_needed(model, rows, with_backward);
    bytes = std::max(bytes, fused);
  }
  return bytes;
}

void MlpWorkspace::allocate(const CudaContext& ctx, const ModelSpec& model, int64_t rows, bool with_backward,
                            const LossParams* loss) {
  m_layers = dense_layers(model);
  m_omega = model.omega_0;
  m_scale = model.gauss_scale;
  m_rows = rows;
  m_storage.clear();
  m_z.clear();
  m_y.clear();
  m_fused = {};
  const DevicePool& pool = *ctx.pool;
  const int32_t enc_w = model.encoding.width();
  m_input = DeviceBuffer<float>(pool, ctx.stream, size_t(rows) * size_t(enc_w), "encoded inputs");
  if (ctx.fused && fused_mlp_unsupported(model, loss).empty()) {
    // Only the output (fp32) lives here; the hidden layers live in the fused kernels' fp16 buffers.
    const int32_t channels = m_layers.back().out;
    m_storage.emplace_back(pool, ctx.stream, size_t(rows) * size_t(channels), "network outputs");
    m_z.assign(m_layers.size(), nullptr);
    m_y.assign(m_layers.size(), nullptr);
    m_z.back() = m_y.back() = m_storage.back().data();
    m_grad_a = with_backward ? DeviceBuffer<float>(pool, ctx.stream, size_t(rows) * size_t(channels), "loss gradients")
                             : DeviceBuffer<float>();
    m_grad_b = {};
    m_scratch = {};
    m_fused.allocate(pool, ctx.stream, model, rows, with_backward);
    return;
  }
  for (const auto& l : m_layers) {
    const size_t count = size_t(rows) * size_t(l.out);
    m_storage.emplace_back(pool, ctx.stream, count, "layer outputs");
    float* y = m_storage.back().data();
    float* z = y;
    if (activation_needs_z(l.activation)) {
      m_storage.emplace_back(pool, ctx.stream, count, "layer pre-activations");
      z = m_storage.back().data();
    }
    m_z.push_back(z);
    m_y.push_back(y);
  }
  if (with_backward) {
    const size_t g = size_t(rows) * size_t(gradient_width(m_layers));
    m_grad_a = DeviceBuffer<float>(pool, ctx.stream, g, "activation gradients");
    m_grad_b = DeviceBuffer<float>(pool, ctx.stream, g, "activation gradients");
    m_scratch = DeviceBuffer<float>(pool, ctx.stream, size_t(scratch_count(m_layers, rows)), "bias-gradient partials");
  } else {
    m_grad_a = {};
    m_grad_b = {};
    m_scratch = {};
  }
}

void mlp_forward(const CudaContext& ctx, MlpWorkspace& ws, const float* params, const float* input, int64_t rows) {
  check_rows(ws, rows);
  if (!input && !ws.fused()) throw BackendError("mlp_forward: no inputs");
  if (ws.fused()) {
    TimedOp t(ctx.timer, ctx.stream, "fused forward");
    ws.m_fused.forward(ctx.stream, params, input, rows, ws.m_y.back(), !ws.m_grad_a.empty());
    return;
  }
  const float* x = input;
  for (size_t l = 0; l < ws.m_layers.size(); ++l) {
    const DenseLayer& L = ws.m_layers[l];
    {
      TimedOp t(ctx.timer, ctx.stream, "gemm forward");
      gemm_forward(ctx.blas, ctx.compute, x, params + L.weight_offset, ws.m_z[l], rows, L.in, L.out);
    }
    {
      TimedOp t(ctx.timer, ctx.stream, "bias+activation");
      bias_activation_forward(ctx.stream, params + L.bias_offset, ws.m_z[l], ws.m_y[l], rows, L.out, L.activation,
                              ws.m_omega, ws.m_scale);
    }
    x = ws.m_y[l];
  }
}

const float* encode_grid_input(const CudaContext& ctx, MlpWorkspace& ws, const HashGridParams& g, const float* table,
                               const float* coords, int64_t rows) {
  check_rows(ws, rows);
  if (ws.fused() && hash_grid_kernels().half_features) {
    hash_grid_encode_half(ctx.stream, g, table, coords, rows, ws.m_fused.half_input(), ws.m_fused.input_stride());
    return nullptr;
  }
  hash_grid_encode(ctx.stream, g, table, coords, rows, ws.input());
  return ws.input();
}

const float* encode_grid_pixels(const CudaContext& ctx, MlpWorkspace& ws, const HashGridParams& g, const float* table,
                                int32_t w, int32_t h, int64_t p0, int64_t rows) {
  check_rows(ws, rows);
  if (ws.fused() && hash_grid_kernels().half_features) {
    hash_grid_encode_grid_half(ctx.stream, g, table, w, h, p0, rows, ws.m_fused.half_input(), ws.m_fused.input_stride());
    return nullptr;
  }
  hash_grid_encode_grid(ctx.stream, g, table, w, h, p0, rows, ws.input());
  return ws.input();
}

void mlp_backward(const CudaContext& ctx, MlpWorkspace& ws, const float* params, const float* input,
                  const float* targets, int64_t rows, const LossParams& loss, float inv_count, float* loss_partial,
                  float* grads, bool accumulate, float* input_grad, float* error_partial) {
  check_rows(ws, rows);
  if (ws.m_grad_a.empty()) throw BackendError("mlp_backward: the workspace has no gradient buffers");
  const auto& layers = ws.m_layers;
  float* g = ws.m_grad_a.data();
  float* g_next = ws.m_grad_b.data();
  {
    TimedOp t(ctx.timer, ctx.stream, "loss+gradient");
    loss_and_gradient(ctx.stream, loss, ws.m_y.back(), targets, g, rows * layers.back().out, inv_count, loss_partial,
                      error_partial);
  }
  if (ws.fused()) {
    TimedOp t(ctx.timer, ctx.stream, "fused backward+weight grads");
    ws.m_fused.backward(ctx.stream, ctx.blas, g, ws.m_y.back(), rows, inv_count, grads, accumulate, input_grad);
    return;
  }
  for (size_t li = layers.size(); li-- > 0;) {
    const DenseLayer& L = layers[li];
    {
      TimedOp t(ctx.timer, ctx.stream, "activation backward+bias grad");
      activation_backward_bias_grad(ctx.stream, ws.m_z[li], ws.m_y[li], g, rows, L.out, L.activation, ws.m_omega,
                                    ws.m_scale, ws.m_scratch.data(), grads + L.bias_offset, accumulate);
    }
    const float* x = li == 0 ? input : ws.m_y[li - 1];
    {
      TimedOp t(ctx.timer, ctx.stream, "gemm weight grad");
      gemm_weight_grad(ctx.blas, ctx.compute, g, x, grads + L.weight_offset, rows, L.in, L.out, accumulate);
    }
    if (li > 0) {
      TimedOp t(ctx.timer, ctx.stream, "gemm input grad");
      gemm_input_grad(ctx.blas, ctx.compute, g, params + L.weight_offset, g_next, rows, L.in, L.out);
      std::swap(g, g_next);
    } else if (input_grad) {
      TimedOp t(ctx.timer, ctx.stream, "gemm input grad");
      gemm_input_grad(ctx.blas, ctx.compute, g, params + L.weight_offset, input_grad, rows, L.in, L.out);
    }
  }
}

} // namespace redraw::cuda
