#pragma once
/// Escape closes the open menus, combo lists and context popups (ImGui 1.86 leaves that to
/// keyboard navigation, which Redraw keeps off so Space stays "train"). Modal dialogs handle
/// Escape themselves (Cancel / Close), so a modal and what it asks are never dropped here.
namespace redraw {

/// Call once per frame, right after ImGui::NewFrame(). GUI thread.
void close_menus_on_escape();

} // namespace redraw
