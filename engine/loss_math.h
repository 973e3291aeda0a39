#pragma once
/// Per-element losses and their gradients with respect to the prediction.
/// The reduction is a mean over every element (samples x channels): callers divide by that count.
/// BCE clips the prediction to [eps, 1 - eps] so log(0) never happens; its gradient is evaluated
/// at the clipped prediction, so it stays finite and never vanishes in the clipped region.
#include "engine/hd_common.h"

namespace redraw {

enum class LossKind : int32_t { MSE = 0, L1, Huber, BCE };

struct LossParams {
  LossKind kind = LossKind::MSE;
  float huber_delta = 0.1f; ///< Huber: quadratic within |p - t| < delta
  float bce_epsilon = 1e-6f; ///< BCE: prediction clip
};

template <class T> REDRAW_HD inline T loss_value(const LossParams& p, T pred, T target) {
  const T d = pred - target;
  switch (p.kind) {
  case LossKind::MSE: return d * d;
  case LossKind::L1: return rd_abs(d);
  case LossKind::Huber: {
    const T delta = T(p.huber_delta), ad = rd_abs(d);
    return ad < delta ? T(0.5) * d * d : delta * (ad - T(0.5) * delta);
  }
  case LossKind::BCE: {
    const T eps = T(p.bce_epsilon);
    const T q = rd_clamp(pred, eps, T(1) - eps);
    return -(target * rd_log(q) + (T(1) - target) * rd_log(T(1) - q));
  }
  }
  return d * d;
}

/// d loss_value / d pred for one element (not yet divided by the element count).
template <class T> REDRAW_HD inline T loss_gradient(const LossParams& p, T pred, T target) {
  const T d = pred - target;
  switch (p.kind) {
  case LossKind::MSE: return T(2) * d;
  case LossKind::L1: return d > T(0) ? T(1) : (d < T(0) ? T(-1) : T(0));
  case LossKind::Huber: {
    const T delta = T(p.huber_delta);
    return rd_abs(d) < delta ? d : (d > T(0) ? delta : -delta);
  }
  case LossKind::BCE: {
    const T eps = T(p.bce_epsilon);
    const T q = rd_clamp(pred, eps, T(1) - eps);
    return (q - target) / (q * (T(1) - q));
  }
  }
  return T(2) * d;
}

} // namespace redraw
