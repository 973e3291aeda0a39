// A sweep's tables (engine/sweep/sweep_results.h): CSV quoting read back, result.json round trips,
// and the summary's spread against values worked by hand.
#include "engine/errors.h"
#include "engine/sweep/sweep_results.h"

#include <nlohmann/json.hpp>

#include <doctest/doctest.h>

#include <cmath>

namespace redraw {
namespace {

/// Two images x two values of one axis, one seed.
SweepPlan small_plan() {
  SweepPlan plan;
  plan.grid.axes = {{"model.omega_0", {"20", "30"}}};
  for (const char* image : {"/data/a.png", "/data/b,c.png"})
    for (const char* v : {"20", "30"}) {
      SweepCell c;
      c.index = int64_t(plan.cells.size());
      c.name = std::to_string(c.index) + "-cell";
      c.image = image;
      c.preset = "siren";
      c.values = {v};
      plan.cells.push_back(c);
    }
  return plan;
}

CellResult finished_cell(double psnr, double ssim, double seconds) {
  CellResult r;
  r.status = CellStatus::Done;
  r.steps = 100;
  r.psnr_db = psnr;
  r.ssim = ssim;
  r.seconds = seconds;
  r.parameters = 1234;
  r.model_bytes = 5678;
  r.backend = "cpu";
  r.threads = 1;
  return r;
}

} // namespace

TEST_CASE("sweep results: results.csv quotes what needs it and reads back") {
  const SweepPlan plan = small_plan();
  CellResult failed;
  failed.status = CellStatus::Failed;
  failed.error = "photo.png: the file ends early, \"badly\"\nsecond line";
  const std::vector<CellResult> results = {finished_cell(30.5, 0.9, 10), failed, finished_cell(INFINITY, 1.0, 9.5), CellResult{}};
  const std::string csv = results_csv(plan, results);
  CHECK(csv.rfind("cell,image,preset,model.omega_0,seed,status,steps,seconds,psnr_db,ssim,parameters,model_bytes,"
                  "backend,threads,wall_seconds,peak_host_bytes,peak_device_bytes,error\n",
                  0) == 0);
  CHECK(csv.find("\"/data/b,c.png\"") != std::string::npos);
  std::vector<std::map<std::string, std::string>> columns;
  const std::vector<CellResult> back = parse_results_csv(csv, &columns);
  REQUIRE(back.size() == 4);
  CHECK(back[0].psnr_db == doctest::Approx(30.5));
  CHECK(back[0].ssim == doctest::Approx(0.9));
  CHECK(back[0].parameters == 1234);
  CHECK(back[1].status == CellStatus::Failed);
  CHECK(back[1].error == failed.error);
  CHECK(std::isinf(back[2].psnr_db));
  CHECK(back[3].status == CellStatus::Pending);
  CHECK(std::isnan(back[3].psnr_db));
  CHECK(columns[2]["image"] == "/data/b,c.png");
  CHECK(columns[1]["model.omega_0"] == "30");
  CHECK_THROWS_AS(parse_results_csv("a,b\n1\n"), ConfigError);
  CHECK_THROWS_AS(parse_csv("a,\"b\n"), ConfigError);
}

TEST_CASE("sweep results: result.json reads back, an exact fit included") {
  const SweepPlan plan = small_plan();
  CellResult r = finished_cell(INFINITY, 0.75, 3.25);
  r.error = "SSIM not measured: gone";
  const CellResult back = parse_cell_result(cell_result_json(plan.cells[0], r), "result.json");
  CHECK(back.status == CellStatus::Done);
  CHECK(std::isinf(back.psnr_db));
  CHECK(back.ssim == 0.75);
  CHECK(back.seconds == 3.25);
  CHECK(back.error == r.error);
  CHECK(std::isnan(parse_cell_result(cell_result_json(plan.cells[0], CellResult{}), "x").ssim));
  CHECK_THROWS_AS(parse_cell_result("{\"status\": \"done\"}", "x"), ConfigError);
  CHECK_THROWS_AS(parse_cell_result("{\"status\": \"finished\"}", "x"), ConfigError);
}

TEST_CASE("sweep results: a cell's peak host and device memory read back; a result.json written before them has 0") {
  const SweepPlan plan = small_plan();
  CellResult r = finished_cell(30, 0.9, 2);
  r.peak_host_bytes = int64_t(5) << 30;
  r.peak_device_bytes = (int64_t(3) << 30) + 7;
  const CellResult back = parse_cell_result(cell_result_json(plan.cells[0], r), "result.json");
  CHECK(back.peak_host_bytes == int64_t(5) << 30);
  CHECK(back.peak_device_bytes == (int64_t(3) << 30) + 7);
  std::string old = cell_result_json(plan.cells[0], r);
  for (const char* key : {"\"peak_host_bytes\"", "\"peak_device_bytes\""}) {
    const size_t at = old.find(key);
    REQUIRE(at != std::string::npos);
    old.erase(at, old.find('\n', at) + 1 - at);
  }
  const CellResult before = parse_cell_result(old, "old.json");
  CHECK(before.peak_host_bytes == 0);
  CHECK(before.peak_device_bytes == 0);
}

TEST_CASE("sweep results: a result.json figure out of its range is refused, naming the file and the field") {
  const SweepPlan plan = small_plan();
  const std::string good = cell_result_json(plan.cells[0], finished_cell(30, 0.9, 2));
  const nlohmann::json base = nlohmann::json::parse(good);
  /// The error of `good` with `key` set to `value`, or "(no error)".
  const auto error_with = [&](const char* key, const nlohmann::json& value) -> std::string {
    nlohmann::json j = base;
    j[key] = value;
    try {
      (void)parse_cell_result(j.dump(), "cells/x/result.json");
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "(no error)";
  };
  CHECK(error_with("psnr_db", 1e308) == "cells/x/result.json: psnr_db: 1e+308 is outside [0, 1000] dB");
  CHECK(error_with("psnr_db", -3) == "cells/x/result.json: psnr_db: -3 is outside [0, 1000] dB");
  CHECK(error_with("psnr_db", "-inf") == "cells/x/result.json: psnr_db: \"-inf\" is outside [0, 1000] dB");
  CHECK(error_with("psnr_db", "loud") == "cells/x/result.json: psnr_db: \"loud\" is not a number");
  CHECK(error_with("ssim", 1.5) == "cells/x/result.json: ssim: 1.5 is outside [-1, 1]");
  CHECK(error_with("seconds", -1) == "cells/x/result.json: seconds: -1 is outside [0, 1e9] s");
  CHECK(error_with("seconds", 1e300) == "cells/x/result.json: seconds: 1e+300 is outside [0, 1e9] s");
  CHECK(error_with("seconds", "nan") == "cells/x/result.json: seconds: \"nan\" is outside [0, 1e9] s");
  CHECK(error_with("wall_seconds", -0.5) == "cells/x/result.json: wall_seconds: -0.5 is outside [0, 1e9] s");
  CHECK(error_with("steps", -2) == "cells/x/result.json: steps: -2 is not a whole number of at least 0");
  CHECK(error_with("parameters", 1.5) == "cells/x/result.json: parameters: 1.5 is not a whole number of at least 0");
  CHECK(error_with("peak_host_bytes", "x") ==
        "cells/x/result.json: peak_host_bytes: \"x\" is not a whole number of at least 0");
  CHECK(error_with("threads", -1) == "cells/x/result.json: threads: -1 is not a whole number in [0, 2147483647]");
  CHECK(error_with("threads", 3000000000LL) ==
        "cells/x/result.json: threads: 3000000000 is not a whole number in [0, 2147483647]");
  // The edges are in range, and so are the figures a cell that did not measure them writes.
  CHECK(error_with("psnr_db", 1000) == "(no error)");
  CHECK(error_with("psnr_db", "inf") == "(no error)");
  CHECK(error_with("psnr_db", "") == "(no error)"); // not measured
  CHECK(error_with("ssim", -1) == "(no error)");
  CHECK(error_with("seconds", 0) == "(no error)");
}

TEST_CASE("sweep summary: mean, sample standard deviation, min and max per configuration") {
  const Spread s = spread_of({1, 2, 3, 4});
  CHECK(s.count == 4);
  CHECK(s.mean == 2.5);
  CHECK(s.stddev == doctest::Approx(std::sqrt(5.0 / 3.0))); // squares 2.25+0.25+0.25+2.25 over n - 1
  CHECK(s.min == 1);
  CHECK(s.max == 4);
  CHECK(spread_of({7}).stddev == 0);
  CHECK(std::isnan(spread_of({}).mean));

  const SweepPlan plan = small_plan();
  CellResult failed;
  failed.status = CellStatus::Failed;
  // omega 20: cells 0 and 2 (PSNR 20 and 24); omega 30: cell 1 failed, cell 3 done (PSNR 30).
  const auto rows = summarize(plan, {finished_cell(20, 0.5, 10), failed, finished_cell(24, 0.7, 12), finished_cell(30, 0.9, 11)});
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].configuration == "siren model.omega_0=20");
  CHECK(rows[0].cells == std::vector<int64_t>{0, 2});
  CHECK(rows[0].done == 2);
  CHECK(rows[0].spread("psnr_db").mean == 22);
  CHECK(rows[0].spread("psnr_db").stddev == doctest::Approx(std::sqrt(8.0)));
  CHECK(rows[0].spread("ssim").mean == doctest::Approx(0.6));
  CHECK(rows[0].spread("seconds").max == 12);
  CHECK(rows[1].failed == 1);
  CHECK(rows[1].done == 1);
  CHECK(rows[1].spread("psnr_db").mean == 30);
  CHECK(rows[1].spread("psnr_db").stddev == 0);
  const std::string csv = summary_csv(plan, rows);
  CHECK(csv.rfind("preset,model.omega_0,cells,done,failed,psnr_db_mean,psnr_db_stddev,psnr_db_min,psnr_db_max,", 0) ==
        0);
  CHECK(csv.find("\nsiren,20,2,2,0,22.0000,2.8284,20.0000,24.0000,0.600000,") != std::string::npos);
  CHECK(csv.find("\nsiren,30,2,1,1,30.0000,0.0000,30.0000,30.0000,") != std::string::npos);
}

} // namespace redraw
