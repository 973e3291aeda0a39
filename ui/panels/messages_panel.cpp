#include "ui/panels/panels.h"
#include "ui/widgets/bounded_text.h"

#include "ui/widgets/ui_scale.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

namespace redraw {

double toast_seconds(const UiMessage& m) { return m.error ? k_error_toast_seconds : k_notice_toast_seconds; }

void draw_messages(UiState& ui) {
  auto& list = ui.messages;
  list.erase(std::remove_if(list.begin(), list.end(),
                            [&](const UiMessage& m) { return ui.now - m.shown_at > toast_seconds(m); }),
             list.end());
  // A few toasts at most: older ones stay in View > Messages.
  if (list.size() > k_max_toasts) list.erase(list.begin(), list.end() - k_max_toasts);
  // Bottom right, stacked upwards from just above the status bar, newest lowest: the canvas's
  // pane captions and toolbar stay readable.
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const ImGuiStyle& style = ImGui::GetStyle();
  const float max_w = std::clamp(vp->WorkSize.x * 0.4f, ui_px(260), ui_px(560));
  const float status_h = ImGui::GetFrameHeight() + ui_px(4) + style.WindowPadding.y + style.ItemSpacing.y;
  float y = vp->WorkPos.y + vp->WorkSize.y - status_h - ui_px(8);
  int close = -1;
  for (size_t i = list.size(); i-- > 0;) {
    UiMessage& m = list[i];
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x - ui_px(12), y), ImGuiCond_Always, ImVec2(1, 1));
    ImGui::SetNextWindowSizeConstraints(ImVec2(ui_px(200), 0), ImVec2(max_w, vp->WorkSize.y * 0.5f));
    ImGui::SetNextWindowBgAlpha(0.92f);
    ImGui::PushStyleColor(ImGuiCol_WindowBg, m.error ? ImVec4(0.35f, 0.08f, 0.08f, 1) : ImVec4(0.10f, 0.18f, 0.28f, 1));
    char id[32];
    std::snprintf(id, sizeof id, "##msg%zu", i);
    ImGui::Begin(id, nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav);
    ImGui::PushTextWrapPos(max_w - style.WindowPadding.x * 2);
    ImGui::TextUnformatted(m.error ? "Error" : "Notice");
    bounded_text(m.text, 600, true); // the cause is at the end
    ImGui::PopTextWrapPos();
    if (ImGui::SmallButton("Dismiss")) close = int(i);
    ImGui::SameLine();
    if (ImGui::SmallButton("All messages")) ui.message_log_open = true;
    // Reading it keeps it: the clock starts again when the pointer leaves.
    if (ImGui::IsWindowHovered(ImGuiHoveredFlags_AllowWhenBlockedByActiveItem)) m.shown_at = ui.now;
    y -= ImGui::GetWindowHeight() + ui_px(6);
    ImGui::End();
    ImGui::PopStyleColor();
  }
  if (close >= 0) list.erase(list.begin() + close);
}

void draw_restore_offer(UiState& ui) {
  if (ui.crashed.empty()) return;
  const CrashedSession& s = ui.crashed.front();
  constexpr const char* k_title = "Restore the last run?";
  if (!ImGui::IsPopupOpen(k_title)) ImGui::OpenPopup(k_title);
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->GetCenter(), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  if (!ImGui::BeginPopupModal(k_title, nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  ImGui::TextUnformatted("Redraw did not close properly last time.");
  ImGui::Text("Its run was autosaved at %s.", s.saved_at.c_str());
  bounded_text_disabled(s.model.string(), k_widget_chars, true);
  ImGui::Spacing();
  if (ImGui::Button("Restore")) {
    const std::filesystem::path model = adopt_crashed_session(s);
    if (model.empty())
      ui.notify("the autosave could not be found any more", true);
    else
      ui.push(intent::OpenPath{model.string()});
    ui.crashed.erase(ui.crashed.begin());
    ImGui::CloseCurrentPopup();
  }
  ImGui::SameLine();
  if (ImGui::Button("Discard")) {
    discard_crashed_session(s);
    ui.crashed.erase(ui.crashed.begin());
    ImGui::CloseCurrentPopup();
  }
  ImGui::EndPopup();
}

void draw_budget_offer(UiState& ui) {
  if (!ui.budget_offer) return;
  const BudgetOffer& o = *ui.budget_offer;
  constexpr const char* k_title = "Image over the memory budget";
  if (!ImGui::IsPopupOpen(k_title)) ImGui::OpenPopup(k_title);
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->GetCenter(), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  if (!ImGui::BeginPopupModal(k_title, nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  bounded_text_disabled(o.file, k_widget_chars, true);
  const uint64_t mib = uint64_t(1) << 20;
  const uint64_t raised = raised_limits(o).max_bytes / mib;
  ImGui::Text("Decoding it takes %llu MiB; the image memory budget is %llu MiB.",
              static_cast<unsigned long long>((o.needed_bytes + mib - 1) / mib),
              static_cast<unsigned long long>(o.budget_bytes / mib));
  ImGui::TextUnformatted("The budget stays as it is for other files (Machine > Image memory).");
  ImGui::Spacing();
  char label[96];
  std::snprintf(label, sizeof label, "Open with %llu MiB", static_cast<unsigned long long>(raised));
  if (ImGui::Button(label)) {
    ui.push(intent::OpenWithBudget{});
    ImGui::CloseCurrentPopup();
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel")) {
    ui.notify("not opened: " + o.what, true);
    ui.budget_offer.reset();
    ImGui::CloseCurrentPopup();
  }
  ImGui::EndPopup();
}

} // namespace redraw
