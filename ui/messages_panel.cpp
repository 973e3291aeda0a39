#include "ui/panels.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

namespace redraw {

void draw_messages(UiState& ui) {
  constexpr double k_notice_seconds = 5.0;
  auto& list = ui.messages;
  list.erase(std::remove_if(list.begin(), list.end(),
                            [&](const UiMessage& m) { return !m.error && ui.now - m.shown_at > k_notice_seconds; }),
             list.end());
  if (list.size() > 8) list.erase(list.begin(), list.end() - 8);
  // Bottom right, stacked upwards from just above the status bar, newest lowest: the canvas's
  // pane captions and toolbar stay readable.
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const ImGuiStyle& style = ImGui::GetStyle();
  const float max_w = std::clamp(vp->WorkSize.x * 0.4f, 260.0f, 560.0f);
  const float status_h = ImGui::GetFrameHeight() + 4 + style.WindowPadding.y + style.ItemSpacing.y;
  float y = vp->WorkPos.y + vp->WorkSize.y - status_h - 8;
  int close = -1;
  for (size_t i = list.size(); i-- > 0;) {
    const UiMessage& m = list[i];
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x - 12, y), ImGuiCond_Always, ImVec2(1, 1));
    ImGui::SetNextWindowSizeConstraints(ImVec2(200, 0), ImVec2(max_w, vp->WorkSize.y * 0.5f));
    ImGui::SetNextWindowBgAlpha(0.92f);
    ImGui::PushStyleColor(ImGuiCol_WindowBg, m.error ? ImVec4(0.35f, 0.08f, 0.08f, 1) : ImVec4(0.10f, 0.18f, 0.28f, 1));
    char id[32];
    std::snprintf(id, sizeof id, "##msg%zu", i);
    ImGui::Begin(id, nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav);
    ImGui::PushTextWrapPos(max_w - style.WindowPadding.x * 2);
    ImGui::TextUnformatted(m.error ? "Error" : "Notice");
    ImGui::TextUnformatted(m.text.c_str());
    ImGui::PopTextWrapPos();
    if (m.error && ImGui::SmallButton("Dismiss")) close = int(i);
    y -= ImGui::GetWindowHeight() + 6;
    ImGui::End();
    ImGui::PopStyleColor();
  }
  if (close >= 0) list.erase(list.begin() + close);
}

} // namespace redraw
