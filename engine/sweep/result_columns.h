#pragma once
/// The result vocabulary: one entry per figure of a sweep cell's result (CellResult), read by every
/// place that writes, checks or shows one:
/// - a cell's result.json (cell_result_json / parse_cell_result: each figure checked in its range);
/// - results.csv (results_csv / parse_results_csv) and summary.csv's spreads (summarize);
/// - report.html's tables (app/cli_sweep_report.cpp) and `redraw bench`'s results.csv, whose
///   sweep columns are these (engine/bench/bench_table.cpp).
/// A new result figure is a field in CellResult, its measurement (app/cli_sweep_cell.cpp) and one
/// entry here; mark it `optional` so a result.json written before it still reads (with 0 / NaN).
#include "engine/sweep/sweep_results.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace redraw {

/// How a result column's figure is kept.
enum class ResultKind {
  Count, ///< a whole number in [0, hi] (int64 in CellResult)
  Real,  ///< a double in [lo, hi] (NaN or +inf where allowed)
  Text,  ///< a string
};

struct ResultColumn {
  const char* name = ""; ///< result.json's key, results.csv's and report.html's column
  const char* title = ""; ///< report.html's words for a summarized column ("PSNR dB")
  ResultKind kind = ResultKind::Real;
  double lo = 0, hi = 0;   ///< the range result.json's figure must lie in (Count: hi only)
  const char* range = "";  ///< [lo, hi] in words, for the error ("[0, 1e9] s")
  bool nan_ok = false;     ///< NaN (not measured) is allowed: null or "nan" in result.json
  bool inf_ok = false;     ///< +inf is allowed: "inf" in result.json (an exact fit)
  bool optional = false;   ///< absent in a result.json written before it: 0 / NaN / "" then
  const char* format = "%.6g"; ///< printf of a Real cell in results.csv and summary.csv
  bool done_only = false;      ///< results.csv's cell is empty unless the cell is done
  bool zero_empty = false;     ///< a Count of 0 is written empty (not known)
  int summary_rank = 0;        ///< > 0: summary.csv has its mean, stddev, min and max over the done
                               ///< cells, the columns in rank order (psnr_db leads)
  int report_digits = -1;      ///< report.html shows it with this many decimals (-1: not shown)
  double (*get)(const CellResult&) = nullptr; ///< a Count's or Real's value
  void (*set)(CellResult&, double) = nullptr;
  int64_t (*get_count)(const CellResult&) = nullptr; ///< a Count's value, exactly
  void (*set_count)(CellResult&, int64_t) = nullptr;
  std::string CellResult::* text = nullptr; ///< a Text column's field
};

/// The columns, in results.csv's and result.json's order (status leads them; it is the cell's
/// state, not a figure, and is kept by cell_status_name).
std::span<const ResultColumn> result_columns();
/// The columns summary.csv spreads, in their summary_rank order.
std::vector<const ResultColumn*> summarized_result_columns();
/// The column named `name`; null when there is none.
const ResultColumn* find_result_column(std::string_view name);

/// A cell of results.csv: "" for NaN, "inf" for +infinity, else the column's format; a Count as a
/// whole number ("" for 0 when zero_empty); "" for a done_only column of a cell not done.
std::string result_cell_text(const ResultColumn& c, const CellResult& r);
/// Sets the column of `r` from a results.csv cell (the reverse of result_cell_text; "" is 0 / NaN).
/// ConfigError naming results.csv, the column and the text when it is not a number.
void set_result_from_text(const ResultColumn& c, CellResult& r, const std::string& text);

} // namespace redraw
