#pragma once
/// Out-of-range values typed into the controls are never clamped silently: the field gets a red
/// hint under it naming the field, the allowed range and what was done with the value, and the
/// hint goes to the messages once the field is left. GUI thread, inside an ImGui frame, right
/// after the field's widget (it reads the last item's edit state).
#include "ui/ui_state.h"

#include <cstdint>
#include <string>

namespace redraw {

/// Seconds a hint stays under its field after the edit that made it.
constexpr double k_field_hint_seconds = 10.0;

/// Clamps `v` into [lo, hi]. When the last widget edited it out of range, records the hint for
/// `label` ("##" and what follows are not shown); a later in-range edit clears it. Draws the
/// field's hint, if any. Returns true when `v` was changed here.
bool check_field(UiState& ui, const char* label, double& v, double lo, double hi);
bool check_field(UiState& ui, const char* label, float& v, float lo, float hi);
bool check_field(UiState& ui, const char* label, int32_t& v, int32_t lo, int32_t hi);
bool check_field(UiState& ui, const char* label, int64_t& v, int64_t lo, int64_t hi);
/// The same for a field that is not the last widget (a row of widgets): its edit state is given.
bool check_field(UiState& ui, const char* label, double& v, double lo, double hi, bool edited, bool active);
bool check_field(UiState& ui, const char* label, float& v, float lo, float hi, bool edited, bool active);
bool check_field(UiState& ui, const char* label, int32_t& v, int32_t lo, int32_t hi, bool edited, bool active);
bool check_field(UiState& ui, const char* label, int64_t& v, int64_t lo, int64_t hi, bool edited, bool active);

/// Records (or, with an empty `text`, clears) the hint of `label` from code that decides by
/// itself (e.g. a learning rate of 0 is refused and the old value kept), then draws it as above.
void set_field_hint(UiState& ui, const char* label, std::string text);
/// Draws the hint of `label` (and reports it once the field is no longer `active`).
void draw_field_hint(UiState& ui, const char* label, bool active);
/// The text of a clamp: "<field> must be <range>; <typed> was set to <value>".
std::string clamp_hint_text(const std::string& field, double typed, double lo, double hi, double value);

} // namespace redraw
