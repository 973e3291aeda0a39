#pragma once
/// Per-parameter optimizer updates, shared by the CPU backend and the CUDA kernels.
/// The learning rate arrives from a schedule each step; these functions know nothing of schedules.
#include "engine/hd_common.h"

namespace redraw {

struct AdamParams {
  float beta1 = 0.9f, beta2 = 0.999f, epsilon = 1e-8f, weight_decay = 0.0f;
};
struct SgdParams {
  float momentum = 0.0f, weight_decay = 0.0f;
  bool nesterov = false;
};

/// Adam with bias correction. step is 1-based (the first update has step = 1); the caller computes
/// bias1 = 1 - beta1^step and bias2 = 1 - beta2^step once per step, and from them AdamStep.
/// PyTorch's arrangement: both corrections folded into two scalars a step, so a weight costs one
/// division and one square root (m / bias1 and v / bias2 per weight made the CPU's sweep
/// compute-bound instead of memory-bound).
struct AdamStep {
  float step_size = 0.0f;      ///< lr / bias1
  float inv_sqrt_bias2 = 1.0f; ///< 1 / sqrt(bias2)
};
REDRAW_HD inline AdamStep adam_step(float lr, float bias1, float bias2) {
  return AdamStep{lr / bias1, 1.0f / rd_sqrt(bias2)};
}
/// p -= (lr / bias1) * m / (sqrt(v) / sqrt(bias2) + epsilon), the same update as
/// lr * m_hat / (sqrt(v_hat) + epsilon) up to rounding.
REDRAW_HD inline void adam_update(const AdamParams& a, AdamStep s, float& param, float grad, float& m, float& v) {
  const float g = grad + a.weight_decay * param;
  m = a.beta1 * m + (1.0f - a.beta1) * g;
  v = a.beta2 * v + (1.0f - a.beta2) * g * g;
  param -= s.step_size * m / (rd_sqrt(v) * s.inv_sqrt_bias2 + a.epsilon);
}

/// A factor on the learning rate of some lanes of an array of records of `period` floats: element
/// i takes lr * factor where i % period < lanes, lr elsewhere (the Gaussians' means,
/// engine/gaussian_math.h). The default scales nothing. Both backends take the factor into the
/// learning rate before adam_step(), so they round it alike.
struct LaneStep {
  int32_t period = 1, lanes = 0;
  float factor = 1.0f;
  REDRAW_HD bool scales(int64_t i) const { return lanes > 0 && i % period < lanes; }
};

/// SGD with (optionally Nesterov) momentum, PyTorch's convention: v = mu * v + g; p -= lr * v.
REDRAW_HD inline void sgd_update(const SgdParams& s, float lr, float& param, float grad, float& velocity) {
  const float g = grad + s.weight_decay * param;
  if (s.momentum == 0.0f) {
    param -= lr * g;
    return;
  }
  velocity = s.momentum * velocity + g;
  param -= lr * (s.nesterov ? g + s.momentum * velocity : velocity);
}

} // namespace redraw
