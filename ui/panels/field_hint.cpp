#include "ui/panels/field_hint.h"
#include "ui/widgets/bounded_text.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>

namespace redraw {
namespace {

std::string shown_name(const char* label) {
  std::string_view v(label);
  return std::string(v.substr(0, v.find("##")));
}

FieldHint* find_hint(UiState& ui, const char* label) {
  for (FieldHint& h : ui.hints)
    if (h.field == label) return &h;
  return nullptr;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

void record_hint(UiState& ui, const char* label, std::string text);
void show_hint(UiState& ui, const char* label, bool active);

void record_hint(UiState& ui, const char* label, std::string text) {
  FieldHint* h = find_hint(ui, label);
  if (text.empty()) {
    if (h) ui.hints.erase(ui.hints.begin() + (h - ui.hints.data()));
  } else if (h) {
    if (h->text != text) h->reported = false;
    h->text = std::move(text);
    h->at = ui.now;
  } else {
    ui.hints.push_back(FieldHint{label, std::move(text), false, ui.now});
  }
}

void show_hint(UiState& ui, const char* label, bool active) {
  FieldHint* h = find_hint(ui, label);
  if (!h) return;
  // Reported once the field is left (typing "0.001" passes through "0": no message for that).
  if (!h->reported && !active) {
    h->reported = true;
    ui.notify(h->text);
  }
  if (!active && ui.now - h->at > k_field_hint_seconds) {
    ui.hints.erase(ui.hints.begin() + (h - ui.hints.data()));
    return;
  }
  ImGui::PushTextWrapPos(0);
  bounded_text_colored(ImVec4(1.0f, 0.42f, 0.42f, 1), h->text);
  ImGui::PopTextWrapPos();
}

} // namespace

std::string clamp_hint_text(const std::string& field, double typed, double lo, double hi, double value) {
  return field + " must be between " + number(lo) + " and " + number(hi) + "; " + number(typed) + " was set to " +
         number(value);
}

void set_field_hint(UiState& ui, const char* label, std::string text) {
  record_hint(ui, label, std::move(text));
  show_hint(ui, label, ImGui::IsItemActive());
}

void draw_field_hint(UiState& ui, const char* label, bool active) { show_hint(ui, label, active); }

namespace field_hint_detail {

bool report_check(UiState& ui, const char* label, bool out, double typed, double lo, double hi, double value,
                  bool edited, bool active) {
  if (edited) record_hint(ui, label, out ? clamp_hint_text(shown_name(label), typed, lo, hi, value) : std::string());
  show_hint(ui, label, active);
  return out;
}
bool last_item_edited() { return ImGui::IsItemEdited(); }
bool last_item_active() { return ImGui::IsItemActive(); }

} // namespace field_hint_detail

} // namespace redraw
