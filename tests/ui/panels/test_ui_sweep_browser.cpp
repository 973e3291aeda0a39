/// File > Open sweep on the GUI side (ui/panels/sweep_browser.h): a sweep folder read into the browser
/// (its cells, their states, sorted by PSNR), a bad folder named, Ctrl+click selection, a click
/// opening a cell's model, and two selected cells opening as runs A and B. Built when the GUI is
/// (REDRAW_TEST_UI).
#include <doctest/doctest.h>

#if REDRAW_TEST_UI
#include "ui/ui_test_support.h"

#include "engine/images/image.h"
#include "engine/sweep/sweep_plan.h"
#include "ui/panels/sweep_browser.h"

#include <fstream>

using namespace redraw;

namespace {
/// A saved 3-cell sweep (one image, one preset, three learning rates): cell 0 done at 20 dB, cell
/// 1 done at 30 dB, cell 2 not started.
struct SavedSweep {
  test::TempDir dir;
  SweepPlan plan;
  SavedSweep() {
    Image im;
    im.width = im.height = 8;
    im.channels = 1;
    im.pixels.assign(64, 0.25f);
    write_png(dir.path / "a.png", im);
    SweepGrid g;
    g.images = {(dir.path / "a.png").string()};
    g.presets = {"fourier"};
    g.axes = {parse_sweep_axis("schedule.lr_max=0.01,0.003,0.001")};
    g.steps = 5;
    plan = build_sweep_plan(g);
    std::filesystem::create_directories(dir.path / "s");
    save_sweep_plan(dir.path / "s", plan);
    for (const auto& [k, psnr] : {std::pair{0, 20.0}, std::pair{1, 30.0}}) {
      const auto folder = cell_folder(dir.path / "s", plan.cells[size_t(k)]);
      std::filesystem::create_directories(folder);
      CellResult r;
      r.status = CellStatus::Done;
      r.psnr_db = psnr;
      std::ofstream(folder / "result.json") << cell_result_json(plan.cells[size_t(k)], r);
      std::ofstream(folder / "model.redraw") << "a model";
    }
  }
};

/// The vertices ImGui draws in a frame of the browser showing a sweep of `cells` cells (none with a
/// picture yet), and the tiles it submitted; the third frame, once the window has its size.
std::pair<int, size_t> browser_frame(size_t cells) {
  test::HeadlessImGui gui(ImVec2(1000, 700));
  UiState ui;
  SweepBrowserState& s = ui.sweep;
  s.open = true;
  s.folder = "/nonexistent/sweep";
  s.plan.cells.resize(cells);
  for (size_t k = 0; k < cells; ++k) {
    s.plan.cells[k].index = int64_t(k);
    s.plan.cells[k].name = "cell-" + std::to_string(k);
    s.plan.cells[k].image = "/nonexistent/a.png";
    s.plan.cells[k].preset = "siren";
  }
  s.results.resize(cells);
  s.order.resize(cells);
  for (size_t k = 0; k < cells; ++k)
    s.order[k] = k;
  s.thumbs.assign(cells, nullptr);
  s.thumbs_tried = cells; // no final.png to look for
  int vertices = 0;
  for (int f = 0; f < 3; ++f) {
    ImGui::NewFrame();
    draw_sweep_browser(ui);
    ImGui::Render();
    vertices = ImGui::GetDrawData()->TotalVtxCount;
  }
  return {vertices, s.tiles_drawn};
}
} // namespace

TEST_CASE("sweep browser: a 10,000-cell sweep draws only the tiles in view, as a 60-cell one does") {
  const auto small = browser_frame(60), large = browser_frame(10000);
  const int small_vertices = small.first, large_vertices = large.first;
  const size_t small_tiles = small.second, large_tiles = large.second;
  CAPTURE(small_vertices);
  CAPTURE(large_vertices);
  CAPTURE(large_tiles);
  // The window (760 x 420 at 1x) shows a few rows of about seven tiles: both fill it alike.
  CHECK(large_tiles > 0);
  CHECK(large_tiles <= 60);
  CHECK(large_tiles == small_tiles);
  CHECK(large_vertices < small_vertices + 200); // a scroll bar's worth more, not 10,000 tiles' (was about 160x)
}

TEST_CASE("sweep browser: a sweep's cells, sorted by PSNR; a bad folder named, the sweep shown kept") {
  test::ScopedEnv assets("REDRAW_ASSETS", test::test_assets().string());
  SavedSweep sweep;
  SweepBrowserState s;
  load_sweep_browser(s, (sweep.dir.path / "s").string());
  CHECK(s.error.empty());
  REQUIRE(s.results.size() == 3);
  CHECK(s.results[2].status == CellStatus::Pending);
  CHECK(s.order == std::vector<size_t>{1, 0, 2}); // PSNR, descending; the cell not run last
  CHECK(s.thumbs.size() == 3);
  s.descending = false;
  sort_sweep_browser(s);
  CHECK(s.order == std::vector<size_t>{0, 1, 2});
  load_sweep_browser(s, (sweep.dir.path / "nowhere").string());
  CHECK(s.error.find("nowhere") != std::string::npos);
  CHECK(s.results.size() == 3);
}

TEST_CASE("sweep browser: a click opens a cell's model; two selected open as runs A and B") {
  test::ScopedEnv assets("REDRAW_ASSETS", test::test_assets().string());
  SavedSweep sweep;
  UiState ui;
  load_sweep_browser(ui.sweep, (sweep.dir.path / "s").string());
  open_sweep_cell(ui, 2); // not started: no model, an error and no intent
  CHECK(ui.intents.empty());
  REQUIRE(!ui.messages.empty());
  CHECK(ui.messages.back().error);
  open_sweep_cell(ui, 1);
  REQUIRE(ui.intents.size() == 1);
  REQUIRE(ui.intents[0].get<intent::OpenPath>());
  CHECK(ui.intents[0].get<intent::OpenPath>()->path == sweep_cell_model(ui.sweep, 1));
  ui.intents.clear();

  toggle_sweep_selection(ui.sweep, 2);
  toggle_sweep_selection(ui.sweep, 1);
  toggle_sweep_selection(ui.sweep, 0); // a third drops the oldest
  CHECK(ui.sweep.selected == std::vector<int64_t>{1, 0});
  toggle_sweep_selection(ui.sweep, 1);
  CHECK(ui.sweep.selected == std::vector<int64_t>{0});
  toggle_sweep_selection(ui.sweep, 1);
  compare_sweep_selection(ui);
  REQUIRE(ui.intents.size() == 1); // A first; B waits for A to load
  CHECK(ui.intents[0].get<intent::OpenPath>()->path == sweep_cell_model(ui.sweep, 0));
  follow_sweep_compare(ui);
  CHECK(ui.intents.size() == 1);
  ui.run_a().status.has_run = true;
  ui.run_a().status.model_path = sweep_cell_model(ui.sweep, 0);
  follow_sweep_compare(ui);
  REQUIRE(ui.intents.size() == 2);
  REQUIRE(ui.intents[1].get<intent::OpenCompare>());
  CHECK(ui.intents[1].get<intent::OpenCompare>()->model_b == sweep_cell_model(ui.sweep, 1));
  follow_sweep_compare(ui); // once
  CHECK(ui.intents.size() == 2);
}
#endif
