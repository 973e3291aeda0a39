// The body of the CPU kernels (engine/cpu_kernels.h), included once per instruction set by
// cpu_kernels_sse2.cpp, cpu_kernels_avx2.cpp and cpu_kernels_avx512.cpp. Before including it, a
// file defines REDRAW_KERNEL_TARGET (a function attribute: the instruction set) and
// REDRAW_KERNEL_NAME (the variant's accessor in kernels_detail). Not an ordinary header.
//
// glibc's libmvec (>= 2.35) has SIMD variants of the float math functions used here. glibc
// declares them only under -ffast-math; declaring them here lets the `omp simd` loops call the
// 4/8/16-wide versions (picked by each function's target) without changing the floating-point
// semantics of anything else.
#include <features.h>
#if defined(__x86_64__) && defined(__GLIBC__) && __GLIBC_PREREQ(2, 35) && defined(_OPENMP)
extern "C" {
#pragma omp declare simd notinbranch
float tanhf(float) noexcept;
#pragma omp declare simd notinbranch
float expf(float) noexcept;
#pragma omp declare simd notinbranch
float sinf(float) noexcept;
#pragma omp declare simd notinbranch
float cosf(float) noexcept;
#pragma omp declare simd notinbranch
float log1pf(float) noexcept;
}
#endif

#include "engine/cpu_kernels.h"

namespace redraw {

namespace {

/// The activation a compile-time constant, so the inner loop is branch-free and vectorisable.
template <Activation A>
REDRAW_KERNEL_TARGET void bias_activate_t(float* z, float* y, const float* b, int64_t r0, int64_t r1, int32_t out,
                                          float omega) {
  for (int64_t r = r0; r < r1; ++r) {
    float* zr = z + r * out;
    float* yr = y + r * out;
#pragma omp simd
    for (int32_t j = 0; j < out; ++j) {
      const float v = zr[j] + b[j];
      zr[j] = v;
      yr[j] = activate<float>(A, v, omega);
    }
  }
}

template <Activation A>
REDRAW_KERNEL_TARGET void activation_backward_t(float* g, const float* z, const float* y, int64_t e0, int64_t e1,
                                                float omega) {
#pragma omp simd
  for (int64_t e = e0; e < e1; ++e)
    g[e] *= activate_derivative<float>(A, z[e], y[e], omega);
}

REDRAW_KERNEL_TARGET void bias_activate(Activation a, float* z, float* y, const float* b, int64_t r0, int64_t r1,
                                        int32_t out, float omega) {
  switch (a) {
  case Activation::Identity:
    return bias_activate_t<Activation::Identity>(z, y, b, r0, r1, out, omega);
  case Activation::Relu:
    return bias_activate_t<Activation::Relu>(z, y, b, r0, r1, out, omega);
  case Activation::LeakyRelu:
    return bias_activate_t<Activation::LeakyRelu>(z, y, b, r0, r1, out, omega);
  case Activation::Tanh:
    return bias_activate_t<Activation::Tanh>(z, y, b, r0, r1, out, omega);
  case Activation::Sigmoid:
    return bias_activate_t<Activation::Sigmoid>(z, y, b, r0, r1, out, omega);
  case Activation::Softplus:
    return bias_activate_t<Activation::Softplus>(z, y, b, r0, r1, out, omega);
  case Activation::Sine:
    return bias_activate_t<Activation::Sine>(z, y, b, r0, r1, out, omega);
  }
}

REDRAW_KERNEL_TARGET void activation_backward(Activation a, float* g, const float* z, const float* y, int64_t e0,
                                              int64_t e1, float omega) {
  switch (a) {
  case Activation::Identity:
    return activation_backward_t<Activation::Identity>(g, z, y, e0, e1, omega);
  case Activation::Relu:
    return activation_backward_t<Activation::Relu>(g, z, y, e0, e1, omega);
  case Activation::LeakyRelu:
    return activation_backward_t<Activation::LeakyRelu>(g, z, y, e0, e1, omega);
  case Activation::Tanh:
    return activation_backward_t<Activation::Tanh>(g, z, y, e0, e1, omega);
  case Activation::Sigmoid:
    return activation_backward_t<Activation::Sigmoid>(g, z, y, e0, e1, omega);
  case Activation::Softplus:
    return activation_backward_t<Activation::Softplus>(g, z, y, e0, e1, omega);
  case Activation::Sine:
    return activation_backward_t<Activation::Sine>(g, z, y, e0, e1, omega);
  }
}

/// encoding_value's Fourier case, a row at a time: the phase in the same order of operations.
REDRAW_KERNEL_TARGET void fourier_encode(const float* b, int32_t features, const float* coords, int64_t r0, int64_t r1,
                                         float* out) {
  const int32_t w = 2 * features;
  for (int64_t r = r0; r < r1; ++r) {
    const float x = coords[2 * r], y = coords[2 * r + 1];
    float* o = out + r * w;
#pragma omp simd
    for (int32_t f = 0; f < features; ++f) {
      const float phase = float(k_pi) * (b[2 * f] * x + b[2 * f + 1] * y);
      o[f] = rd_sin(phase);
      o[features + f] = rd_cos(phase);
    }
  }
}

} // namespace

namespace kernels_detail {
const CpuKernels& REDRAW_KERNEL_NAME() {
  static const CpuKernels k{REDRAW_KERNEL_ISA, &bias_activate, &activation_backward, &fourier_encode};
  return k;
}
} // namespace kernels_detail

} // namespace redraw
