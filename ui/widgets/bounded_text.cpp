#include "ui/widgets/bounded_text.h"

#include "engine/display_text.h"

namespace redraw {

namespace {
void tooltip_if_cut(std::string_view s, const std::string& shown) {
  if (shown.size() != s.size() || shown != s) bounded_tooltip(s);
}
} // namespace

std::string widget_text(std::string_view s, size_t max_chars, bool keep_end) { return elide(s, max_chars, keep_end); }

void bounded_text(std::string_view s, size_t max_chars, bool keep_end) {
  const std::string shown = widget_text(s, max_chars, keep_end);
  ImGui::TextUnformatted(shown.data(), shown.data() + shown.size());
  tooltip_if_cut(s, shown);
}

void bounded_text_colored(const ImVec4& color, std::string_view s, size_t max_chars, bool keep_end) {
  ImGui::PushStyleColor(ImGuiCol_Text, color);
  const std::string shown = widget_text(s, max_chars, keep_end);
  ImGui::TextUnformatted(shown.data(), shown.data() + shown.size());
  ImGui::PopStyleColor();
  tooltip_if_cut(s, shown);
}

void bounded_text_disabled(std::string_view s, size_t max_chars, bool keep_end) {
  bounded_text_colored(ImGui::GetStyle().Colors[ImGuiCol_TextDisabled], s, max_chars, keep_end);
}

void bounded_tooltip(std::string_view s) {
  if (!ImGui::IsItemHovered()) return;
  const std::string shown = widget_text(s, k_tooltip_chars);
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40.0f);
  ImGui::TextUnformatted(shown.data(), shown.data() + shown.size());
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

} // namespace redraw
