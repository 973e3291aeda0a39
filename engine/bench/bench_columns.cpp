#include "engine/bench/bench_columns.h"

#include "engine/display_text.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace redraw {

namespace {
const char* const k_decode_paths[] = {"host", "device", nullptr};

/// The columns (bench_columns.h says what reads them). bench.json may be edited by hand or damaged,
/// so every Measured value is checked before it reaches a table.
constexpr BenchColumn k_bench_columns[] = {
    {.name = "method", .source = BenchSource::Cell, .text = [](const BenchCell& c) { return c.method; }},
    {.name = "image", .source = BenchSource::Cell, .text = [](const BenchCell& c) { return c.image; }},
    {.name = "budget", .source = BenchSource::Cell, .text = [](const BenchCell& c) { return std::to_string(c.budget); }},
    {.name = "status",
     .source = BenchSource::Cell,
     .text = [](const BenchCell& c) { return std::string(cell_status_name(c.result.status)); }},
    {.name = "steps", .source = BenchSource::Result, .result = "steps"},
    {.name = "train_seconds", .source = BenchSource::Result, .result = "seconds"},
    {.name = "psnr_db", .source = BenchSource::Result, .result = "psnr_db"},
    {.name = "psnr8_db",
     .hi = 1000,
     .range = "[0, 1000] dB",
     .inf_ok = true,
     .csv_digits = 4,
     .get = [](const BenchMeasurement& m) { return m.psnr8_db; },
     .set = [](BenchMeasurement& m, double v) { m.psnr8_db = v; }},
    {.name = "ms_ssim", // ms_ssim.h clamps each scale's term at 0
     .hi = 1,
     .range = "[0, 1]",
     .get = [](const BenchMeasurement& m) { return m.ms_ssim; },
     .set = [](BenchMeasurement& m, double v) { m.ms_ssim = v; }},
    {.name = "parameters", .source = BenchSource::Result, .result = "parameters"},
    {.name = "model_bytes", .source = BenchSource::Result, .result = "model_bytes"},
    {.name = "decode_fps",
     .lo = std::numeric_limits<double>::min(),
     .hi = std::numeric_limits<double>::max(),
     .range = "the positive numbers",
     .csv_digits = 2,
     .get = [](const BenchMeasurement& m) { return m.decode_fps; },
     .set = [](BenchMeasurement& m, double v) { m.decode_fps = v; }},
    {.name = "decode_threads", // the CPU thread setting the decoding was timed with
     .in_csv = false,
     .kind = ResultKind::Count,
     .hi = double(1 << 20),
     .get_count = [](const BenchMeasurement& m) { return int64_t(m.decode_threads); },
     .set_count = [](BenchMeasurement& m, int64_t v) { m.decode_threads = int32_t(v); }},
    {.name = "decode_path",
     .in_csv = false,
     .kind = ResultKind::Text,
     .choices = k_decode_paths,
     .field = &BenchMeasurement::decode_path},
    {.name = "peak_host_bytes", .source = BenchSource::Result, .result = "peak_host_bytes"},
    {.name = "peak_device_bytes", // the larger of train.log's and the decode's
     .kind = ResultKind::Count,
     .hi = double(int64_t(1) << 50),
     .get_count = [](const BenchMeasurement& m) { return m.peak_device_bytes; },
     .set_count = [](BenchMeasurement& m, int64_t v) { m.peak_device_bytes = v; }},
    {.name = "backend", .source = BenchSource::Result, .result = "backend"},
    {.name = "threads",
     .source = BenchSource::Cell,
     .text = [](const BenchCell& c) { return std::to_string(c.result.threads); }},
    {.name = "error", .source = BenchSource::Result, .result = "error"},
};

std::string csv_number(double v, int digits) {
  if (std::isnan(v)) return "";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}
} // namespace

std::span<const BenchColumn> bench_columns() { return k_bench_columns; }

std::string bench_cell_text(const BenchColumn& col, const BenchCell& c) {
  switch (col.source) {
  case BenchSource::Cell:
    return csv_field(col.text(c));
  case BenchSource::Result:
    return csv_field(result_cell_text(*find_result_column(col.result), c.result));
  case BenchSource::Measured:
    break;
  }
  switch (col.kind) {
  case ResultKind::Text:
    return csv_field(c.measured.*col.field);
  case ResultKind::Count: {
    const int64_t v = col.get_count(c.measured);
    return v ? std::to_string(v) : "";
  }
  case ResultKind::Real:
    break;
  }
  return csv_number(col.get(c.measured), col.csv_digits);
}

} // namespace redraw
