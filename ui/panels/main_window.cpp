#include "ui/panels/compare_view.h"
#include "ui/panels/panels.h"
#include "ui/state/settings_store.h"
#include "ui/panels/sweep_browser.h"
#include "ui/widgets/ui_scale.h"

#include <imgui.h>

#include <algorithm>

namespace redraw {
namespace {
/// A draggable bar between two regions; returns the drag delta along its axis.
float splitter(const char* id, bool vertical, float thickness, float length) {
  ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.18f, 0.19f, 0.22f, 1));
  ImGui::PushStyleColor(ImGuiCol_ButtonHovered, ImVec4(0.35f, 0.45f, 0.65f, 1));
  ImGui::PushStyleColor(ImGuiCol_ButtonActive, ImVec4(0.40f, 0.55f, 0.80f, 1));
  ImGui::Button(id, vertical ? ImVec2(thickness, length) : ImVec2(length, thickness));
  ImGui::PopStyleColor(3);
  if (ImGui::IsItemHovered() || ImGui::IsItemActive())
    ImGui::SetMouseCursor(vertical ? ImGuiMouseCursor_ResizeEW : ImGuiMouseCursor_ResizeNS);
  if (!ImGui::IsItemActive()) return 0;
  return vertical ? ImGui::GetIO().MouseDelta.x : ImGui::GetIO().MouseDelta.y;
}

/// The size a panel is drawn at: the wanted size, at most `most` (a share of the window), and at
/// least `least` unless the window is too small for even that.
float panel_extent(float wanted, float least, float most) {
  most = std::max(1.0f, most);
  return std::clamp(wanted, std::min(least, most), most);
}
} // namespace

void draw_main_window(UiState& ui) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowRounding, 0);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(ui_px(6), ui_px(6)));
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_MenuBar |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBackground;
  // No window or child backgrounds: the GL clear paints them. Software GL (llvmpipe) is fill-bound,
  // and every full-window layer costs milliseconds per frame.
  ImGui::Begin("Redraw##main", nullptr, flags);
  ImGui::PopStyleVar(3);
  draw_menu_bar(ui);

  const float status_h = ImGui::GetFrameHeight() + ui_px(4);
  const float gap = ui_px(5);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float body_h = std::max(1.0f, avail.y - status_h - gap);
  // The remembered sizes (Settings, at UI scale 1) are what the user chose; a small window narrows
  // what is shown but never them, so the panels come back when the window grows again. Only the
  // splitters change them.
  Settings& s = ui.settings;
  const float k = ui_px(1);
  const float controls_w = panel_extent(s.controls_width * k, k_min_controls_width * k, avail.x * 0.6f);
  const float plots_h = panel_extent(s.plots_height * k, k_min_plots_height * k, body_h * 0.7f);

  ImGui::BeginChild("controls", ImVec2(controls_w, body_h), true);
  draw_controls(ui);
  ImGui::EndChild();
  ImGui::SameLine(0, 0);
  if (const float d = splitter("##vsplit", true, gap, body_h); d != 0)
    s.controls_width = std::clamp((controls_w + d) / k, k_min_controls_width, k_max_panel_size);
  ImGui::SameLine(0, 0);

  ImGui::BeginGroup();
  const float right_w = std::max(1.0f, ImGui::GetContentRegionAvail().x);
  const float canvas_h = std::max(1.0f, body_h - plots_h - gap);
  ImGui::BeginChild("canvas", ImVec2(right_w, canvas_h), true,
                    ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  const float strip_h = ImGui::GetFrameHeightWithSpacing() * 2 + ui_px(4);
  ImGui::BeginChild("picture", ImVec2(0, std::max(ui_px(40), ImGui::GetContentRegionAvail().y - strip_h)), false,
                    ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  draw_canvas(ui);
  ImGui::EndChild();
  ImGui::Separator();
  draw_timelapse(ui, ui.run_a());
  ImGui::EndChild();
  if (const float d = splitter("##hsplit", false, gap, right_w); d != 0)
    s.plots_height = std::clamp((plots_h - d) / k, k_min_plots_height, k_max_panel_size);
  ImGui::BeginChild("plots", ImVec2(right_w, std::max(1.0f, body_h - canvas_h - gap)), true,
                    ImGuiWindowFlags_NoScrollbar);
  draw_plots(ui);
  ImGui::EndChild();
  ImGui::EndGroup();

  const float status_y = ImGui::GetCursorScreenPos().y;
  draw_status_bar(ui);
  ui.layout = LayoutProbe{controls_w, plots_h, right_w, canvas_h, status_y, status_h, vp->Size.x, vp->Size.y};
  ImGui::End();

  draw_spectrum(ui, ui.run_a());
  draw_neuron_maps(ui, ui.run_a());
  draw_file_dialog(ui);
  draw_about(ui);
  draw_messages(ui);
  draw_restore_offer(ui);
  draw_budget_offer(ui);
  draw_message_log(ui);
  draw_perf_panel(ui, ui.run_a());
  draw_help(ui);
  draw_confirm_prompt(ui);
  draw_compare_dialog(ui);
  draw_sweep_browser(ui);
}

} // namespace redraw
