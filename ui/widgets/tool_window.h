#pragma once
/// The tool windows (Help, Messages, Performance, Spectrum, Neuron maps): closable, placed by the
/// program the first time they open and by the user afterwards (imgui.ini keeps it).
#include <imgui.h>

namespace redraw {

/// Where a tool window first opens: pos and size in pixels; pivot as ImGui's (0.5, 0.5: pos is
/// the window's centre).
struct WindowPlacement {
  ImVec2 pos, size, pivot{0, 0};
};

/// A first placement in the main viewport's work area: the left edge at x_share of its width, the
/// top y_px below its top, the size min(max_size, share * the work area's size) on each axis.
WindowPlacement work_area_placement(float x_share, float y_px, ImVec2 max_size, ImVec2 share);

/// Begins the tool window `title` while *open. False when it is closed, or collapsed (then ended
/// here): nothing to draw. When true, the caller draws it and calls ImGui::End().
bool begin_tool_window(const char* title, bool* open, const WindowPlacement& first, ImGuiWindowFlags flags = 0);

} // namespace redraw
