#pragma once
/// The bench's result vocabulary: one entry per column of `redraw bench`'s results.csv, read by every
/// place that writes, checks or reads one:
/// - a column the bench measures itself (source Measured) is kept in each done cell's bench.json
///   (bench_measurement_json / parse_bench_measurement, every value checked in the entry's range);
/// - a column the sweep measured (source Result) is the sweep's result column of that name
///   (engine/sweep/result_columns.h);
/// - results.csv (bench_results_csv) writes every entry with in_csv, in this order.
/// A new bench figure is a field in BenchMeasurement, its measurement (app/cli_bench_measure.cpp) and
/// one entry here.
#include "engine/bench/bench_table.h"
#include "engine/sweep/result_columns.h"

#include <span>
#include <string>

namespace redraw {

enum class BenchSource {
  Cell,     ///< the cell's method, image, budget or status (text())
  Result,   ///< the sweep's result column named `result`
  Measured, ///< a BenchMeasurement field, kept in bench.json
};

struct BenchColumn {
  const char* name = ""; ///< results.csv's header; bench.json's key for a Measured column
  BenchSource source = BenchSource::Measured;
  const char* result = nullptr;            ///< Result: the sweep's result column
  std::string (*text)(const BenchCell&) = nullptr; ///< Cell: its results.csv cell
  bool in_csv = true;
  // Measured:
  ResultKind kind = ResultKind::Real;
  double lo = 0, hi = 0;  ///< the range bench.json's value must lie in (a Count: [0, hi])
  const char* range = ""; ///< [lo, hi] in words ("[0, 1000] dB")
  bool inf_ok = false;    ///< "inf" is allowed (an exact fit)
  int csv_digits = 6;     ///< decimals of a Real in results.csv
  const char* const* choices = nullptr; ///< a Text's allowed values, null-terminated ("" is not kept)
  double (*get)(const BenchMeasurement&) = nullptr;
  void (*set)(BenchMeasurement&, double) = nullptr;
  int64_t (*get_count)(const BenchMeasurement&) = nullptr;
  void (*set_count)(BenchMeasurement&, int64_t) = nullptr;
  std::string BenchMeasurement::* field = nullptr; ///< a Measured Text's field
};

/// The columns, in results.csv's order.
std::span<const BenchColumn> bench_columns();

/// A column's results.csv cell for `c` ("" for a figure not measured).
std::string bench_cell_text(const BenchColumn& col, const BenchCell& c);

} // namespace redraw
