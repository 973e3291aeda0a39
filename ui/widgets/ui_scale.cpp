#include "ui/widgets/ui_scale.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <system_error>

namespace redraw {
namespace {

/// Redraw's look at scale 1.
ImGuiStyle base_style() {
  ImGuiStyle s;
  ImGui::StyleColorsDark(&s);
  s.WindowRounding = 4;
  s.ChildRounding = 3;
  s.FrameRounding = 3;
  s.GrabRounding = 3;
  s.PopupRounding = 4;
  s.FramePadding = ImVec2(6, 3);
  s.ItemSpacing = ImVec2(7, 5);
  s.Colors[ImGuiCol_WindowBg] = ImVec4(0.09f, 0.10f, 0.11f, 1);
  s.Colors[ImGuiCol_ChildBg] = ImVec4(0, 0, 0, 0); // see draw_main_window: the clear colour shows through
  s.Colors[ImGuiCol_Header] = ImVec4(0.20f, 0.30f, 0.45f, 0.8f);
  // Opaque menus and dialogs: at the default 0.94 alpha the picture and buttons behind them show
  // through the file list and the menu items.
  s.Colors[ImGuiCol_PopupBg].w = 1.0f;
  return s;
}

} // namespace

float ui_px(float px) { return px * ImGui::GetFontSize() / k_base_font_px; }

float effective_ui_scale(float content, float user) {
  if (!std::isfinite(content) || content <= 0) content = 1;
  if (!std::isfinite(user) || user <= 0) user = 1;
  return std::clamp(content * user, k_min_ui_scale, k_max_ui_scale);
}

void build_ui_scale(float scale) {
  ImGuiStyle style = base_style();
  style.ScaleAllSizes(scale);
  ImGui::GetStyle() = style;

  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  const float px = std::round(k_base_font_px * scale);
  const char* fonts[] = {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                         "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf"};
  for (const char* f : fonts) {
    std::error_code ec;
    if (std::filesystem::exists(f, ec) && io.Fonts->AddFontFromFileTTF(f, px)) {
      io.Fonts->Build();
      return;
    }
  }
  ImFontConfig cfg; // ImGui's bitmap font, scaled: blurry, but the same layout
  cfg.SizePixels = px;
  io.Fonts->AddFontDefault(&cfg);
  io.Fonts->Build();
}

} // namespace redraw
