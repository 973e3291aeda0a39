#pragma once
/// Shared by the ui tests (built when the GUI is, REDRAW_TEST_UI).
#include "test_support.h"

#include "ui/window/settings_store.h"

#include <doctest/doctest.h>
#include <imgui.h>

#include <initializer_list>

namespace redraw::test {

/// In fresh config and data folders: each of `flags` is off in the default settings, and saved on,
/// loads back on.
inline void check_flags_remembered(std::initializer_list<bool Settings::*> flags) {
  TempDir dir;
  ScopedEnv env("XDG_CONFIG_HOME", dir.path.string());
  ScopedEnv data("XDG_DATA_HOME", dir.path.string());
  Settings s = load_settings();
  for (bool Settings::*flag : flags) CHECK(!(s.*flag));
  for (bool Settings::*flag : flags) s.*flag = true;
  CHECK(save_settings(s).empty());
  const Settings back = load_settings();
  for (bool Settings::*flag : flags) CHECK(back.*flag);
}

/// An ImGui context with no window or renderer: frames run and fill draw lists, nothing is shown.
struct HeadlessImGui {
  explicit HeadlessImGui(ImVec2 display = ImVec2(800, 600)) {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = display;
    io.DeltaTime = 1.0f / 60;
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  }
  ~HeadlessImGui() { ImGui::DestroyContext(); }
  HeadlessImGui(const HeadlessImGui&) = delete;
  HeadlessImGui& operator=(const HeadlessImGui&) = delete;
  /// One frame around `draw`.
  template <class F> void frame(F&& draw) {
    ImGui::NewFrame();
    draw();
    ImGui::EndFrame();
  }
};

} // namespace redraw::test
