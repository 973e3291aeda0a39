#include "ui/panels.h"
#include "ui/plot_widgets.h"

#include <imgui.h>

namespace redraw {

void draw_plots(UiState& ui) {
  const RunView& run = ui.run;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const ImVec2 size((avail.x - 2 * gap) / 3, avail.y);
  const float marker =
      ui.timelapse.active && !ui.timelapse.frames.empty() ? float(ui.timelapse.wanted_step()) : float(run.status.step);

  PlotSeries loss{run.plot_step, run.plot_loss, IM_COL32(90, 170, 255, 255)};
  PlotOptions lo;
  lo.title = "loss (log)";
  lo.log_y = true;
  lo.marker_x = marker;
  draw_line_plot("loss", size, std::span(&loss, 1), lo);
  ImGui::SameLine();

  PlotSeries psnr{run.plot_step, run.plot_psnr, IM_COL32(110, 220, 130, 255)};
  PlotOptions po;
  po.title = "PSNR (dB)";
  po.marker_x = marker;
  draw_line_plot("psnr", size, std::span(&psnr, 1), po);
  ImGui::SameLine();

  PlotSeries lr{run.plot_step, run.plot_lr, IM_COL32(255, 170, 60, 255)};
  PlotOptions ro;
  ro.title = "learning rate (log)";
  ro.log_y = true;
  ro.marker_x = marker;
  draw_line_plot("lr", size, std::span(&lr, 1), ro);
}

} // namespace redraw
