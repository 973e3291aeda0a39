#pragma once
/// Text from files, paths and messages drawn within bounds. ImGui draws every glyph of a line
/// into the window's draw list (16-bit indices: 65,536 vertices), so one unbounded string (a
/// 200,000-character name in a model) aborts the app. These draw at most `max_chars` code points,
/// escaped (engine/display_text.h); a cut text shows more of itself (k_tooltip_chars) in a tooltip,
/// and the messages window holds messages at k_message_chars. GUI thread, inside an ImGui frame.
#include <imgui.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace redraw {

constexpr size_t k_widget_chars = 300;   ///< one line of a panel, a path, a status field
constexpr size_t k_tooltip_chars = 2000; ///< a tooltip with the longer text
constexpr size_t k_message_chars = 4000; ///< one message in the messages window

/// The text a widget shows for `s`: escaped, at most `max_chars` code points. `keep_end` keeps a
/// path's file name (the middle is cut).
std::string widget_text(std::string_view s, size_t max_chars = k_widget_chars, bool keep_end = false);

/// ImGui::TextUnformatted of widget_text(s); a tooltip with more when it was cut.
void bounded_text(std::string_view s, size_t max_chars = k_widget_chars, bool keep_end = false);
/// The same in a colour, or greyed out.
void bounded_text_colored(const ImVec4& color, std::string_view s, size_t max_chars = k_widget_chars,
                          bool keep_end = false);
void bounded_text_disabled(std::string_view s, size_t max_chars = k_widget_chars, bool keep_end = false);
/// A tooltip for the last item holding widget_text(s, k_tooltip_chars), when it is hovered.
void bounded_tooltip(std::string_view s);

} // namespace redraw
