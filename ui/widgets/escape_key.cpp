#include "ui/widgets/escape_key.h"

#include <imgui.h>
#include <imgui_internal.h> // the popup stack: ImGui 1.86 has no public "close every menu"

namespace redraw {

void close_menus_on_escape() {
  if (!ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) return;
  const ImGuiContext& g = *ImGui::GetCurrentContext();
  // Close everything above the topmost modal (or everything when no modal is open).
  int first_closable = 0;
  for (int i = g.OpenPopupStack.Size; i-- > 0;) {
    const ImGuiWindow* w = g.OpenPopupStack[i].Window;
    if (w && (w->Flags & ImGuiWindowFlags_Modal)) {
      first_closable = i + 1;
      break;
    }
  }
  if (first_closable < g.OpenPopupStack.Size) ImGui::ClosePopupToLevel(first_closable, true);
}

} // namespace redraw
