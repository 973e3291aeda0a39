#pragma once
/// A per-step curve (the loss trace: one value per training step) thinned for drawing: each pixel
/// column of the plot gets the smallest and largest value of the steps that fall in it, so a
/// million steps draw as a few hundred vertical strokes that still show every spike. Pure logic,
/// no ImGui (tests/ui/window/test_ui_curves.cpp). Drawing only: the trace itself is kept whole.
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

namespace redraw {

/// The range of one column; lo and hi are NaN when no usable value falls in it.
struct ColumnRange {
  float lo = NAN, hi = NAN;
  bool empty() const { return !(lo <= hi); }
};

/// Splits [x_lo, x_hi] into `columns` equal columns (column c holds x_lo + c * w .. x_lo + (c + 1) *
/// w, the last one including x_hi) and gives each the min and max of the values in it; value i
/// sits at x = x0 + i. Values outside [x_lo, x_hi], not finite, or <= 0 when `positive_only` (a
/// log axis) are skipped. Empty when columns < 1 or x_hi <= x_lo.
std::vector<ColumnRange> thin_min_max(std::span<const float> values, double x0, double x_lo, double x_hi,
                                      int32_t columns, bool positive_only);

} // namespace redraw
