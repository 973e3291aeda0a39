#pragma once
/// Shared host/device building blocks.
/// - REDRAW_HD marks per-element functions that the CPU backend and the CUDA kernels both call,
///   so the CPU tests check the GPU's arithmetic too (docs/contributing.md, 5).
/// - The rd_* overloads pick the float or double C math function explicitly; they compile under
///   g++ and nvcc alike, for host and device.
#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define REDRAW_HD __host__ __device__
#else
#define REDRAW_HD
#endif

namespace redraw {

REDRAW_HD inline float rd_exp(float x) { return expf(x); }
REDRAW_HD inline double rd_exp(double x) { return exp(x); }
REDRAW_HD inline float rd_log(float x) { return logf(x); }
REDRAW_HD inline double rd_log(double x) { return log(x); }
REDRAW_HD inline float rd_log1p(float x) { return log1pf(x); }
REDRAW_HD inline double rd_log1p(double x) { return log1p(x); }
REDRAW_HD inline float rd_tanh(float x) { return tanhf(x); }
REDRAW_HD inline double rd_tanh(double x) { return tanh(x); }
REDRAW_HD inline float rd_sin(float x) { return sinf(x); }
REDRAW_HD inline double rd_sin(double x) { return sin(x); }
REDRAW_HD inline float rd_cos(float x) { return cosf(x); }
REDRAW_HD inline double rd_cos(double x) { return cos(x); }
REDRAW_HD inline float rd_sqrt(float x) { return sqrtf(x); }
REDRAW_HD inline double rd_sqrt(double x) { return sqrt(x); }
REDRAW_HD inline float rd_floor(float x) { return floorf(x); }
REDRAW_HD inline double rd_floor(double x) { return floor(x); }
REDRAW_HD inline float rd_abs(float x) { return fabsf(x); }
REDRAW_HD inline double rd_abs(double x) { return fabs(x); }
/// Finite: neither NaN nor infinite (x - x is NaN for both). The build uses no fast-math flag.
REDRAW_HD inline bool rd_isfinite(float x) { return x - x == 0.0f; }
template <class T> REDRAW_HD inline T rd_clamp(T x, T lo, T hi) { return x < lo ? lo : (x > hi ? hi : x); }

constexpr double k_pi = 3.14159265358979323846;

/// Normalised pixel-centre coordinate of column i in an image n pixels wide: in (-1, 1).
template <class T> REDRAW_HD inline T pixel_centre(int64_t i, int64_t n) {
  return (T(2) * (T(i) + T(0.5))) / T(n) - T(1);
}

} // namespace redraw
