#include "ui/panels.h"

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
} // namespace

void draw_main_window(UiState& ui) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowRounding, 0);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(6, 6));
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_MenuBar |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBackground;
  // No window or child backgrounds: the GL clear paints them. Software GL (llvmpipe) is fill-bound,
  // and every full-window layer costs milliseconds per frame.
  ImGui::Begin("Redraw##main", nullptr, flags);
  ImGui::PopStyleVar(3);
  draw_menu_bar(ui);

  const float status_h = ImGui::GetFrameHeight() + 4;
  const float gap = 5;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float body_h = std::max(100.0f, avail.y - status_h - gap);
  Settings& s = ui.settings;
  s.controls_width = std::clamp(s.controls_width, 260.0f, std::max(260.0f, avail.x * 0.6f));
  s.plots_height = std::clamp(s.plots_height, 120.0f, std::max(120.0f, body_h * 0.7f));

  ImGui::BeginChild("controls", ImVec2(s.controls_width, body_h), true);
  draw_controls(ui);
  ImGui::EndChild();
  ImGui::SameLine(0, 0);
  s.controls_width += splitter("##vsplit", true, gap, body_h);
  ImGui::SameLine(0, 0);

  ImGui::BeginGroup();
  const float right_w = ImGui::GetContentRegionAvail().x;
  const float canvas_h = std::max(80.0f, body_h - s.plots_height - gap);
  ImGui::BeginChild("canvas", ImVec2(right_w, canvas_h), true,
                    ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  const float strip_h = ImGui::GetFrameHeightWithSpacing() * 2 + 4;
  ImGui::BeginChild("picture", ImVec2(0, std::max(40.0f, ImGui::GetContentRegionAvail().y - strip_h)), false,
                    ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  draw_canvas(ui);
  ImGui::EndChild();
  ImGui::Separator();
  draw_timelapse(ui);
  ImGui::EndChild();
  s.plots_height -= splitter("##hsplit", false, gap, right_w);
  ImGui::BeginChild("plots", ImVec2(right_w, std::max(60.0f, body_h - canvas_h - gap)), true,
                    ImGuiWindowFlags_NoScrollbar);
  draw_plots(ui);
  ImGui::EndChild();
  ImGui::EndGroup();

  draw_status_bar(ui);
  ImGui::End();

  draw_spectrum(ui);
  draw_neuron_maps(ui);
  draw_file_dialog(ui);
  draw_about(ui);
  draw_messages(ui);
  draw_restore_offer(ui);
}

} // namespace redraw
