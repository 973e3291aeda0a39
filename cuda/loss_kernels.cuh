#pragma once
/// Loss + gradient in one pass, and deterministic on-device sums.
/// - Every reduction is two-pass with a fixed shape: block b always sums the same k_items
///   elements in the same tree order, then reduce_sum adds the block partials in a fixed order, so
///   the same inputs give the same bits every run (no atomics).
#include "engine/loss_math.h"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace redraw::cuda {

/// Partial sums written by loss_and_gradient / clamped_squared_error for `count` elements.
int64_t loss_partial_count(int64_t count);

/// g[e] = loss_gradient(pred[e], target[e]) * inv_count for e in [0, count); partial[b] = the sum of
/// loss_value over block b's elements (loss_partial_count(count) floats). When error_partial is
/// given, error_partial[b] = block b's sum of (clamp(pred, 0, 1) - target)^2 in the same pass (the
/// PSNR of a full-batch step's starting point, with no extra forward pass).
void loss_and_gradient(cudaStream_t stream, const LossParams& loss, const float* pred, const float* target, float* g,
                       int64_t count, float inv_count, float* partial, float* error_partial = nullptr);

/// partial[b] = sum over block b of (clamp(pred, 0, 1) - target)^2.
void clamped_squared_error(cudaStream_t stream, const float* pred, const float* target, int64_t count,
                           float* partial);

/// *out = sum of partial[0, n) (one block, fixed order). n may be 0 (then *out = 0). When
/// nonfinite_flag is given, *nonfinite_flag is set to 1 if the sum is not finite (never cleared here).
void reduce_sum(cudaStream_t stream, const float* partial, int64_t n, float* out, float* nonfinite_flag = nullptr);

} // namespace redraw::cuda
