#include "engine/soundness.h"

#include <cmath>

namespace redraw {

int64_t count_nonfinite(std::span<const float> v) {
  int64_t n = 0;
  for (float x : v) n += std::isfinite(x) ? 0 : 1;
  return n;
}

int64_t count_unsound(std::span<const float> v, float limit) {
  int64_t n = 0;
  for (float x : v) n += std::abs(x) <= limit ? 0 : 1; // false for NaN too
  return n;
}

} // namespace redraw
