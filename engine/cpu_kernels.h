#pragma once
/// The CPU backend's per-element loops, vectorised: bias + activation, the activation's
/// derivative, and the Fourier encoding. Their transcendental calls (tanh, exp for sigmoid, sin and
/// cos for SIREN and Fourier features, log1p for softplus) go to glibc's vector math library
/// (libmvec) through `#pragma omp simd`, without -ffast-math.
/// - Each loop is compiled three times: for the x86-64 baseline (SSE2, libmvec's 4-wide
///   functions), for AVX2 + FMA (8-wide) and for AVX-512 (16-wide); kernels() picks the widest the
///   CPU has once. REDRAW_SIMD=sse2|avx2|avx512 forces one (an unsupported choice falls back).
/// - The shared REDRAW_HD math (activation_math.h, encoding_math.h) stays the reference: every
///   variant is tested against it (a few ulp) and against a float64 evaluation (tests/test_cpu_kernels.cpp).
///   libmvec's functions are within 4 ulp of the correctly rounded result.
/// - Results can differ in the last bits between variants (different vector widths call different
///   libmvec entry points, and FMA contraction), never between runs on one machine.
#include "engine/activation_math.h"
#include "engine/encoding_math.h"

#include <cstdint>
#include <string>
#include <vector>

namespace redraw {

struct CpuKernels {
  const char* isa = ""; ///< "sse2", "avx2" or "avx512"
  /// Rows [r0, r1) of z (rows x out): z += b (per column), y = act(z).
  void (*bias_activate)(Activation a, float* z, float* y, const float* b, int64_t r0, int64_t r1, int32_t out,
                        float omega) = nullptr;
  /// Elements [e0, e1): g *= act'(z, y).
  void (*activation_backward)(Activation a, float* g, const float* z, const float* y, int64_t e0, int64_t e1,
                              float omega) = nullptr;
  /// Rows [r0, r1) of a Fourier encoding (F features): out[r][f] = sin(pi b_f . p), out[r][F + f] = cos(...).
  void (*fourier_encode)(const float* b, int32_t features, const float* coords, int64_t r0, int64_t r1,
                         float* out) = nullptr;
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
