#pragma once
/// Line plots drawn with ImGui's draw lists (ImPlot is not packaged in Debian): a framed area with
/// a title, nice-number ticks and labels on both axes, optional log-scale y, a vertical marker and
/// a hover read-out. GUI thread only.
#include <imgui.h>

#include <cmath>
#include <cstdint>
#include <span>

namespace redraw {

struct PlotSeries {
  std::span<const float> x, y; ///< same length; non-finite y (or <= 0 on a log axis) are skipped
  ImU32 color = IM_COL32(90, 170, 255, 255);
};

struct PlotOptions {
  const char* title = "";
  const char* x_label = "step";
  const char* y_format = "%.3g"; ///< tick and read-out format
  bool log_y = false;
  float marker_x = NAN;           ///< vertical line at this x (e.g. the current step)
  float y_min = NAN, y_max = NAN; ///< fixed y range; NaN = from the data
};

/// Draws one plot filling `size` (ImGui item). Returns true while hovered.
bool draw_line_plot(const char* id, ImVec2 size, std::span<const PlotSeries> series, const PlotOptions& opts);

/// Nice tick step ~ range / target_ticks (1, 2 or 5 times a power of ten).
double nice_tick_step(double range, int target_ticks);

} // namespace redraw
