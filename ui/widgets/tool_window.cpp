#include "ui/widgets/tool_window.h"

#include <algorithm>

namespace redraw {

WindowPlacement work_area_placement(float x_share, float y_px, ImVec2 max_size, ImVec2 share) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  return {ImVec2(vp->WorkPos.x + vp->WorkSize.x * x_share, vp->WorkPos.y + y_px),
          ImVec2(std::min(max_size.x, vp->WorkSize.x * share.x), std::min(max_size.y, vp->WorkSize.y * share.y))};
}

bool begin_tool_window(const char* title, bool* open, const WindowPlacement& first, ImGuiWindowFlags flags) {
  if (!*open) return false;
  ImGui::SetNextWindowPos(first.pos, ImGuiCond_FirstUseEver, first.pivot);
  ImGui::SetNextWindowSize(first.size, ImGuiCond_FirstUseEver);
  if (ImGui::Begin(title, open, flags)) return true;
  ImGui::End();
  return false;
}

} // namespace redraw
