#pragma once
/// Activations and their derivatives, shared by the CPU backend and the CUDA kernels.
/// - activate(a, z, omega): y = f(z). For Sine, y = sin(omega * z) (SIREN).
/// - activate_derivative(a, z, y, omega): dy/dz, given both the pre-activation z and y = f(z).
#include "engine/hd_common.h"

namespace redraw {

enum class Activation : int32_t { Identity = 0, Relu, LeakyRelu, Tanh, Sigmoid, Softplus, Sine };
constexpr int32_t k_activation_count = int32_t(Activation::Sine) + 1;

constexpr float k_leaky_relu_slope = 0.01f;
constexpr float k_softplus_linear_above = 20.0f; ///< softplus(z) == z to float precision beyond this

template <class T> REDRAW_HD inline T activate(Activation a, T z, T omega) {
  switch (a) {
  case Activation::Identity: return z;
  case Activation::Relu: return z > T(0) ? z : T(0);
  case Activation::LeakyRelu: return z > T(0) ? z : T(k_leaky_relu_slope) * z;
  case Activation::Tanh: return rd_tanh(z);
  case Activation::Sigmoid: return T(1) / (T(1) + rd_exp(-z));
  case Activation::Softplus: return z > T(k_softplus_linear_above) ? z : rd_log1p(rd_exp(z));
  case Activation::Sine: return rd_sin(omega * z);
  }
  return z;
}

template <class T> REDRAW_HD inline T activate_derivative(Activation a, T z, T y, T omega) {
  switch (a) {
  case Activation::Identity: return T(1);
  case Activation::Relu: return z > T(0) ? T(1) : T(0);
  case Activation::LeakyRelu: return z > T(0) ? T(1) : T(k_leaky_relu_slope);
  case Activation::Tanh: return T(1) - y * y;
  case Activation::Sigmoid: return y * (T(1) - y);
  case Activation::Softplus: return T(1) / (T(1) + rd_exp(-z));
  case Activation::Sine: return omega * rd_cos(omega * z);
  }
  return T(1);
}

} // namespace redraw
