#pragma once
/// A sweep's folder as its readers see it (the CLI's runner and collector, the app's sweep
/// browser): each cell's state read from its folder, and the cells in the order of a column.
/// - A cell with DIR/cells/<name>/result.json has ended (done or failed, as it says); one with a
///   model.redraw and no result is Unfinished (a checkpoint: the next run resumes it); else Pending.
///   A result.json that cannot be read (or is not a regular file: a FIFO, a device; or is over
///   1 MiB) is a Failed cell whose error names the file, read without blocking; so is a cell
///   whose folder (or DIR/cells) is a symbolic link or not a folder (cell_folder_problem).
/// - Sorting is stable; a value that is missing (NaN: not measured, or a cell that has not ended)
///   sorts after every measured one in both directions, so the best cells come first.
#include "engine/sweep/sweep_results.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <vector>

namespace redraw {

/// The state of `cell` of the sweep in `dir`, from its folder. Never throws.
CellResult read_cell_result(const std::filesystem::path& dir, const SweepCell& cell);
/// Every cell's, in the plan's order.
std::vector<CellResult> read_sweep_results(const std::filesystem::path& dir, const SweepPlan& plan);

/// The columns a sweep's cells sort by.
enum class SweepColumn : int32_t {
  Cell = 0,
  Image,
  Preset,
  Seed,
  Status,
  Steps,
  Seconds,
  Psnr,
  Ssim,
  Parameters,
  ModelBytes
};
/// Its name as results.csv heads it ("psnr_db").
const char* sweep_column_name(SweepColumn c);
inline constexpr int32_t k_sweep_column_count = 11;

/// Indices into `plan.cells` (and `results`, one per cell) ordered by `column`.
std::vector<size_t> sweep_cell_order(const SweepPlan& plan, const std::vector<CellResult>& results, SweepColumn column,
                                     bool descending);

} // namespace redraw
