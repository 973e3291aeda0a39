#pragma once
/// The Fourier-feature encoding (Tancik et al.), per output element: [sin(pi b_j . p),
/// cos(pi b_j . p)] for j in [0, F): 2F outputs, with b_j drawn from N(0, sigma^2)
/// (fourier_matrix, engine/model_spec.h; fourier_b is F x 2 row-major). pi (not 2 pi) because our
/// coordinates span [-1, 1], not [0, 1]: the frequencies then match the paper's sigma. Listed in
/// engine/encoding_math.h.
#include "engine/hd_common.h"

namespace redraw {

struct FourierMath {
  REDRAW_HD static int32_t width(int32_t, int32_t features) { return 2 * features; }

  template <class T> REDRAW_HD static T value(int32_t, int32_t features, const float* fourier_b, T x, T y, int32_t j) {
    const int32_t f = j % features;
    const T phase = T(k_pi) * (T(fourier_b[2 * f]) * x + T(fourier_b[2 * f + 1]) * y);
    return j < features ? rd_sin(phase) : rd_cos(phase);
  }

  template <class T>
  REDRAW_HD static void derivative(int32_t, int32_t features, const float* fourier_b, T x, T y, int32_t j, T& d_dx,
                                   T& d_dy) {
    const int32_t fi = j % features;
    const T bx = T(k_pi) * T(fourier_b[2 * fi]), by = T(k_pi) * T(fourier_b[2 * fi + 1]);
    const T phase = bx * x + by * y;
    const T d = j < features ? rd_cos(phase) : -rd_sin(phase);
    d_dx = d * bx;
    d_dy = d * by;
  }
};

} // namespace redraw
