// A sweep's folder as its readers see it (engine/sweep/sweep_table.h): each cell's state from the
// files in its folder, and the cells ordered by a column against orders written out by hand.
#include "engine/errors.h"
#include "engine/sweep/sweep_table.h"
#include "test_support.h"

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>

namespace redraw {
namespace {

SweepPlan four_cells() {
  SweepPlan plan;
  for (const char* image : {"b", "a", "d", "c"}) {
    SweepCell c;
    c.index = int64_t(plan.cells.size());
    c.name = "00" + std::to_string(c.index) + "-" + image;
    c.image = std::string("/data/") + image + ".png";
    c.preset = c.index % 2 ? "siren" : "instant";
    c.seed = uint64_t(4 - c.index);
    plan.cells.push_back(c);
  }
  return plan;
}

CellResult finished_cell_at(double psnr, double seconds) {
  CellResult r;
  r.status = CellStatus::Done;
  r.steps = 10;
  r.psnr_db = psnr;
  r.ssim = psnr / 100;
  r.seconds = seconds;
  return r;
}

void write_file(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << text;
}

} // namespace

TEST_CASE("sweep table: a cell's state comes from its folder") {
  test::TempDir dir;
  const SweepPlan plan = four_cells();
  write_file(cell_folder(dir.path, plan.cells[0]) / "result.json", cell_result_json(plan.cells[0], finished_cell_at(31.5, 2)));
  write_file(cell_folder(dir.path, plan.cells[1]) / "model.redraw", "checkpoint");
  write_file(cell_folder(dir.path, plan.cells[2]) / "result.json", "{not json");
  const std::vector<CellResult> r = read_sweep_results(dir.path, plan);
  REQUIRE(r.size() == 4);
  CHECK(r[0].status == CellStatus::Done);
  CHECK(r[0].psnr_db == 31.5);
  CHECK(r[1].status == CellStatus::Unfinished);
  CHECK(r[2].status == CellStatus::Failed);
  CHECK(r[2].error.find("002-d/result.json") != std::string::npos);
  CHECK(r[3].status == CellStatus::Pending);
}

TEST_CASE("sweep table: a cell folder that is a link is a failed cell, nothing read or made through it") {
  test::TempDir dir;
  const SweepPlan plan = four_cells();
  const std::filesystem::path victim = dir.path / "victim";
  write_file(victim / "result.json", cell_result_json(plan.cells[0], finished_cell_at(40, 1))); // read through, it would be done
  std::filesystem::create_directories(dir.path / "sweep" / "cells");
  std::filesystem::create_directory_symlink(victim, cell_folder(dir.path / "sweep", plan.cells[0]));
  const std::vector<CellResult> r = read_sweep_results(dir.path / "sweep", plan);
  CHECK(r[0].status == CellStatus::Failed);
  CHECK(r[0].error == cell_folder(dir.path / "sweep", plan.cells[0]).string() +
                          ": is a symbolic link, not a folder (refused: nothing is read or written through it)");
  CHECK(r[1].status == CellStatus::Pending);
  CHECK_THROWS_WITH_AS(make_cell_folder(dir.path / "sweep", plan.cells[0]),
                       doctest::Contains("000-b: is a symbolic link"), IoError);
  CHECK(make_cell_folder(dir.path / "sweep", plan.cells[1]) == cell_folder(dir.path / "sweep", plan.cells[1]));
  CHECK(std::filesystem::is_directory(cell_folder(dir.path / "sweep", plan.cells[1])));
  // cells/ itself a link: every cell is refused, none made in the folder it points to.
  std::filesystem::create_directories(dir.path / "other");
  std::filesystem::create_directories(dir.path / "sweep2");
  std::filesystem::create_directory_symlink(dir.path / "other", dir.path / "sweep2" / "cells");
  CHECK(read_cell_result(dir.path / "sweep2", plan.cells[2]).error.find("sweep2/cells: is a symbolic link") !=
        std::string::npos);
  CHECK_THROWS_WITH_AS(make_cell_folder(dir.path / "sweep2", plan.cells[2]), doctest::Contains("sweep2/cells: is a"),
                       IoError);
  CHECK(std::filesystem::is_empty(dir.path / "other"));
}

TEST_CASE("sweep table: cells ordered by a column, missing values last both ways") {
  const SweepPlan plan = four_cells();
  std::vector<CellResult> r = {finished_cell_at(30, 5), CellResult{}, finished_cell_at(35, 1), finished_cell_at(25, 3)};
  using V = std::vector<size_t>;
  CHECK(sweep_cell_order(plan, r, SweepColumn::Psnr, true) == V{2, 0, 3, 1});
  CHECK(sweep_cell_order(plan, r, SweepColumn::Psnr, false) == V{3, 0, 2, 1});
  CHECK(sweep_cell_order(plan, r, SweepColumn::Seconds, false) == V{2, 3, 0, 1});
  CHECK(sweep_cell_order(plan, r, SweepColumn::Cell, false) == V{0, 1, 2, 3});
  CHECK(sweep_cell_order(plan, r, SweepColumn::Image, false) == V{1, 0, 3, 2});
  CHECK(sweep_cell_order(plan, r, SweepColumn::Preset, true) == V{1, 3, 0, 2}); // stable within a preset
  CHECK(sweep_cell_order(plan, r, SweepColumn::Seed, false) == V{3, 2, 1, 0});
  CHECK(std::string(sweep_column_name(SweepColumn::Psnr)) == "psnr_db");
  r.pop_back();
  CHECK_THROWS(sweep_cell_order(plan, r, SweepColumn::Psnr, true));
}

} // namespace redraw
