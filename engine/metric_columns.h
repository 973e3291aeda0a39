#pragma once
/// The metrics vocabulary: one entry per column of a run's history (MetricsRow), read by every place
/// that writes, keeps or shows one:
/// - metrics.csv, the CLI's and the GUI's curves export alike (metrics_csv below: the one writer);
/// - the .redraw model (engine/model_files: HIST rows, the CURV chunk, the MCOL chunk);
/// - the GUI's plots (ui/panels/plots_panel.cpp: one plot per column with a plot title);
/// - `redraw info --json`'s last_metrics and the Python module's rows.
/// A new metric is a field in MetricsRow, its measurement (engine/training/metric_sampler.cpp, and
/// lagged_rows.cpp for a backend that measures inside its step) and one entry here, coded Extra.
#include "engine/metrics.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace redraw {

/// How a column's cells are written.
enum class MetricKind {
  Integer, ///< "%lld" of the value
  Real,    ///< the column's printf format of the value
  Text,    ///< the column's text()
};

/// How a column is kept in a .redraw model.
enum class MetricCoding {
  HistI64,    ///< an i64 of each HIST row (and frame record), in table order
  HistF64,    ///< an f64 of each HIST row (and frame record), in table order
  CurvExact,  ///< the CURV chunk's list of exact rows (engine/model_files/curves_chunk.h)
  Extra,      ///< an f64 per row in the MCOL chunk, found by name; NaN in a model without it. Every
              ///< column added after HIST's layout was fixed: HIST's rows keep their size.
};

/// How the GUI plots a column (title null: not plotted; then nothing else is read).
struct MetricPlot {
  const char* title = nullptr;
  bool log_y = false;
  uint8_t rgb[3] = {90, 170, 255}; ///< run A's line colour
  bool exact_marks = false;        ///< its rows are marked by psnr_exact (exact dots among sampled)
  bool step_trace = false;         ///< every step's loss (the run's LossTrace) shaded under it
};

struct MetricColumn {
  const char* name = "";  ///< metrics.csv's header, the model's MCOL name, info's and Python's key
  MetricKind kind = MetricKind::Real;
  const char* format = "%.9g"; ///< printf format of a Real cell
  MetricCoding coding = MetricCoding::Extra;
  bool in_event_rows = false; ///< filled in metrics.csv's recovery rows (step and seconds), else empty there
  double (*get)(const MetricsRow&) = nullptr;     ///< the value (an Integer's as a double, for plots)
  void (*set)(MetricsRow&, double) = nullptr;     ///< null for a column kept elsewhere (CurvExact)
  int64_t (*get_i64)(const MetricsRow&) = nullptr; ///< an Integer column's value, exactly
  void (*set_i64)(MetricsRow&, int64_t) = nullptr;
  const char* (*text)(const MetricsRow&) = nullptr; ///< a Text column's cell
  MetricPlot plot = {};
};

/// The columns, in metrics.csv's order (its last column, `event`, is not a metric: see metrics_csv).
inline constexpr MetricColumn k_metric_columns[] = {
    {.name = "step",
     .kind = MetricKind::Integer,
     .coding = MetricCoding::HistI64,
     .in_event_rows = true,
     .get = [](const MetricsRow& r) { return double(r.step); },
     .get_i64 = [](const MetricsRow& r) { return r.step; },
     .set_i64 = [](MetricsRow& r, int64_t v) { r.step = v; }},
    {.name = "loss",
     .format = "%.9g",
     .coding = MetricCoding::HistF64,
     .get = [](const MetricsRow& r) { return r.loss; },
     .set = [](MetricsRow& r, double v) { r.loss = v; },
     .plot = {"loss (log)", true, {90, 170, 255}, false, true}},
    {.name = "psnr_db",
     .format = "%.6f",
     .coding = MetricCoding::HistF64,
     .get = [](const MetricsRow& r) { return r.psnr_db; },
     .set = [](MetricsRow& r, double v) { r.psnr_db = v; },
     .plot = {"PSNR (dB)", false, {110, 220, 130}, true}},
    {.name = "psnr_from",
     .kind = MetricKind::Text,
     .coding = MetricCoding::CurvExact,
     .get = [](const MetricsRow& r) { return r.psnr_exact ? 1.0 : 0.0; },
     .text = psnr_source},
    {.name = "lr",
     .format = "%.9g",
     .coding = MetricCoding::HistF64,
     .get = [](const MetricsRow& r) { return r.lr; },
     .set = [](MetricsRow& r, double v) { r.lr = v; },
     .plot = {"learning rate (log)", true, {255, 170, 60}}},
    {.name = "seconds",
     .format = "%.4f",
     .coding = MetricCoding::HistF64,
     .in_event_rows = true,
     .get = [](const MetricsRow& r) { return r.seconds; },
     .set = [](MetricsRow& r, double v) { r.seconds = v; }},
};
inline constexpr size_t k_metric_column_count = std::size(k_metric_columns);

/// The index of the column named `name`; k_metric_column_count when none is.
constexpr size_t metric_index(std::string_view name) {
  for (size_t i = 0; i < k_metric_column_count; ++i)
    if (name == k_metric_columns[i].name) return i;
  return k_metric_column_count;
}

/// Bytes of one HIST row: the HistI64 and HistF64 columns, 8 each.
constexpr size_t metric_hist_row_bytes() {
  size_t n = 0;
  for (const MetricColumn& c : k_metric_columns)
    n += c.coding == MetricCoding::HistI64 || c.coding == MetricCoding::HistF64 ? 8 : 0;
  return n;
}

/// The number of Extra columns (the MCOL chunk is written only when there is one).
constexpr size_t metric_extra_count() {
  size_t n = 0;
  for (const MetricColumn& c : k_metric_columns) n += c.coding == MetricCoding::Extra ? 1 : 0;
  return n;
}

/// One cell of metrics.csv for `row` (no quoting: no column's text holds a comma).
std::string metric_cell(const MetricColumn& c, const MetricsRow& row);

/// metrics.csv: a header of the columns and `event`, then a row per history row, with a row for each
/// recovery from a divergence placed where the run went back to (only its in_event_rows columns
/// filled, its `event` column saying what happened).
std::string metrics_csv(const std::vector<MetricsRow>& rows, const std::vector<RecoveryEvent>& events);

} // namespace redraw
