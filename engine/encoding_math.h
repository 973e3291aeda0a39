#pragma once
/// Input encodings of a 2-D coordinate (x, y) in [-1, 1]^2, one output element at a time, so a
/// CUDA kernel can give each thread one element and the CPU loops over the same function.
/// - Identity: [x, y].
/// - Positional (NeRF-style): [x, y, sin(2^k pi x), cos(2^k pi x), sin(2^k pi y), cos(2^k pi y)] for
///   k in [0, L): 2 + 4L outputs.
/// - Fourier (Tancik et al.): [sin(pi b_j . p), cos(pi b_j . p)] for j in [0, F): 2F outputs, with b_j
///   drawn from N(0, sigma^2). pi (not 2 pi) because our coordinates span [-1, 1], not [0, 1]: the
///   frequencies then match the paper's sigma.
/// - HashGrid (Müller et al.): L levels x F trainable features, in engine/hash_grid_math.h. It reads
///   a table, so encoding_value() does not compute it (it returns 0); callers take the hash-grid path.
/// - Gaussians (GaussianImage): a sum of trainable 2-D Gaussians' colours, k_gaussian_channels wide,
///   in engine/gaussian_math.h; like the hash grid, it reads its parameters, so encoding_value()
///   returns 0 and callers take the Gaussians' path.
/// Values of EncodingKind are stored in model files: new ones go at the end.
#include "engine/gaussian_math.h"
#include "engine/hd_common.h"

namespace redraw {

enum class EncodingKind : int32_t { Identity = 0, Positional, Fourier, HashGrid, Gaussians };

struct EncodingParams {
  EncodingKind kind = EncodingKind::Identity;
  int32_t levels = 0;   ///< Positional: L; HashGrid: levels
  int32_t features = 0; ///< Fourier: F; HashGrid: features per level
};

REDRAW_HD inline int32_t encoding_width(const EncodingParams& e) {
  switch (e.kind) {
  case EncodingKind::Identity: return 2;
  case EncodingKind::Positional: return 2 + 4 * e.levels;
  case EncodingKind::Fourier: return 2 * e.features;
  case EncodingKind::HashGrid:
    return e.levels * e.features;
  case EncodingKind::Gaussians: return k_gaussian_channels;
  }
  return 2;
}

/// Output element j of the encoding of (x, y). fourier_b is F x 2 row-major (b_j = fourier_b[2j..2j+1]).
template <class T>
REDRAW_HD inline T encoding_value(const EncodingParams& e, const float* fourier_b, T x, T y, int32_t j) {
  switch (e.kind) {
  case EncodingKind::Identity: return j == 0 ? x : y;
  case EncodingKind::Positional: {
    if (j < 2) return j == 0 ? x : y;
    const int32_t r = j - 2, k = r / 4, which = r % 4;
    const T v = (which < 2 ? x : y) * T(k_pi) * T(int64_t(1) << k);
    return (which % 2 == 0) ? rd_sin(v) : rd_cos(v);
  }
  case EncodingKind::Fourier: {
    const int32_t f = j % e.features;
    const T phase = T(k_pi) * (T(fourier_b[2 * f]) * x + T(fourier_b[2 * f + 1]) * y);
    return j < e.features ? rd_sin(phase) : rd_cos(phase);
  }
  case EncodingKind::HashGrid:
    return T(0); // needs the table: hash_grid_encode_level
  case EncodingKind::Gaussians:
    return T(0); // needs the Gaussians: gaussian_weight
  }
  return T(0);
}

/// d encoding_value / dx and / dy for element j (used by gradient checks and coordinate gradients).
template <class T>
REDRAW_HD inline void encoding_derivative(const EncodingParams& e, const float* fourier_b, T x, T y, int32_t j,
                                          T& d_dx, T& d_dy) {
  d_dx = T(0);
  d_dy = T(0);
  switch (e.kind) {
  case EncodingKind::Identity: (j == 0 ? d_dx : d_dy) = T(1); return;
  case EncodingKind::Positional: {
    if (j < 2) {
      (j == 0 ? d_dx : d_dy) = T(1);
      return;
    }
    const int32_t r = j - 2, k = r / 4, which = r % 4;
    const T f = T(k_pi) * T(int64_t(1) << k);
    const T v = (which < 2 ? x : y) * f;
    const T d = (which % 2 == 0) ? f * rd_cos(v) : -f * rd_sin(v);
    (which < 2 ? d_dx : d_dy) = d;
    return;
  }
  case EncodingKind::Fourier: {
    const int32_t fi = j % e.features;
    const T bx = T(k_pi) * T(fourier_b[2 * fi]), by = T(k_pi) * T(fourier_b[2 * fi + 1]);
    const T phase = bx * x + by * y;
    const T d = j < e.features ? rd_cos(phase) : -rd_sin(phase);
    d_dx = d * bx;
    d_dy = d * by;
    return;
  }
  case EncodingKind::HashGrid:
    return; // needs the table: hash_grid_weight_derivatives
  case EncodingKind::Gaussians:
    return; // needs the Gaussians
  }
}

} // namespace redraw
