// The result vocabularies (engine/sweep/result_columns.h, engine/bench/bench_columns.h): every
// entry of either table goes through every writer and reader with no other edit, so a new column
// is one entry. Each column gets its own value, distinct from the others', and must come back from
// result.json, results.csv and bench.json; a value outside an entry's range is refused naming the
// column.
#include "engine/bench/bench_columns.h"
#include "engine/bench/bench_measurement.h"
#include "engine/errors.h"
#include "engine/sweep/result_columns.h"
#include "engine/sweep/sweep_plan.h"
#include "engine/sweep/sweep_results.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <set>
#include <string>

namespace redraw {
namespace {

/// A value inside [lo, hi] that differs for each column index k (and is exact in the CSV formats).
double value_for(double lo, double hi, size_t k) {
  const double mid = std::isfinite(hi - lo) && hi - lo < 1e6 ? lo + (hi - lo) * 0.25 : 100.0;
  return std::round((mid + 0.125 * double(k + 1)) * 8) / 8;
}

CellResult every_column_set() {
  CellResult r;
  r.status = CellStatus::Done;
  size_t k = 0;
  for (const ResultColumn& c : result_columns()) {
    if (c.kind == ResultKind::Text)
      r.*c.text = std::string("text of ") + c.name + ", \"quoted\"";
    else if (c.kind == ResultKind::Count)
      c.set_count(r, int64_t(1000 + k));
    else
      c.set(r, value_for(c.lo, c.hi, k));
    ++k;
  }
  return r;
}

SweepPlan one_cell_plan() {
  SweepPlan plan;
  plan.grid.images = {"/data/a.png"};
  plan.grid.presets = {"siren"};
  SweepCell cell;
  cell.name = "000-a-siren-s1";
  cell.image = "/data/a.png";
  cell.preset = "siren";
  plan.cells.push_back(cell);
  return plan;
}

} // namespace

TEST_CASE("result columns: names are unique, each entry is complete for its kind, and the ranks of the summary too") {
  std::set<std::string> names = {"cell", "image", "preset", "seed", "status"}; // results.csv's fixed columns
  std::set<int> ranks;
  for (const ResultColumn& c : result_columns()) {
    CAPTURE(c.name);
    CHECK(names.insert(c.name).second);
    CHECK(find_result_column(c.name) == &c);
    if (c.kind == ResultKind::Text) CHECK(c.text != nullptr);
    if (c.kind == ResultKind::Count) CHECK((c.get_count && c.set_count && c.get));
    if (c.kind == ResultKind::Real) CHECK((c.get && c.set && c.lo < c.hi && *c.range));
    if (c.summary_rank > 0) CHECK(ranks.insert(c.summary_rank).second);
  }
  CHECK(find_result_column("nope") == nullptr);
  CHECK(summarized_result_columns().size() == ranks.size());
}

TEST_CASE("result columns: every column's figure comes back from result.json and from results.csv") {
  const SweepPlan plan = one_cell_plan();
  const CellResult r = every_column_set();
  const CellResult json_back = parse_cell_result(cell_result_json(plan.cells[0], r), "result.json");
  const std::vector<CellResult> csv_back = parse_results_csv(results_csv(plan, {r}));
  REQUIRE(csv_back.size() == 1);
  for (const ResultColumn& c : result_columns()) {
    CAPTURE(c.name);
    if (c.kind == ResultKind::Text) {
      CHECK(json_back.*c.text == r.*c.text);
      CHECK(csv_back[0].*c.text == r.*c.text);
    } else {
      CHECK(c.get(json_back) == c.get(r));
      CHECK(c.get(csv_back[0]) == c.get(r)); // the values are exact in every column's format
    }
  }
  // A cell not done: its done_only figures are empty in results.csv, the rest are written.
  CellResult failed = r;
  failed.status = CellStatus::Failed;
  const CellResult failed_back = parse_results_csv(results_csv(plan, {failed}))[0];
  for (const ResultColumn& c : result_columns())
    if (c.done_only) {
      CAPTURE(c.name);
      CHECK(result_cell_text(c, failed).empty());
      CHECK(c.get(failed_back) == 0);
    }
}

TEST_CASE("result columns: a result.json figure outside its column's range is refused, naming the column") {
  const SweepPlan plan = one_cell_plan();
  const nlohmann::json good = nlohmann::json::parse(cell_result_json(plan.cells[0], every_column_set()));
  for (const ResultColumn& c : result_columns()) {
    if (c.kind == ResultKind::Text) continue;
    CAPTURE(c.name);
    nlohmann::json j = good;
    j[c.name] = c.kind == ResultKind::Count ? nlohmann::json(-1) : nlohmann::json(c.hi * 2 + 1);
    const std::string named = std::string("cells/x/result.json: ") + c.name + ": ";
    CHECK_THROWS_WITH_AS(parse_cell_result(j.dump(), "cells/x/result.json"), doctest::Contains(named.c_str()),
                         ConfigError);
    if (!c.optional) {
      j.erase(c.name);
      CHECK_THROWS_AS(parse_cell_result(j.dump(), "cells/x/result.json"), ConfigError);
    }
  }
}

TEST_CASE("bench columns: every measured column comes back from bench.json, every sweep column names a result column") {
  BenchMeasurement m;
  size_t k = 0, in_csv = 0;
  std::set<std::string> names;
  for (const BenchColumn& c : bench_columns()) {
    CAPTURE(c.name);
    CHECK(names.insert(c.name).second);
    in_csv += c.in_csv;
    if (c.source == BenchSource::Result) CHECK(find_result_column(c.result) != nullptr);
    if (c.source == BenchSource::Cell) CHECK(bool(c.text));
    if (c.source != BenchSource::Measured) continue;
    if (c.kind == ResultKind::Text)
      m.*c.field = c.choices[k % 2 == 0 || !c.choices[1] ? 0 : 1];
    else if (c.kind == ResultKind::Count)
      c.set_count(m, int64_t(7 + k));
    else
      c.set(m, value_for(c.lo, c.hi, k));
    ++k;
  }
  CHECK(k >= 1);
  const BenchMeasurement back = parse_bench_measurement(bench_measurement_json(m), "bench.json");
  for (const BenchColumn& c : bench_columns()) {
    if (c.source != BenchSource::Measured) continue;
    CAPTURE(c.name);
    if (c.kind == ResultKind::Text)
      CHECK(back.*c.field == m.*c.field);
    else if (c.kind == ResultKind::Count)
      CHECK(c.get_count(back) == c.get_count(m));
    else
      CHECK(c.get(back) == c.get(m));
    // out of range (or not a choice): refused, naming the file and the column
    nlohmann::json j = bench_measurement_json(m);
    j[c.name] = c.kind == ResultKind::Text ? nlohmann::json("elsewhere") : nlohmann::json(-1);
    const std::string named = std::string("cells/x/bench.json: ") + c.name + ": ";
    CHECK_THROWS_WITH_AS(parse_bench_measurement(j, "cells/x/bench.json"), doctest::Contains(named.c_str()),
                         ConfigError);
  }
  BenchCell cell;
  cell.method = "instant";
  cell.measured = m;
  const std::string csv = bench_results_csv({cell});
  const auto rows = parse_csv(csv);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].size() == in_csv);
  CHECK(rows[1].size() == in_csv);
  CHECK(rows[0][0] == "method");
  CHECK(rows[1][0] == "instant");
}

} // namespace redraw
