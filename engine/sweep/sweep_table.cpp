#include "engine/sweep/sweep_table.h"

#include "engine/errors.h"
#include "engine/path_problem.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace redraw {

namespace {
constexpr uint64_t k_max_result_bytes = uint64_t(1) << 20; ///< a result.json is a few hundred bytes

CellResult failed_with(std::string error) {
  CellResult r;
  r.status = CellStatus::Failed;
  r.error = std::move(error);
  return r;
}

/// A numeric column's value of a cell; NaN when it has none.
double column_value(const SweepCell& cell, const CellResult& r, SweepColumn column) {
  const bool ended = r.status == CellStatus::Done || r.status == CellStatus::Failed;
  switch (column) {
  case SweepColumn::Seed:
    return double(cell.seed);
  case SweepColumn::Status:
    return double(r.status);
  case SweepColumn::Steps:
    return ended ? double(r.steps) : NAN;
  case SweepColumn::Seconds:
    return ended ? r.seconds : NAN;
  case SweepColumn::Psnr:
    return r.psnr_db;
  case SweepColumn::Ssim:
    return r.ssim;
  case SweepColumn::Parameters:
    return r.parameters ? double(r.parameters) : NAN;
  case SweepColumn::ModelBytes:
    return r.model_bytes ? double(r.model_bytes) : NAN;
  default:
    return NAN;
  }
}

const std::string& column_text(const SweepCell& cell, SweepColumn column) {
  switch (column) {
  case SweepColumn::Image:
    return cell.image;
  case SweepColumn::Preset:
    return cell.preset;
  default:
    return cell.name;
  }
}
} // namespace

CellResult read_cell_result(const std::filesystem::path& dir, const SweepCell& cell) {
  const std::filesystem::path folder = cell_folder(dir, cell), file = folder / "result.json";
  if (const std::string why = cell_folder_problem(dir, cell); !why.empty()) return failed_with(why);
  std::error_code ec;
  if (std::filesystem::exists(file, ec)) {
    std::string text;
    if (const std::string why = read_user_text(file, k_max_result_bytes, "a cell's result", "1 MiB", text);
        !why.empty())
      return failed_with(why);
    try {
      return parse_cell_result(text, file.string());
    } catch (const Error& e) {
      return failed_with(e.what());
    }
  }
  CellResult r;
  r.status = std::filesystem::exists(folder / "model.redraw", ec) ? CellStatus::Unfinished : CellStatus::Pending;
  return r;
}

std::vector<CellResult> read_sweep_results(const std::filesystem::path& dir, const SweepPlan& plan) {
  std::vector<CellResult> out;
  out.reserve(plan.cells.size());
  for (const SweepCell& cell : plan.cells)
    out.push_back(read_cell_result(dir, cell));
  return out;
}

const char* sweep_column_name(SweepColumn c) {
  static const char* const names[k_sweep_column_count] = {
      "cell", "image", "preset", "seed", "status", "steps", "seconds", "psnr_db", "ssim", "parameters", "model_bytes"};
  const int32_t i = int32_t(c);
  return i >= 0 && i < k_sweep_column_count ? names[i] : "cell";
}

std::vector<size_t> sweep_cell_order(const SweepPlan& plan, const std::vector<CellResult>& results, SweepColumn column,
                                     bool descending) {
  if (results.size() != plan.cells.size())
    throw ConfigError("sweep table: " + std::to_string(results.size()) + " results for " +
                      std::to_string(plan.cells.size()) + " cells");
  std::vector<size_t> order(plan.cells.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  const bool text = column == SweepColumn::Cell || column == SweepColumn::Image || column == SweepColumn::Preset;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (text) {
      const int c = column_text(plan.cells[a], column).compare(column_text(plan.cells[b], column));
      return descending ? c > 0 : c < 0;
    }
    const double x = column_value(plan.cells[a], results[a], column),
                 y = column_value(plan.cells[b], results[b], column);
    if (std::isnan(x) || std::isnan(y)) return !std::isnan(x) && std::isnan(y); // missing values last
    return descending ? x > y : x < y;
  });
  return order;
}

} // namespace redraw
