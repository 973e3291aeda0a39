#include "ui/panels.h"
#include "ui/plot_widgets.h"

#include <imgui.h>

#include <vector>

namespace redraw {
namespace {
/// One series per run: A, and B when comparing (named in the legend then).
std::vector<PlotSeries> run_series(const UiState& ui, const std::vector<float> RunView::*column, ImU32 color_a) {
  std::vector<PlotSeries> out{{ui.run.plot_step, ui.run.*column, color_a}};
  if (!ui.compare.open) return out;
  out[0].label = ui.compare.label_a.c_str();
  out.push_back(PlotSeries{ui.compare.run.plot_step, ui.compare.run.*column, IM_COL32(240, 110, 200, 255),
                           ui.compare.label_b.c_str()});
  return out;
}
} // namespace

void draw_plots(UiState& ui) {
  const RunView& run = ui.run;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const ImVec2 size((avail.x - 2 * gap) / 3, avail.y);
  const float marker =
      ui.timelapse.active && !ui.timelapse.frames.empty() ? float(ui.timelapse.wanted_step()) : float(run.status.step);

  const std::vector<PlotSeries> loss = run_series(ui, &RunView::plot_loss, IM_COL32(90, 170, 255, 255));
  PlotOptions lo;
  lo.title = "loss (log)";
  lo.log_y = true;
  lo.marker_x = marker;
  draw_line_plot("loss", size, std::span(loss), lo);
  ImGui::SameLine();

  const std::vector<PlotSeries> psnr = run_series(ui, &RunView::plot_psnr, IM_COL32(110, 220, 130, 255));
  PlotOptions po;
  po.title = "PSNR (dB)";
  po.marker_x = marker;
  draw_line_plot("psnr", size, std::span(psnr), po);
  ImGui::SameLine();

  const std::vector<PlotSeries> lr = run_series(ui, &RunView::plot_lr, IM_COL32(255, 170, 60, 255));
  PlotOptions ro;
  ro.title = "learning rate (log)";
  ro.log_y = true;
  ro.marker_x = marker;
  draw_line_plot("lr", size, std::span(lr), ro);
}

} // namespace redraw
