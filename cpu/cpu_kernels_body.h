// The body of the CPU kernels (cpu/cpu_kernels.h), included once per instruction set by
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

#include "cpu/cpu_kernels.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace redraw {

namespace {

/// The activation a compile-time constant, so the inner loop is branch-free and vectorisable.
template <Activation A> struct BiasActivate {
  static REDRAW_KERNEL_TARGET void run(float* z, float* y, const float* b, int64_t r0, int64_t r1, int32_t out,
                                       float omega, float scale) {
    for (int64_t r = r0; r < r1; ++r) {
      float* zr = z + r * out;
      float* yr = y + r * out;
#pragma omp simd
      for (int32_t j = 0; j < out; ++j) {
        const float v = zr[j] + b[j];
        zr[j] = v;
        yr[j] = activate<float>(A, v, omega, scale);
      }
    }
  }
};

template <Activation A> struct ActivationBackward {
  static REDRAW_KERNEL_TARGET void run(float* g, const float* z, const float* y, int64_t e0, int64_t e1, float omega,
                                       float scale) {
#pragma omp simd
    for (int64_t e = e0; e < e1; ++e)
      g[e] *= activate_derivative<float>(A, z[e], y[e], omega, scale);
  }
};

/// K<a>::run(args...): one instantiation per activation, picked from a table by the enum's value.
template <template <Activation> class K, size_t... I, class... Args>
REDRAW_KERNEL_TARGET void run_for_activation(std::index_sequence<I...>, Activation a, Args... args) {
  using Fn = void (*)(Args...);
  static constexpr Fn table[] = {&K<Activation(I)>::run...};
  table[int32_t(a)](args...);
}
constexpr auto k_each_activation = std::make_index_sequence<k_activation_count>{};

REDRAW_KERNEL_TARGET void bias_activate(Activation a, float* z, float* y, const float* b, int64_t r0, int64_t r1,
                                        int32_t out, float omega, float scale) {
  run_for_activation<BiasActivate>(k_each_activation, a, z, y, b, r0, r1, out, omega, scale);
}

REDRAW_KERNEL_TARGET void activation_backward(Activation a, float* g, const float* z, const float* y, int64_t e0,
                                              int64_t e1, float omega, float scale) {
  run_for_activation<ActivationBackward>(k_each_activation, a, g, z, y, e0, e1, omega, scale);
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

/// W^T (in x out) of an out x in matrix, so the loops below read the wide side contiguously.
std::vector<float> transposed(const float* w, int32_t in, int32_t out) {
  std::vector<float> t(size_t(in) * size_t(out));
  for (int32_t o = 0; o < out; ++o)
    for (int32_t i = 0; i < in; ++i)
      t[size_t(i) * size_t(out) + size_t(o)] = w[size_t(o) * size_t(in) + size_t(i)];
  return t;
}

REDRAW_KERNEL_TARGET void thin_forward(const float* x, const float* w, float* z, int64_t r0, int64_t r1, int32_t in,
                                       int32_t out) {
  if (out <= k_thin_width) { // a few dot products of length `in` per row
    for (int64_t r = r0; r < r1; ++r) {
      const float* xr = x + r * in;
      for (int32_t o = 0; o < out; ++o) {
        const float* wo = w + int64_t(o) * in;
        float s = 0;
#pragma omp simd reduction(+ : s)
        for (int32_t i = 0; i < in; ++i)
          s += xr[i] * wo[i];
        z[r * out + o] = s;
      }
    }
    return;
  }
  const std::vector<float> wt = transposed(w, in, out); // in (<= 4) rows of `out`
  for (int64_t r = r0; r < r1; ++r) {
    const float* xr = x + r * in;
    float* zr = z + r * out;
#pragma omp simd
    for (int32_t o = 0; o < out; ++o)
      zr[o] = xr[0] * wt[size_t(o)];
    for (int32_t i = 1; i < in; ++i) {
      const float xi = xr[i];
      const float* wi = wt.data() + size_t(i) * size_t(out);
#pragma omp simd
      for (int32_t o = 0; o < out; ++o)
        zr[o] += xi * wi[o];
    }
  }
}

REDRAW_KERNEL_TARGET void thin_input_grad(const float* g, const float* w, float* dx, int64_t r0, int64_t r1, int32_t in,
                                          int32_t out) {
  if (out <= k_thin_width) { // dx row = a few rows of W, weighted
    for (int64_t r = r0; r < r1; ++r) {
      const float* gr = g + r * out;
      float* dr = dx + r * in;
      const float g0 = gr[0];
#pragma omp simd
      for (int32_t i = 0; i < in; ++i)
        dr[i] = g0 * w[i];
      for (int32_t o = 1; o < out; ++o) {
        const float go = gr[o];
        const float* wo = w + int64_t(o) * in;
#pragma omp simd
        for (int32_t i = 0; i < in; ++i)
          dr[i] += go * wo[i];
      }
    }
    return;
  }
  const std::vector<float> wt = transposed(w, in, out);
  for (int64_t r = r0; r < r1; ++r) {
    const float* gr = g + r * out;
    for (int32_t i = 0; i < in; ++i) {
      const float* wi = wt.data() + size_t(i) * size_t(out);
      float s = 0;
#pragma omp simd reduction(+ : s)
      for (int32_t o = 0; o < out; ++o)
        s += gr[o] * wi[o];
      dx[r * in + i] = s;
    }
  }
}

REDRAW_KERNEL_TARGET void thin_weight_grad(const float* g, const float* x, float* dw, int64_t rows, int32_t in,
                                           int32_t out, int32_t c0, int32_t c1, bool accumulate) {
  if (c1 <= c0) return;
  const int32_t n = c1 - c0;
  // dW = g^T x as acc[k][j] = sum over rows of thin[r][k] * wide[r][c0 + j]: the thin side is
  // the output (g) or the input (x), the wide side the other.
  const bool thin_out = out <= k_thin_width;
  const float* thin = thin_out ? g : x;
  const float* wide = thin_out ? x : g;
  const int32_t nt = thin_out ? out : in, nw = thin_out ? in : out;
  // Rows are summed in blocks of k_thin_block (each block in row order, the blocks added in order):
  // a long float sum loses less than one running total over tens of thousands of rows.
  constexpr int64_t k_thin_block = 512;
  std::vector<float> acc(size_t(nt) * size_t(n), 0.0f), part(acc.size());
  for (int64_t b0 = 0; b0 < rows; b0 += k_thin_block) {
    std::fill(part.begin(), part.end(), 0.0f);
    for (int64_t r = b0; r < std::min(rows, b0 + k_thin_block); ++r) {
      const float* wr = wide + r * nw + c0;
      for (int32_t k = 0; k < nt; ++k) {
        const float tk = thin[r * nt + k];
        float* a = part.data() + size_t(k) * size_t(n);
#pragma omp simd
        for (int32_t j = 0; j < n; ++j)
          a[j] += tk * wr[j];
      }
    }
    for (size_t e = 0; e < acc.size(); ++e)
      acc[e] += part[e];
  }
  for (int32_t k = 0; k < nt; ++k)
    for (int32_t j = 0; j < n; ++j) {
      // W is out x in: (k, c0 + j) when the output is thin, (c0 + j, k) when the input is.
      float& d = thin_out ? dw[int64_t(k) * in + c0 + j] : dw[int64_t(c0 + j) * in + k];
      const float v = acc[size_t(k) * size_t(n) + size_t(j)];
      d = accumulate ? d + v : v;
    }
}

} // namespace

namespace kernels_detail {
const CpuKernels& REDRAW_KERNEL_NAME() {
  static const CpuKernels k{REDRAW_KERNEL_ISA, &bias_activate,   &activation_backward, &fourier_encode,
                            &thin_forward,     &thin_input_grad, &thin_weight_grad};
  return k;
}
} // namespace kernels_detail

} // namespace redraw
