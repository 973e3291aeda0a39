#pragma once
/// Line plots drawn with ImGui's draw lists (ImPlot is not packaged in Debian): a framed area with
/// a title, nice-number ticks and labels on both axes, optional log-scale y, a vertical marker and
/// a hover read-out. GUI thread only.
#include <imgui.h>

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace redraw {

struct PlotSeries {
  std::span<const float> x, y; ///< same length; non-finite y (or <= 0 on a log axis) are skipped
  ImU32 color = IM_COL32(90, 170, 255, 255);
  const char* label = nullptr; ///< named in the legend (top right) when set
  /// Per point, nonzero where it is marked (e.g. an exact PSNR among sampled ones); may be empty.
  std::span<const uint8_t> marked = {};
  bool draw_marks = false; ///< a dot on each marked point
};

/// A curve with one value per x step (a per-step loss trace), drawn thinned: per pixel column a
/// stroke from the smallest to the largest value in it (ui/widgets/curve_thinning.h), under the series.
struct PlotTrace {
  std::span<const float> y; ///< value i at x = x0 + i
  double x0 = 1;
  ImU32 color = IM_COL32(90, 170, 255, 110);
};

/// A vertical mark at one x (an event of the run, e.g. a growth step), drawn under the series as
/// a one-pixel column across the plot area; hovering within a few pixels of it shows `note`.
struct PlotEvent {
  double x = 0;
  ImU32 color = IM_COL32(110, 215, 140, 255);
  std::string note; ///< the hover's text ("step 50: 1500 moved where the error was")
};

/// Where a plot drew (tests read it: the sidecar of a screenshot): its data area and the x values
/// at the area's left and right edges, and how many events fell inside it.
struct PlotFrame {
  float area[4] = {0, 0, 0, 0}; ///< x0, y0, x1, y1 in screen pixels (0s: nothing drawn)
  double x_lo = 0, x_hi = 0;
  int32_t events_drawn = 0;
};

struct PlotOptions {
  const char* title = "";
  const char* x_label = "step";
  int x_decimals = 0;             ///< decimals of x in the hover read-out
  bool log_y = false;
  float marker_x = NAN;           ///< vertical line at this x (e.g. the current step)
  float y_min = NAN, y_max = NAN; ///< fixed y range; NaN = from the data
  std::span<const PlotTrace> traces = {}; ///< drawn thinned under the series; their range counts
  /// The hover read-out's note for a marked and an unmarked point of the first series (when it
  /// has marks), e.g. "exact" and "sampled".
  const char* marked_note = nullptr;
  const char* unmarked_note = nullptr;
  std::span<const PlotEvent> events = {}; ///< marks at these x (those inside the x range)
  PlotFrame* frame = nullptr;             ///< when set, where the plot drew is written here
};

/// Where a plot's header puts its legend: the title at the left of the first row, the entries (a
/// colour swatch, then the label) right-aligned after it on that row while they all fit beside the
/// title, else right-aligned on rows of their own below it, in order, as many to a row as fit.
/// A label wider than a whole row is shortened to `label_w` (the caller cuts it with "...").
/// Lengths in pixels, x from the frame's left edge.
struct LegendPlace {
  float x = 0;       ///< the swatch's left edge
  int row = 0;       ///< 0: the title's row
  float label_w = 0; ///< the width the label may take
};
struct PlotHeader {
  std::vector<LegendPlace> entries; ///< one per label, in order
  int rows = 1;                     ///< rows of text the header takes (the plot area starts below)
};
PlotHeader layout_plot_header(float frame_w, float title_w, std::span<const float> label_w, float font);

/// Draws one plot filling `size` (ImGui item). Returns true while hovered.
bool draw_line_plot(const char* id, ImVec2 size, std::span<const PlotSeries> series, const PlotOptions& opts);

/// Nice tick step ~ range / target_ticks (1, 2 or 5 times a power of ten).
double nice_tick_step(double range, int target_ticks);

/// Step of the x (step) axis over [lo, hi], drawn `axis_px` wide: a nice whole-number step for
/// about `target` ticks, made finer while fewer than two ticks fall inside [lo, hi] and the ticks
/// stay at least `min_gap_px` apart (the widest label plus a margin). Never below 1.
double step_axis_tick(double lo, double hi, float axis_px, float min_gap_px, int target);

/// One y-axis tick: its position in axis units (log10 of the value on a log axis) and its label.
struct AxisTick {
  double pos = 0;
  std::string label;
};

/// Widens [lo, hi] (axis units) about its middle to the smallest span an axis shows, so a nearly
/// constant series stays a nearly flat line: log10(2) on a log axis (a factor of 2), and on a
/// linear axis 2% of the larger |lo|, |hi| (at least 1e-6).
void widen_to_min_span(double& lo, double& hi, bool log_axis);

/// Ticks inside [lo, hi] (axis units, lo < hi), about `target` of them (>= 2 whenever the span
/// allows), labelled with just enough digits that adjacent labels differ. Linear axis: nice
/// steps, decimals from the step. Log axis: decades ("1e-03") over a wide range, 1-2-5 ticks
/// within a few decades, nice linear values within a factor of a few. Labels are fixed-point
/// ("0.0012", "22.4") unless that needs more than 4 decimals or |value| >= 1e6, then scientific
/// with mantissa digits from the step ("1.2e-05").
std::vector<AxisTick> axis_ticks(double lo, double hi, bool log_axis, int target);

} // namespace redraw
