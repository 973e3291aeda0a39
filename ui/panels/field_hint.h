#pragma once
/// Out-of-range values typed into the controls are never clamped silently: the field gets a red
/// hint under it naming the field, the allowed range and what was done with the value, and the
/// hint goes to the messages once the field is left. GUI thread, inside an ImGui frame, right
/// after the field's widget (it reads the last item's edit state).
#include "ui/state/ui_state.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

namespace redraw {

/// Seconds a hint stays under its field after the edit that made it.
constexpr double k_field_hint_seconds = 10.0;

namespace field_hint_detail {
/// check_field's second half: records (or clears) the hint after an edit and draws it.
bool report_check(UiState& ui, const char* label, bool out, double typed, double lo, double hi, double value,
                  bool edited, bool active);
bool last_item_edited();
bool last_item_active();
} // namespace field_hint_detail

/// Clamps `v` into [lo, hi]. When the field edited it out of range, records the hint for `label`
/// ("##" and what follows are not shown); a later in-range edit clears it. Draws the field's hint,
/// if any. Returns true when `v` was changed here. This form is for a field that is not the last
/// widget (a row of widgets): its edit state is given.
template <class T>
bool check_field(UiState& ui, const char* label, T& v, std::type_identity_t<T> lo, std::type_identity_t<T> hi,
                 bool edited, bool active) {
  const T typed = v;
  const bool out = !(typed >= lo && typed <= hi); // NaN is out too
  if (out) v = std::isnan(double(typed)) ? lo : std::clamp(typed, lo, hi);
  return field_hint_detail::report_check(ui, label, out, double(typed), double(lo), double(hi), double(v), edited,
                                         active);
}
/// The same for the last widget, whose edit state ImGui knows.
template <class T>
bool check_field(UiState& ui, const char* label, T& v, std::type_identity_t<T> lo, std::type_identity_t<T> hi) {
  return check_field<T>(ui, label, v, lo, hi, field_hint_detail::last_item_edited(),
                        field_hint_detail::last_item_active());
}

/// Records (or, with an empty `text`, clears) the hint of `label` from code that decides by
/// itself (e.g. a learning rate of 0 is refused and the old value kept), then draws it as above.
void set_field_hint(UiState& ui, const char* label, std::string text);
/// Draws the hint of `label` (and reports it once the field is no longer `active`).
void draw_field_hint(UiState& ui, const char* label, bool active);
/// The text of a clamp: "<field> must be <range>; <typed> was set to <value>".
std::string clamp_hint_text(const std::string& field, double typed, double lo, double hi, double value);

} // namespace redraw
