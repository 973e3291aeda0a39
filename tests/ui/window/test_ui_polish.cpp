/// The GUI's layout memory, UI scale, performance timelines, clamp hints and export size: pure
/// logic, no window. Built when the GUI is (REDRAW_TEST_UI).
#include <doctest/doctest.h>

#if REDRAW_TEST_UI
#include "ui/window/app_actions.h"
#include "ui/widgets/escape_key.h"
#include "ui/panels/field_hint.h"
#include "ui/state/perf_monitor.h"
#include "ui/state/settings_store.h"
#include "ui/widgets/ui_scale.h"
#include "ui/testing/window_test_hook.h"
#include "ui/ui_test_support.h"

#include <GLFW/glfw3.h>
#include <imgui.h>

#include <cmath>

using namespace redraw;

TEST_CASE("ui polish: settings saved from a shrunk window keep the last sensible layout") {
  Settings s;
  s.window_width = 1500;
  s.window_height = 900;
  s.controls_width = 420;
  s.plots_height = 250;
  // Shrunk to 200 x 150: the window size is not taken, the panels are the user's.
  Settings saved = settings_for_save(s, 200, 150);
  CHECK(saved.window_width == 1500);
  CHECK(saved.window_height == 900);
  CHECK(saved.controls_width == 420);
  CHECK(saved.plots_height == 250);
  // Iconified: 0 x 0.
  saved = settings_for_save(s, 0, 0);
  CHECK(saved.window_width == 1500);
  // A normal size is remembered.
  saved = settings_for_save(s, 1280, 720);
  CHECK(saved.window_width == 1280);
  CHECK(saved.window_height == 720);
  // One side too small is enough to keep the old size.
  saved = settings_for_save(s, 1280, 300);
  CHECK(saved.window_height == 900);
  CHECK(saved.window_width == 1500);
  // A degenerate layout (an older version's, or a hand edit) is never written back.
  s.controls_width = 3;
  s.plots_height = std::nanf("");
  s.ui_scale = 0;
  saved = settings_for_save(s, 1280, 720);
  CHECK(saved.controls_width == k_min_controls_width);
  CHECK(saved.plots_height == Settings{}.plots_height);
  CHECK(saved.ui_scale == 1.0f);
}

TEST_CASE("ui polish: the UI scale is the monitor's times the user's, within limits") {
  CHECK(effective_ui_scale(1.0f, 1.0f) == 1.0f);
  CHECK(effective_ui_scale(2.0f, 1.0f) == 2.0f);
  CHECK(effective_ui_scale(1.5f, 1.5f) == doctest::Approx(2.25f));
  CHECK(effective_ui_scale(1.0f, 0.0f) == 1.0f); // unset
  CHECK(effective_ui_scale(0.0f, 2.0f) == 2.0f); // no monitor answer
  CHECK(effective_ui_scale(std::nanf(""), 1.25f) == 1.25f);
  CHECK(effective_ui_scale(3.0f, 3.0f) == k_max_ui_scale);
  CHECK(effective_ui_scale(0.5f, 0.5f) == k_min_ui_scale);
}

TEST_CASE("ui polish: performance bins split a step and average over the bin") {
  SessionProfile a;
  a.wall_s = 0.5;
  a.steps = 10;
  a.step_s = 0.4;
  a.preview_s = 0.05;
  a.backend.steps = 10;
  a.backend.forward_s = 0.1;
  a.backend.backward_s = 0.2;
  a.backend.update_s = 0.03;
  a.backend.metrics_s = 0.05;
  a.backend.metrics_calls = 2;
  PerfState p;
  p.bin_seconds = 1.0;
  CHECK_FALSE(perf_tick(p, 10.0, -1)); // opens the first bin
  perf_add_profile(p, a);
  perf_add_profile(p, a); // two samples: 1 s of wall, 20 steps
  perf_add_frame(p, 4.0);
  perf_add_frame(p, 8.0);
  CHECK_FALSE(perf_tick(p, 10.5, -1));
  REQUIRE(perf_tick(p, 11.0, int64_t(64) << 20));
  REQUIRE(p.bins.size() == 1);
  const PerfBin& b = p.bins.back();
  CHECK(b.steps == 20);
  CHECK(b.split);
  CHECK(b.step_ms == doctest::Approx(40.0));    // 0.8 s / 20 steps
  CHECK(b.forward_ms == doctest::Approx(10.0)); // 0.2 s / 20
  CHECK(b.backward_ms == doctest::Approx(20.0));
  CHECK(b.update_ms == doctest::Approx(3.0));
  CHECK(b.metrics_ms == doctest::Approx(5.0));
  CHECK(b.other_ms == doctest::Approx(2.0)); // 40 - 38
  CHECK(b.steps_per_s == doctest::Approx(20.0));
  CHECK(b.preview_ms == doctest::Approx(100.0)); // 0.1 s per second of wall
  CHECK(b.frame_ms == doctest::Approx(6.0));
  CHECK(b.frame_max_ms == doctest::Approx(8.0));
  CHECK(b.host_mb == doctest::Approx(64.0));
  CHECK(b.device_mb == -1.0f);
  // A backend that cannot split (a GPU): the whole step, no phases.
  SessionProfile g = a;
  g.backend = StepProfile{};
  g.backend.device_used_bytes = int64_t(512) << 20;
  perf_add_profile(p, g);
  REQUIRE(perf_tick(p, 12.0, -1));
  CHECK_FALSE(p.bins.back().split);
  CHECK(p.bins.back().forward_ms == 0);
  CHECK(p.bins.back().step_ms == doctest::Approx(40.0));
  CHECK(p.bins.back().device_mb == doctest::Approx(512.0));
  CHECK(p.bins.back().host_mb == -1.0f);
  CHECK(p.bins.back().span_s == doctest::Approx(0.5));
  // A bin with no sample at all (a step slower than a bin is still running) keeps the rate.
  REQUIRE(perf_tick(p, 13.0, -1));
  CHECK(p.bins.back().steps == 0);
  CHECK(p.bins.back().steps_per_s == doctest::Approx(20.0));
  CHECK(p.bins.back().span_s == doctest::Approx(1.0)); // its own length
  // A paused run still publishes: samples with no steps say 0 steps/s.
  SessionProfile idle;
  idle.wall_s = 0.2;
  perf_add_profile(p, idle);
  REQUIRE(perf_tick(p, 14.0, -1));
  CHECK(p.bins.back().steps_per_s == 0);
  // The timeline keeps `capacity` bins.
  p.capacity = 5;
  for (int i = 0; i < 10; ++i)
    perf_tick(p, 15.0 + i, -1);
  CHECK(p.bins.size() == 5);
  CHECK(p.bins.back().end_s == doctest::Approx(24.0));
}

TEST_CASE("ui polish: this process's resident memory is read from /proc") {
  const int64_t rss = host_resident_bytes();
  CHECK(rss > (int64_t(1) << 20));  // more than a megabyte
  CHECK(rss < (int64_t(64) << 30)); // and less than 64 GiB
}

TEST_CASE("ui polish: a clamp hint names the field, the range and what was set") {
  CHECK(clamp_hint_text("training size", 5, 8, 4096, 8) == "training size must be between 8 and 4096; 5 was set to 8");
  CHECK(clamp_hint_text("lr_min", -1, 0, 0.01, 0) == "lr_min must be between 0 and 0.01; -1 was set to 0");
}

TEST_CASE("ui polish: the export size keeps the last choice when the aspect is locked") {
  FileDialogState d;
  prepare_export_size(d, 200, 100); // first time: 4x
  CHECK(d.export_width == 800);
  CHECK(d.export_height == 400);
  d.export_width = 1000; // the user's choice
  d.export_height = 500;
  prepare_export_size(d, 200, 100);
  CHECK(d.export_width == 1000);
  CHECK(d.export_height == 500);
  prepare_export_size(d, 100, 100); // another picture: the height follows its aspect
  CHECK(d.export_width == 1000);
  CHECK(d.export_height == 1000);
  d.export_lock_aspect = false;
  d.export_height = 333;
  prepare_export_size(d, 200, 100);
  CHECK(d.export_width == 1000);
  CHECK(d.export_height == 333);
}

TEST_CASE("ui polish: --test-resize sizes and screenshot siblings") {
  int32_t w = 0, h = 0;
  CHECK(parse_window_size("200x150", w, h));
  CHECK(w == 200);
  CHECK(h == 150);
  CHECK_FALSE(parse_window_size("200", w, h));
  CHECK_FALSE(parse_window_size("0x10", w, h));
  CHECK_FALSE(parse_window_size("20x10x", w, h));
  CHECK(sibling_path("/tmp/a/shot.png", "tiny") == "/tmp/a/shot-tiny.png");
}

namespace {
/// A headless ImGui whose frames may hold Escape down, with the app's Escape handling.
struct HeadlessImGui : test::HeadlessImGui {
  HeadlessImGui() { ImGui::GetIO().KeyMap[ImGuiKey_Escape] = GLFW_KEY_ESCAPE; }
  /// One frame: Escape held down in it or not, then `draw` (the app's popups).
  template <class F> void frame(bool escape, F&& draw) {
    ImGui::GetIO().KeysDown[GLFW_KEY_ESCAPE] = escape;
    test::HeadlessImGui::frame([&] {
      close_menus_on_escape();
      draw();
    });
  }
};
} // namespace

TEST_CASE("ui polish: Escape closes menus and lists, and leaves modal dialogs to themselves") {
  HeadlessImGui gui;
  bool open_menu = true, open_modal = false, open_list = false;
  bool menu_shown = false, modal_shown = false, list_shown = false;
  auto draw = [&] {
    ImGui::Begin("main");
    if (open_menu) ImGui::OpenPopup("menu");
    if (open_modal) ImGui::OpenPopup("modal");
    open_menu = open_modal = false;
    menu_shown = ImGui::BeginPopup("menu");
    if (menu_shown) ImGui::EndPopup();
    modal_shown = ImGui::BeginPopupModal("modal", nullptr);
    if (modal_shown) {
      if (open_list) ImGui::OpenPopup("list");
      open_list = false;
      list_shown = ImGui::BeginPopup("list");
      if (list_shown) ImGui::EndPopup();
      ImGui::EndPopup();
    } else {
      list_shown = false;
    }
    ImGui::End();
  };
  gui.frame(false, draw);
  CHECK(menu_shown);
  gui.frame(false, draw);
  CHECK(menu_shown); // it stays open by itself
  gui.frame(true, draw);
  CHECK_FALSE(menu_shown); // Escape closed it
  gui.frame(false, draw);
  CHECK_FALSE(menu_shown);

  open_modal = true;
  gui.frame(false, draw);
  open_list = true;
  gui.frame(false, draw);
  gui.frame(false, draw);
  CHECK(modal_shown);
  CHECK(list_shown);
  gui.frame(true, draw); // closes the list inside the dialog, not the dialog
  gui.frame(false, draw);
  CHECK(modal_shown);
  CHECK_FALSE(list_shown);
  gui.frame(true, draw);
  gui.frame(false, draw);
  CHECK(modal_shown); // a modal answers Escape itself (Cancel / Close)
}

TEST_CASE("ui polish: a clamped field shows its hint and reports it once, when the field is left") {
  HeadlessImGui gui;
  UiState ui;
  ui.now = 100;
  int32_t side = 5;
  gui.frame(false, [&] {
    ImGui::Begin("controls");
    CHECK(check_field(ui, "training size", side, 8, 4096, /*edited=*/true, /*active=*/true));
    ImGui::End();
  });
  CHECK(side == 8);
  REQUIRE(ui.hints.size() == 1);
  CHECK(ui.hints[0].text == "training size must be between 8 and 4096; 5 was set to 8");
  CHECK(ui.messages.empty()); // still typing
  gui.frame(false, [&] {
    ImGui::Begin("controls");
    CHECK_FALSE(check_field(ui, "training size", side, 8, 4096, false, false));
    ImGui::End();
  });
  REQUIRE(ui.message_log.size() == 1); // left the field: said once
  CHECK(ui.message_log[0].text == ui.hints[0].text);
  gui.frame(false, [&] {
    ImGui::Begin("controls");
    check_field(ui, "training size", side, 8, 4096, false, false);
    ImGui::End();
  });
  CHECK(ui.message_log.size() == 1);
  // An in-range edit clears the hint; the hint also fades by itself.
  side = 64;
  gui.frame(false, [&] {
    ImGui::Begin("controls");
    CHECK_FALSE(check_field(ui, "training size", side, 8, 4096, true, true));
    ImGui::End();
  });
  CHECK(ui.hints.empty());
  CHECK(side == 64);
  double lr = -1;
  gui.frame(false, [&] {
    ImGui::Begin("controls");
    check_field(ui, "lr_min", lr, 0.0, 0.01, true, false);
    ImGui::End();
  });
  CHECK(lr == 0);
  CHECK(ui.hints.size() == 1);
  ui.now += k_field_hint_seconds + 1;
  gui.frame(false, [&] {
    ImGui::Begin("controls");
    check_field(ui, "lr_min", lr, 0.0, 0.01, false, false);
    ImGui::End();
  });
  CHECK(ui.hints.empty());
}
#endif
