#include "ui/tool_window.h"

namespace redraw {

bool begin_tool_window(const char* title, bool* open, const WindowPlacement& first, ImGuiWindowFlags flags) {
  if (!*open) return false;
  ImGui::SetNextWindowPos(first.pos, ImGuiCond_FirstUseEver, first.pivot);
  ImGui::SetNextWindowSize(first.size, ImGuiCond_FirstUseEver);
  if (ImGui::Begin(title, open, flags)) return true;
  ImGui::End();
  return false;
}

} // namespace redraw
