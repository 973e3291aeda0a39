#pragma once
/// HiDPI: the interface follows the monitor's content scale (glfwGetWindowContentScale, and its
/// change callback when the window moves between monitors) times the user's UI scale
/// (Settings::ui_scale, View > UI scale, `redraw gui --ui-scale`).
/// - A scale change rebuilds the font atlas at k_base_font_px * scale and the style from a fresh
///   base style scaled by ImGuiStyle::ScaleAllSizes, between frames (gui_app.cpp uploads the new
///   font texture).
/// - Panels size their own fixed pixel measures with ui_px(), which follows the font size.
namespace redraw {

constexpr float k_base_font_px = 15.0f; ///< the font size at scale 1
constexpr float k_min_ui_scale = 0.5f, k_max_ui_scale = 4.0f;

struct UiScaleState {
  float content = 1.0f; ///< the monitor's content scale (x), from GLFW, less what the platform
                        ///< already scales (framebuffer / window size, e.g. macOS)
  float session = 0.0f; ///< `--ui-scale` for this session only; 0: Settings::ui_scale
  float applied = 0.0f; ///< the scale the fonts and style were last built for (0: not yet)
};

/// The scale to build the UI at: content x user, clamped to [k_min_ui_scale, k_max_ui_scale]
/// (a missing or non-finite factor counts as 1).
float effective_ui_scale(float content, float user);
/// Rebuilds the font atlas (DejaVu Sans or Liberation Sans when installed, else ImGui's own font)
/// at round(k_base_font_px * scale) pixels and the style from the base style times `scale`.
/// Outside a frame; the caller re-uploads the font texture.
void build_ui_scale(float scale);

/// `px` pixels at scale 1, in pixels at the current scale (follows the font size). In a frame.
float ui_px(float px);

} // namespace redraw
