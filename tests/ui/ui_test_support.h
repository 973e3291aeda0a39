#pragma once
/// Shared by the ui tests of every room (built when the GUI is, REDRAW_TEST_UI): it includes no ui/
/// header, so a test of any room may use it (tests/project/layering.sh).
#include "test_support.h"

#include <doctest/doctest.h>
#include <imgui.h>

namespace redraw::test {

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
