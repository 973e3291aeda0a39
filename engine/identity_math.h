#pragma once
/// The identity encoding, per output element: [x, y]. Listed in engine/encoding_math.h.
#include "engine/hd_common.h"

namespace redraw {

struct IdentityMath {
  REDRAW_HD static int32_t width(int32_t, int32_t) { return 2; }
  template <class T> REDRAW_HD static T value(int32_t, int32_t, const float*, T x, T y, int32_t j) {
    return j == 0 ? x : y;
  }
  template <class T>
  REDRAW_HD static void derivative(int32_t, int32_t, const float*, T, T, int32_t j, T& d_dx, T& d_dy) {
    (j == 0 ? d_dx : d_dy) = T(1);
  }
};

} // namespace redraw
