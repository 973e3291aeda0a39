#include "ui/panels.h"
#include "ui/plot_widgets.h"

#include <imgui.h>

#include <vector>

namespace redraw {
namespace {
/// One series per run: A, and B when comparing (named in the legend then).
/// Against steps, or against training seconds (View > Curves against time).
std::vector<PlotSeries> run_series(const UiState& ui, const std::vector<float> RunView::*column, ImU32 color_a) {
  const auto x = ui.settings.plots_seconds ? &RunView::plot_seconds : &RunView::plot_step;
  std::vector<PlotSeries> out{{ui.run.*x, ui.run.*column, color_a}};
  if (!ui.compare.open) return out;
  out[0].label = ui.compare.label_a.c_str();
  out.push_back(PlotSeries{ui.compare.run.*x, ui.compare.run.*column, IM_COL32(240, 110, 200, 255),
                           ui.compare.label_b.c_str()});
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
                                                                     : float(ui.run.status.step);
  return o;
}
/// Every step's loss, shaded under the rows of each run shown (against steps only: the trace has
/// no time per step).
std::vector<PlotTrace> loss_traces(const UiState& ui) {
  std::vector<PlotTrace> out;
  if (ui.settings.plots_seconds) return out;
  const auto add = [&](const RunView& run, ImU32 color) {
    if (!run.loss_trace.empty()) out.push_back(PlotTrace{run.loss_trace.loss, double(run.loss_trace.first_count), color});
  };
  add(ui.run, IM_COL32(90, 170, 255, 90));
  if (ui.compare.open) add(ui.compare.run, IM_COL32(240, 110, 200, 90));
  return out;
}

/// How run A's PSNR rows were measured, and the plot's title that says so.
struct PsnrKinds {
  bool exact = false, sampled = false;
  const char* title = "PSNR (dB)";
};
PsnrKinds psnr_kinds(const std::vector<uint8_t>& exact) {
  PsnrKinds k;
  for (uint8_t e : exact)
    (e ? k.exact : k.sampled) = true;
  if (k.exact && k.sampled) k.title = "PSNR (dB; dots: every pixel, line: sampled)";
  else if (k.sampled) k.title = "PSNR (dB, ~ from sampled pixels)";
  return k;
}
} // namespace

void draw_plots(UiState& ui) {
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const ImVec2 size((avail.x - 2 * gap) / 3, avail.y);
  const std::vector<PlotSeries> loss = run_series(ui, &RunView::plot_loss, IM_COL32(90, 170, 255, 255));
  PlotOptions loss_opts = curve_options(ui, "loss (log)", true);
  const std::vector<PlotTrace> traces = loss_traces(ui);
  loss_opts.traces = traces;
  draw_line_plot("loss", size, std::span(loss), loss_opts);
  ImGui::SameLine();
  std::vector<PlotSeries> psnr = run_series(ui, &RunView::plot_psnr, IM_COL32(110, 220, 130, 255));
  const PsnrKinds kinds = psnr_kinds(ui.run.plot_exact);
  PlotOptions psnr_opts = curve_options(ui, kinds.title, false);
  psnr[0].marked = ui.run.plot_exact;
  psnr[0].draw_marks = kinds.exact && kinds.sampled;
  psnr_opts.marked_note = "exact (every pixel)";
  psnr_opts.unmarked_note = "sampled pixels";
  draw_line_plot("psnr", size, std::span(psnr), psnr_opts);
  ImGui::SameLine();
  const std::vector<PlotSeries> lr = run_series(ui, &RunView::plot_lr, IM_COL32(255, 170, 60, 255));
  draw_line_plot("lr", size, std::span(lr), curve_options(ui, "learning rate (log)", true));
}

} // namespace redraw
