/// File > Open sweep on the GUI side (ui/sweep_browser.h): a sweep folder read into the browser
/// (its cells, their states, sorted by PSNR), a bad folder named, Ctrl+click selection, a click
/// opening a cell's model, and two selected cells opening as runs A and B. Built when the GUI is
/// (REDRAW_TEST_UI).
#include <doctest/doctest.h>

#if REDRAW_TEST_UI
#include "ui_test_support.h"

#include "engine/images/image.h"
#include "engine/sweep/sweep_plan.h"
#include "ui/sweep_browser.h"

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
} // namespace

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
  ui.run.status.has_run = true;
  ui.run.status.model_path = sweep_cell_model(ui.sweep, 0);
  follow_sweep_compare(ui);
  REQUIRE(ui.intents.size() == 2);
  REQUIRE(ui.intents[1].get<intent::OpenCompare>());
  CHECK(ui.intents[1].get<intent::OpenCompare>()->model_b == sweep_cell_model(ui.sweep, 1));
  follow_sweep_compare(ui); // once
  CHECK(ui.intents.size() == 2);
}
#endif
