#include "ui/panels/panels.h"
#include "ui/widgets/ui_scale.h"

#include <imgui.h>

#include <algorithm>

namespace redraw {

namespace {

void draw_licences(const std::vector<MarkdownBlock>& blocks) {
  const ImVec4 heading(0.62f, 0.80f, 1.0f, 1.0f);
  for (const MarkdownBlock& b : blocks) {
    switch (b.kind) {
    case MarkdownBlockKind::Heading: break; // the dialog's own title says it
    case MarkdownBlockKind::Subheading:
      ImGui::Spacing();
      ImGui::TextColored(heading, "%s", b.text.c_str());
      break;
    case MarkdownBlockKind::Bullet:
      ImGui::Bullet();
      ImGui::TextWrapped("%s", b.text.c_str());
      break;
    case MarkdownBlockKind::Paragraph: ImGui::TextWrapped("%s", b.text.c_str()); break;
    }
  }
}

} // namespace

void draw_about(UiState& ui) {
  const char* title = "About Redraw";
  if (ui.about.open_requested) {
    ImGui::OpenPopup(title);
    ui.about.open_requested = false;
  }
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->GetCenter(), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSize(ImVec2(std::min(760.0f, vp->WorkSize.x * 0.9f), std::min(680.0f, vp->WorkSize.y * 0.9f)),
                           ImGuiCond_Appearing);
  if (!ImGui::BeginPopupModal(title, nullptr, ImGuiWindowFlags_NoSavedSettings)) return;

  ImGui::TextUnformatted("Redraw: watch a neural network learn an image");
  ImGui::Separator();
  ImGui::PushTextWrapPos(0.0f); // long lines (the backends, a deep data folder) wrap at the edge
  ImGui::TextUnformatted(ui.about.version.empty() ? "(no version information)" : ui.about.version.c_str());
  ImGui::PopTextWrapPos();
  if (ImGui::SmallButton("Copy version")) ImGui::SetClipboardText(ui.about.version.c_str());
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("For a bug report: version, build, backends and data folder");
  ImGui::Separator();
  ImGui::TextUnformatted("Licences");
  ImGui::BeginChild("licences", ImVec2(0, -ImGui::GetFrameHeightWithSpacing() - 4), true);
  if (ui.about.licences.empty()) ImGui::TextDisabled("(no licence text was built in)");
  draw_licences(ui.about.licences);
  ImGui::EndChild();
  if (ImGui::Button("Close", ImVec2(ui_px(120), 0)) || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false))
    ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

} // namespace redraw
