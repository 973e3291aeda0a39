#pragma once
/// The positional encoding (NeRF-style), per output element: [x, y, sin(2^k pi x), cos(2^k pi x),
/// sin(2^k pi y), cos(2^k pi y)] for k in [0, L): 2 + 4L outputs. Listed in engine/encoding_math.h.
#include "engine/hd_common.h"

namespace redraw {

struct PositionalMath {
  REDRAW_HD static int32_t width(int32_t levels, int32_t) { return 2 + 4 * levels; }

  template <class T> REDRAW_HD static T value(int32_t, int32_t, const float*, T x, T y, int32_t j) {
    if (j < 2) return j == 0 ? x : y;
    const int32_t r = j - 2, k = r / 4, which = r % 4;
    const T v = (which < 2 ? x : y) * T(k_pi) * T(int64_t(1) << k);
    return (which % 2 == 0) ? rd_sin(v) : rd_cos(v);
  }

  template <class T>
  REDRAW_HD static void derivative(int32_t, int32_t, const float*, T x, T y, int32_t j, T& d_dx, T& d_dy) {
    if (j < 2) {
      (j == 0 ? d_dx : d_dy) = T(1);
      return;
    }
    const int32_t r = j - 2, k = r / 4, which = r % 4;
    const T f = T(k_pi) * T(int64_t(1) << k);
    const T v = (which < 2 ? x : y) * f;
    const T d = (which % 2 == 0) ? f * rd_cos(v) : -f * rd_sin(v);
    (which < 2 ? d_dx : d_dy) = d;
  }
};

} // namespace redraw
