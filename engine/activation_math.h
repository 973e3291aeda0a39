#pragma once
/// Activations and their derivatives, shared by the CPU backend and the CUDA kernels.
/// - activate(a, z, omega, scale): y = f(z). omega is the model's omega_0 (a frequency), scale
///   its gauss_scale (s, the width of a Gaussian); each activation reads the ones it uses:
///   - Sine:  y = sin(omega * z) (SIREN);
///   - Finer: y = sin(omega * (|z| + 1) * z) (FINER, Liu et al. 2024);
///   - Gauss: y = exp(-(s * z)^2) (Ramasinghe and Lucey 2022);
///   - Gabor: y = cos(omega * z) * exp(-(s * z)^2) (real WIRE, Saragadam et al. 2023);
///   the bell exp(-(s * z)^2) never goes below exp(-9.3^2) (gauss_bell()).
/// - activate_derivative(a, z, y, omega, scale): dy/dz, given both the pre-activation z and
///   y = f(z). The exact derivative everywhere: Finer's is omega * (2|z| + 1) * cos(omega * (|z| + 1) * z)
///   (FINER's reference code treats |z| + 1 as a constant in backward; this does not).
/// - The enum's values are stored in model files: new activations go at the end.
#include "engine/hd_common.h"

namespace redraw {

enum class Activation : int32_t { Identity = 0, Relu, LeakyRelu, Tanh, Sigmoid, Softplus, Sine, Finer, Gauss, Gabor };
constexpr int32_t k_activation_count = int32_t(Activation::Gabor) + 1;

constexpr float k_leaky_relu_slope = 0.01f;
constexpr float k_softplus_linear_above = 20.0f; ///< softplus(z) == z to float precision beyond this
/// |s z| is held at this in the Gaussian bell: exp(-9.3^2) = 2.7e-38, just above the smallest normal
/// float, so an output changes by less than 3e-38 (nothing a sum of weights can carry). Beyond it the
/// exponent would underflow, and glibc's SIMD expf sends any vector holding such a lane down its
/// scalar path (a fifth of a Gauss step's time on a CPU). The clamp is on s z, not on the exponent:
/// GCC rewrites exp(max(e, -87)) as a choice between exp(e) and the constant exp(-87), which still
/// calls exp on the underflowing lanes. The next layer's products of such a value are subnormal
/// below a weight of 0.43: the CPU backend flushes them to 0 (cpu/flushed_team.h).
constexpr float k_gauss_bell_reach = 9.3f;

/// exp(-(s z)^2), s z held within +-k_gauss_bell_reach: the bell of Gauss and Gabor.
template <class T> REDRAW_HD inline T gauss_bell(T sz) {
  const T c = rd_clamp(sz, T(-k_gauss_bell_reach), T(k_gauss_bell_reach));
  return rd_exp(-(c * c));
}

template <class T> REDRAW_HD inline T activate(Activation a, T z, T omega, T scale) {
  switch (a) {
  case Activation::Identity: return z;
  case Activation::Relu: return z > T(0) ? z : T(0);
  case Activation::LeakyRelu: return z > T(0) ? z : T(k_leaky_relu_slope) * z;
  case Activation::Tanh: return rd_tanh(z);
  case Activation::Sigmoid: return T(1) / (T(1) + rd_exp(-z));
  case Activation::Softplus: return z > T(k_softplus_linear_above) ? z : rd_log1p(rd_exp(z));
  case Activation::Sine: return rd_sin(omega * z);
  case Activation::Finer: return rd_sin(omega * ((rd_abs(z) + T(1)) * z));
  case Activation::Gauss: return gauss_bell(scale * z);
  case Activation::Gabor: return rd_cos(omega * z) * gauss_bell(scale * z);
  }
  return z;
}

template <class T> REDRAW_HD inline T activate_derivative(Activation a, T z, T y, T omega, T scale) {
  switch (a) {
  case Activation::Identity: return T(1);
  case Activation::Relu: return z > T(0) ? T(1) : T(0);
  case Activation::LeakyRelu: return z > T(0) ? T(1) : T(k_leaky_relu_slope);
  case Activation::Tanh: return T(1) - y * y;
  case Activation::Sigmoid: return y * (T(1) - y);
  case Activation::Softplus: return T(1) / (T(1) + rd_exp(-z));
  case Activation::Sine: return omega * rd_cos(omega * z);
  case Activation::Finer: {
    const T m = rd_abs(z);
    return omega * (T(2) * m + T(1)) * rd_cos(omega * ((m + T(1)) * z));
  }
  case Activation::Gauss: return T(-2) * scale * scale * z * y;
  case Activation::Gabor: {
    // -exp(-(s z)^2) omega sin(omega z) - 2 s^2 z y, with y = cos(omega z) exp(-(s z)^2) from the
    // forward pass: one sine and one exponential, no cosine, so a CPU loop stays vectorised (a
    // sine and a cosine of one argument become one scalar sincosf call).
    return -(gauss_bell(scale * z) * omega * rd_sin(omega * z)) - T(2) * scale * scale * z * y;
  }
  }
  return T(1);
}

/// Whether the activation's derivative reads its pre-activation z (not y alone).
REDRAW_HD inline bool activation_derivative_needs_z(Activation a) {
  return a == Activation::Softplus || a == Activation::Sine || a == Activation::Finer || a == Activation::Gauss ||
         a == Activation::Gabor;
}

} // namespace redraw
