#include "engine/sweep/result_columns.h"

#include "engine/errors.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace redraw {

namespace {
constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();

/// The columns (result_columns.h says what reads them). Ranges: result.json may be edited by hand or
/// damaged, so every figure is checked before it reaches a table.
constexpr ResultColumn k_result_columns[] = {
    {.name = "steps",
     .kind = ResultKind::Count,
     .hi = double(std::numeric_limits<int64_t>::max()),
     .done_only = true,
     .report_digits = 0,
     .get = [](const CellResult& r) { return double(r.steps); },
     .get_count = [](const CellResult& r) { return r.steps; },
     .set_count = [](CellResult& r, int64_t v) { r.steps = v; }},
    {.name = "seconds",
     .title = "seconds",
     .hi = k_max_result_seconds,
     .range = "[0, 1e9] s",
     .format = "%.3f",
     .done_only = true,
     .summary_rank = 3,
     .report_digits = 1,
     .get = [](const CellResult& r) { return r.seconds; },
     .set = [](CellResult& r, double v) { r.seconds = v; }},
    {.name = "psnr_db",
     .title = "PSNR dB",
     .hi = k_max_result_psnr_db,
     .range = "[0, 1000] dB",
     .nan_ok = true,
     .inf_ok = true,
     .format = "%.4f",
     .summary_rank = 1,
     .report_digits = 2,
     .get = [](const CellResult& r) { return r.psnr_db; },
     .set = [](CellResult& r, double v) { r.psnr_db = v; }},
    {.name = "ssim",
     .title = "SSIM",
     .lo = -1,
     .hi = 1,
     .range = "[-1, 1]",
     .nan_ok = true,
     .format = "%.6f",
     .summary_rank = 2,
     .report_digits = 4,
     .get = [](const CellResult& r) { return r.ssim; },
     .set = [](CellResult& r, double v) { r.ssim = v; }},
    {.name = "parameters",
     .kind = ResultKind::Count,
     .hi = double(std::numeric_limits<int64_t>::max()),
     .zero_empty = true,
     .report_digits = 0,
     .get = [](const CellResult& r) { return double(r.parameters); },
     .get_count = [](const CellResult& r) { return r.parameters; },
     .set_count = [](CellResult& r, int64_t v) { r.parameters = v; }},
    {.name = "model_bytes",
     .kind = ResultKind::Count,
     .hi = double(std::numeric_limits<int64_t>::max()),
     .zero_empty = true,
     .report_digits = 0,
     .get = [](const CellResult& r) { return double(r.model_bytes); },
     .get_count = [](const CellResult& r) { return r.model_bytes; },
     .set_count = [](CellResult& r, int64_t v) { r.model_bytes = v; }},
    {.name = "backend", .kind = ResultKind::Text, .report_digits = 0, .text = &CellResult::backend},
    {.name = "threads",
     .kind = ResultKind::Count,
     .hi = double(std::numeric_limits<int32_t>::max()),
     .zero_empty = true,
     .get = [](const CellResult& r) { return double(r.threads); },
     .get_count = [](const CellResult& r) { return int64_t(r.threads); },
     .set_count = [](CellResult& r, int64_t v) { r.threads = int32_t(v); }},
    {.name = "wall_seconds",
     .hi = k_max_result_seconds,
     .range = "[0, 1e9] s",
     .format = "%.3f",
     .done_only = true,
     .get = [](const CellResult& r) { return r.wall_seconds; },
     .set = [](CellResult& r, double v) { r.wall_seconds = v; }},
    {.name = "peak_host_bytes",
     .kind = ResultKind::Count,
     .hi = double(std::numeric_limits<int64_t>::max()),
     .optional = true,
     .zero_empty = true,
     .get = [](const CellResult& r) { return double(r.peak_host_bytes); },
     .get_count = [](const CellResult& r) { return r.peak_host_bytes; },
     .set_count = [](CellResult& r, int64_t v) { r.peak_host_bytes = v; }},
    {.name = "peak_device_bytes",
     .kind = ResultKind::Count,
     .hi = double(std::numeric_limits<int64_t>::max()),
     .optional = true,
     .zero_empty = true,
     .get = [](const CellResult& r) { return double(r.peak_device_bytes); },
     .get_count = [](const CellResult& r) { return r.peak_device_bytes; },
     .set_count = [](CellResult& r, int64_t v) { r.peak_device_bytes = v; }},
    {.name = "error", .kind = ResultKind::Text, .text = &CellResult::error},
};

std::string formatted_number(double v, const char* format) {
  if (std::isnan(v)) return "";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char b[64];
  std::snprintf(b, sizeof b, format, v);
  return b;
}
} // namespace

std::span<const ResultColumn> result_columns() { return k_result_columns; }

std::vector<const ResultColumn*> summarized_result_columns() {
  std::vector<const ResultColumn*> out;
  for (const ResultColumn& c : k_result_columns)
    if (c.summary_rank > 0) out.push_back(&c);
  std::stable_sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->summary_rank < b->summary_rank; });
  return out;
}

const ResultColumn* find_result_column(std::string_view name) {
  for (const ResultColumn& c : k_result_columns)
    if (name == c.name) return &c;
  return nullptr;
}

std::string result_cell_text(const ResultColumn& c, const CellResult& r) {
  if (c.done_only && r.status != CellStatus::Done) return ""; // a failed or stopped cell's figure is not its result
  switch (c.kind) {
  case ResultKind::Text:
    return r.*c.text;
  case ResultKind::Count: {
    const int64_t v = c.get_count(r);
    return c.zero_empty && v == 0 ? "" : std::to_string(v);
  }
  case ResultKind::Real:
    break;
  }
  return formatted_number(c.get(r), c.format);
}

void set_result_from_text(const ResultColumn& c, CellResult& r, const std::string& text) {
  if (c.kind == ResultKind::Text) {
    r.*c.text = text;
    return;
  }
  const auto bad = [&] { return ConfigError("results.csv: " + std::string(c.name) + ": '" + text + "' is not a number"); };
  if (c.kind == ResultKind::Count) {
    if (text.empty()) return c.set_count(r, 0);
    char* end = nullptr;
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (end != text.c_str() + text.size() || v < 0) throw bad();
    return c.set_count(r, int64_t(v));
  }
  if (text.empty()) return c.set(r, c.done_only ? 0.0 : k_nan);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) throw bad();
  c.set(r, v);
}

} // namespace redraw
