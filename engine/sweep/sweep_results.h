#pragma once
/// What each cell of a sweep gave, and the tables made from it.
/// - DIR/cells/<name>/result.json: a cell's CellResult, written atomically when its run ends
///   (done or failed). A done cell is never trained again; a cell with no result has not ended.
/// - DIR/results.csv: one row per cell, in the plan's order:
///   cell,image,preset,<one column per swept field, named by its key>,seed,status, then a column per
///   entry of the result table (result_columns.h): steps,seconds,psnr_db,ssim,parameters,
///   model_bytes,backend,threads,wall_seconds,peak_host_bytes,peak_device_bytes,error
///   (RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled).
/// - DIR/summary.csv: one row per configuration (preset and swept values) over its images and
///   seeds: how many cells, done and failed, and the mean, sample standard deviation, minimum and
///   maximum of PSNR, SSIM and seconds over the done cells (empty when none is done).
#include "engine/sweep/sweep_plan.h"

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace redraw {

enum class CellStatus : int32_t {
  Pending = 0, ///< not started
  Unfinished,  ///< started and stopped (a checkpoint is there): the next run resumes it
  Done,        ///< trained to its end
  Failed,      ///< its run failed: `error` says why
};
const char* cell_status_name(CellStatus s);
/// ConfigError for an unknown name.
CellStatus parse_cell_status(const std::string& name);

struct CellResult {
  CellStatus status = CellStatus::Pending;
  int64_t steps = 0;
  double seconds = 0;                                        ///< training time, across resumes
  double psnr_db = std::numeric_limits<double>::quiet_NaN(); ///< exact, over every pixel; +inf: exact fit
  double ssim = std::numeric_limits<double>::quiet_NaN();    ///< against the image at the training size
  int64_t parameters = 0;
  int64_t model_bytes = 0; ///< model.redraw's size on disk (weights, optimizer state, timelapse)
  std::string backend;     ///< what it trained on ("cpu", "cuda")
  int32_t threads = 0;     ///< CPU threads it was given (0: train chose)
  double wall_seconds = 0; ///< its processes' wall time: start, training, saving, measuring
  int64_t peak_host_bytes = 0; ///< its train process's peak resident memory (this run's; 0: not known)
  int64_t peak_device_bytes = 0; ///< the device's memory in use at most while it trained (0: no device)
  std::string error;       ///< why it failed; "" otherwise
};

/// The highest finite PSNR a result may hold (the trainer's is of the clamped picture, so it is at
/// least 0; an exact fit is +inf), and the most seconds of training or wall time (about 31 years).
inline constexpr double k_max_result_psnr_db = 1000;
inline constexpr double k_max_result_seconds = 1e9;

/// result.json's text for `cell`; parse_cell_result reads it back, every figure checked: steps,
/// counts and bytes whole and >= 0, seconds finite in [0, k_max_result_seconds], psnr_db in
/// [0, k_max_result_psnr_db], +inf or not measured, ssim in [-1, 1] or not measured (ConfigError
/// naming `source` and the field).
std::string cell_result_json(const SweepCell& cell, const CellResult& r);
CellResult parse_cell_result(const std::string& text, const std::string& source);

/// results.csv's text; `results` has one entry per cell of `plan`.
std::string results_csv(const SweepPlan& plan, const std::vector<CellResult>& results);
/// Reads results.csv back, one CellResult per row; `columns`, when given, receives each row's
/// fields by column name (the swept values among them). ConfigError on a malformed file.
std::vector<CellResult> parse_results_csv(const std::string& text,
                                          std::vector<std::map<std::string, std::string>>* columns = nullptr);
/// The rows and fields of an RFC 4180 CSV text (quoted fields may hold commas, quotes, line breaks).
std::vector<std::vector<std::string>> parse_csv(const std::string& text);

/// Mean, sample standard deviation (n - 1; 0 for one value), minimum and maximum; count 0 and
/// NaNs when there are no values.
struct Spread {
  int64_t count = 0;
  double mean = std::numeric_limits<double>::quiet_NaN(), stddev = mean, min = mean, max = mean;
};
Spread spread_of(const std::vector<double>& values);

/// One configuration's cells and their spread.
struct ConfigurationSummary {
  std::string configuration; ///< SweepCell::configuration
  std::string preset;
  std::vector<std::string> values; ///< one per axis, JSON text
  std::vector<int64_t> cells{};    ///< indices into the plan's cells
  int64_t done = 0, failed = 0;
  /// One per summarized result column (result_columns.h), in their summary_rank order; NaN figures (not
  /// measured) are left out of their spread.
  std::vector<Spread> spreads{};
  /// The spread of the summarized column `name` (std::out_of_range for another name).
  const Spread& spread(std::string_view name) const;
};
/// The configurations in the order of their first cell.
std::vector<ConfigurationSummary> summarize(const SweepPlan& plan, const std::vector<CellResult>& results);
/// summary.csv's text: preset,<swept keys>,cells,done,failed, then mean, stddev, min and max of
/// each summarized result column (psnr_db, ssim, seconds).
std::string summary_csv(const SweepPlan& plan, const std::vector<ConfigurationSummary>& rows);

} // namespace redraw
