#include "ui/widgets/curve_thinning.h"

#include <algorithm>

namespace redraw {

std::vector<ColumnRange> thin_min_max(std::span<const float> values, double x0, double x_lo, double x_hi,
                                      int32_t columns, bool positive_only) {
  std::vector<ColumnRange> out;
  if (columns < 1 || !(x_hi > x_lo) || values.empty()) return out;
  out.resize(size_t(columns));
  const double n = double(values.size());
  const double first = std::max(0.0, std::ceil(x_lo - x0)), last = std::min(n - 1, std::floor(x_hi - x0));
  const double per_x = double(columns) / (x_hi - x_lo);
  for (double d = first; d <= last; ++d) {
    const float v = values[size_t(d)];
    if (!std::isfinite(v) || (positive_only && !(v > 0))) continue;
    const auto c = size_t(std::clamp<int64_t>(int64_t(std::floor((x0 + d - x_lo) * per_x)), 0, columns - 1));
    ColumnRange& r = out[c];
    if (r.empty()) {
      r.lo = r.hi = v;
    } else {
      r.lo = std::min(r.lo, v);
      r.hi = std::max(r.hi, v);
    }
  }
  return out;
}

} // namespace redraw
