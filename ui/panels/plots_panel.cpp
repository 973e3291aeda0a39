#include "ui/panels/panels.h"
#include "ui/widgets/plot_widgets.h"
#include "ui/state/shown_runs.h"

#include "engine/metric_columns.h"

#include <imgui.h>

#include <algorithm>
#include <iterator>
#include <vector>

namespace redraw {
namespace {
/// One series per run shown (ui/state/shown_runs.h; named in the legend while comparing).
/// Against steps, or against training seconds (View > Curves against time).
/// `column` indexes engine/metric_columns.h's table (and RunView::plot_columns). Alone, run A
/// takes the plot's own colour `color_a`; beside other runs, its one colour in every plot.
std::vector<PlotSeries> run_series(const UiState& ui, size_t column, ImU32 color_a) {
  const size_t x = metric_index(ui.settings.plots_seconds ? "seconds" : "step");
  std::vector<PlotSeries> out;
  const std::vector<ShownRun> runs = shown_runs(ui);
  const ImU32 first = runs.size() > 1 ? ImU32(k_run_a_rgb) : color_a;
  for (size_t i = 0; i < runs.size(); ++i)
    out.push_back(PlotSeries{runs[i].view->plot_columns[x], runs[i].view->plot_columns[column],
                             shown_run_color(i, first, 255), runs[i].label});
  return out;
}

/// The options every curve shares: the x axis, and the marker at the step on screen (steps only).
PlotOptions curve_options(const UiState& ui, const char* title, bool log_y) {
  PlotOptions o;
  o.title = title;
  o.log_y = log_y;
  o.x_label = ui.settings.plots_seconds ? "seconds" : "step";
  o.x_decimals = ui.settings.plots_seconds ? 1 : 0;
  if (!ui.settings.plots_seconds)
    o.marker_x = ui.timelapse.active && !ui.timelapse.frames.empty() ? float(ui.timelapse.wanted_step())
                                                                     : float(ui.run_a().status.step);
  return o;
}
/// Every step's loss, shaded under the rows of each run shown (against steps only: the trace has
/// no time per step).
std::vector<PlotTrace> loss_traces(const UiState& ui) {
  std::vector<PlotTrace> out;
  if (ui.settings.plots_seconds) return out;
  const std::vector<ShownRun> runs = shown_runs(ui);
  for (size_t i = 0; i < runs.size(); ++i) {
    const LossTrace& trace = runs[i].view->loss_trace;
    if (!trace.empty())
      out.push_back(PlotTrace{trace.loss, double(trace.first_count), shown_run_color(i, k_run_a_rgb, 90)});
  }
  return out;
}

/// The growth events (training.grow, any family) of each run shown, as marks on the loss plot
/// (against steps only: an event has a step, not a time). Alone in one colour of their own; beside
/// other runs in each run's colour, the run named in the hover.
std::vector<PlotEvent> growth_marks(const UiState& ui) {
  std::vector<PlotEvent> out;
  if (ui.settings.plots_seconds) return out;
  const std::vector<ShownRun> runs = shown_runs(ui);
  for (size_t i = 0; i < runs.size(); ++i)
    for (const GrowthEvent& e : runs[i].view->growth) {
      const std::string run = *runs[i].letter ? std::string("run ") + runs[i].letter + ", " : std::string();
      PlotEvent m{double(e.step), k_growth_mark_rgb, run + growth_event_text(e)};
      if (runs.size() > 1) m.color = shown_run_color(i, k_run_a_rgb, 200);
      out.push_back(std::move(m));
    }
  return out;
}

/// How run A's PSNR rows were measured, and the plot's title that says so.
struct PsnrKinds {
  bool exact = false, sampled = false;
  const char* title = "PSNR (dB)";
};
PsnrKinds psnr_kinds(const std::vector<uint8_t>& exact, const char* title) {
  PsnrKinds k;
  k.title = title;
  for (uint8_t e : exact)
    (e ? k.exact : k.sampled) = true;
  if (k.exact && k.sampled) k.title = "PSNR (dB; dots: every pixel, line: sampled)";
  else if (k.sampled) k.title = "PSNR (dB, ~ from sampled pixels)";
  return k;
}
} // namespace

/// One plot per metric column with a plot title (engine/metric_columns.h), side by side, in its order.
void draw_plots(UiState& ui) {
  std::vector<size_t> plotted;
  for (size_t i = 0; i < k_metric_column_count; ++i)
    if (k_metric_columns[i].plot.title) plotted.push_back(i);
  if (plotted.empty()) return;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float gap = ImGui::GetStyle().ItemSpacing.x, n = float(plotted.size());
  const ImVec2 size((avail.x - (n - 1) * gap) / n, avail.y);
  const std::vector<PlotTrace> traces = loss_traces(ui);
  const std::vector<PlotEvent> marks = growth_marks(ui);
  ui.growth_probe.plot_marks = 0;
  std::fill(std::begin(ui.growth_probe.plot_area), std::end(ui.growth_probe.plot_area), 0.0f);
  for (size_t k = 0; k < plotted.size(); ++k) {
    const MetricColumn& c = k_metric_columns[plotted[k]];
    if (k > 0) ImGui::SameLine();
    std::vector<PlotSeries> series = run_series(ui, plotted[k], IM_COL32(c.plot.rgb[0], c.plot.rgb[1], c.plot.rgb[2], 255));
    PlotOptions o = curve_options(ui, c.plot.title, c.plot.log_y);
    PlotFrame frame;
    if (c.plot.step_trace) {
      o.traces = traces;
      o.events = marks;
      o.frame = &frame;
    }
    if (c.plot.exact_marks) {
      const PsnrKinds kinds = psnr_kinds(ui.run_a().plot_exact, c.plot.title);
      o.title = kinds.title;
      series[0].marked = ui.run_a().plot_exact;
      series[0].draw_marks = kinds.exact && kinds.sampled;
      o.marked_note = "exact (every pixel)";
      o.unmarked_note = "sampled pixels";
    }
    draw_line_plot(c.name, size, std::span(series), o);
    if (o.frame) {
      GrowthMarksProbe& p = ui.growth_probe;
      std::copy(std::begin(frame.area), std::end(frame.area), p.plot_area);
      p.plot_lo = frame.x_lo;
      p.plot_hi = frame.x_hi;
      p.plot_marks = frame.events_drawn;
    }
  }
}

} // namespace redraw
