#include "ui/widgets/bounded_text.h"
#include "ui/panels/panels.h"
#include "ui/widgets/tool_window.h"
#include "ui/widgets/ui_scale.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>

namespace redraw {

void draw_message_log(UiState& ui) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  if (!begin_tool_window("Messages", &ui.message_log_open,
                         {vp->GetCenter(), ImVec2(ui_px(560), ui_px(320)), ImVec2(0.5f, 0.5f)},
                         ImGuiWindowFlags_NoCollapse))
    return;
  if (ImGui::SmallButton("Clear")) ui.message_log.clear();
  ImGui::SameLine();
  ImGui::TextDisabled("%zu this session, newest first", ui.message_log.size());
  ImGui::Separator();
  ImGui::BeginChild("log");
  for (size_t i = ui.message_log.size(); i-- > 0;) {
    const UiMessage& m = ui.message_log[i];
    const long long ago = std::llround(std::max(0.0, ui.now - m.shown_at));
    ImGui::TextDisabled("%4llds ago", ago);
    ImGui::SameLine();
    ImGui::PushTextWrapPos(0);
    if (m.error)
      bounded_text_colored(ImVec4(1.0f, 0.45f, 0.45f, 1), "error: " + m.text, k_message_chars);
    else
      bounded_text(m.text, k_message_chars);
    ImGui::PopTextWrapPos();
  }
  ImGui::EndChild();
  ImGui::End();
}

} // namespace redraw
