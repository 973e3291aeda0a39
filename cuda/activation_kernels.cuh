#pragma once
/// Fused per-element kernels around a dense layer's matrix product.
/// - bias_activation_forward: z (rows x cols, row-major) holds X * W^T on entry; adds the bias and
///   writes y = act(z + b). When y == z the layer keeps only y (activations whose derivative needs
///   only y, see activation_needs_z); otherwise z receives z + b.
/// - activation_backward_bias_grad: g *= act'(z, y) in place, and db = column sums of the new g,
///   reduced deterministically in two passes (fixed row blocks, then the blocks in order).
#include "engine/activation_math.h"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace redraw::cuda {

/// True when act'(z, y) needs z itself. For ReLU and LeakyReLU z > 0 exactly when y > 0, so the
/// derivative evaluated at y equals the one evaluated at z and the layer needs no z buffer.
inline bool activation_needs_z(Activation a) { return activation_derivative_needs_z(a); }

void bias_activation_forward(cudaStream_t stream, const float* bias, float* z, float* y, int64_t rows, int32_t cols,
                             Activation act, float omega, float scale);

/// Floats of scratch that activation_backward_bias_grad needs for rows x cols.
int64_t bias_grad_scratch_count(int64_t rows, int32_t cols);

/// z may equal y (see activation_needs_z). db receives the bias gradient (db += when accumulate).
void activation_backward_bias_grad(cudaStream_t stream, const float* z, const float* y, float* g, int64_t rows,
                                   int32_t cols, Activation act, float omega, float scale, float* scratch, float* db,
                                   bool accumulate);

} // namespace redraw::cuda
