#pragma once
/// The CPU backend's per-element loops, vectorised: bias + activation, the activation's
/// derivative, and the Fourier encoding. Their transcendental calls (tanh, exp for sigmoid, sin and
/// cos for SIREN and Fourier features, log1p for softplus) go to glibc's vector math library
/// (libmvec) through `#pragma omp simd`, without -ffast-math.
/// - Each loop is compiled three times: for the x86-64 baseline (SSE2, libmvec's 4-wide
///   functions), for AVX2 + FMA (8-wide) and for AVX-512 (16-wide); kernels() picks the widest the
///   CPU has once. REDRAW_SIMD=sse2|avx2|avx512 forces one (an unsupported choice falls back).
/// - The shared REDRAW_HD math (activation_math.h, encoding_math.h) stays the reference: every
///   variant is tested against it (a few ulp) and against a float64 evaluation (tests/engine/cpu/test_cpu_kernels.cpp).
///   libmvec's functions are within 4 ulp of the correctly rounded result.
/// - Results can differ in the last bits between variants (different vector widths call different
///   libmvec entry points, and FMA contraction), never between runs on one machine.
#include "engine/activation_math.h"
#include "engine/encoding_math.h"

#include <cstdint>
#include <string>
#include <vector>

namespace redraw {

/// A dense layer with at most this many inputs or outputs (the 2 coordinates in, the 1 or 3
/// colours out) is "thin": sgemm runs such a product at memory speed with large overheads (about
/// 12 ms a step at 128x128 for SIREN's two thin layers, 7% of its step), so the thin kernels below
/// do it in one pass over the wide side.
constexpr int32_t k_thin_width = 4;
inline bool is_thin_layer(int32_t in, int32_t out) { return in <= k_thin_width || out <= k_thin_width; }

struct CpuKernels {
  const char* isa = ""; ///< "sse2", "avx2" or "avx512"
  /// Rows [r0, r1) of z (rows x out): z += b (per column), y = act(z). omega: the model's omega_0,
  /// scale: its gauss_scale (engine/activation_math.h).
  void (*bias_activate)(Activation a, float* z, float* y, const float* b, int64_t r0, int64_t r1, int32_t out,
                        float omega, float scale) = nullptr;
  /// Elements [e0, e1): g *= act'(z, y).
  void (*activation_backward)(Activation a, float* g, const float* z, const float* y, int64_t e0, int64_t e1,
                              float omega, float scale) = nullptr;
  /// Rows [r0, r1) of a Fourier encoding (F features): out[r][f] = sin(pi b_f . p), out[r][F + f] = cos(...).
  void (*fourier_encode)(const float* b, int32_t features, const float* coords, int64_t r0, int64_t r1,
                         float* out) = nullptr;
  /// Thin layers (is_thin_layer), W row-major out x in. Rows [r0, r1): z = x W^T (x: rows x in).
  void (*thin_forward)(const float* x, const float* w, float* z, int64_t r0, int64_t r1, int32_t in,
                       int32_t out) = nullptr;
  /// Rows [r0, r1): dx = g W (g: rows x out, dx: rows x in).
  void (*thin_input_grad)(const float* g, const float* w, float* dx, int64_t r0, int64_t r1, int32_t in,
                          int32_t out) = nullptr;
  /// dW = g^T x over rows [0, rows) (accumulate: dW +=), for the weights whose wide index (the
  /// input when out is thin, else the output) is in [c0, c1). Each weight sums its rows in row
  /// order, so the result does not depend on how the wide side is split between threads.
  void (*thin_weight_grad)(const float* g, const float* x, float* dw, int64_t rows, int32_t in, int32_t out,
                           int32_t c0, int32_t c1, bool accumulate) = nullptr;
};

/// The widest variant this CPU runs (or the one REDRAW_SIMD names), chosen once.
const CpuKernels& cpu_kernels();
/// Every variant this CPU can run, baseline first (for tests and benchmarks).
std::vector<const CpuKernels*> cpu_kernel_variants();

namespace kernels_detail {
const CpuKernels& sse2();
const CpuKernels& avx2();
const CpuKernels& avx512();
} // namespace kernels_detail

} // namespace redraw
