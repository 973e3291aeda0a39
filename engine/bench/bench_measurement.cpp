#include "engine/bench/bench_measurement.h"

#include "engine/errors.h"
#include "engine/insight/ms_ssim.h"
#include "engine/json_read.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace redraw {

namespace {
using json = nlohmann::json;

json measurement_number(double v) {
  if (std::isinf(v) && v > 0) return "inf";
  return std::isfinite(v) ? json(v) : json(nullptr);
}

/// The field `key` of bench.json as a finite number in [lo, hi] (`range` says so in words;
/// `inf_ok`: or "inf"); NaN when absent or null. ConfigError naming `source` and the field otherwise.
double measurement_field(const json& j, const char* key, double lo, double hi, const std::string& range, bool inf_ok,
                         const std::string& source) {
  if (!j.contains(key) || j[key].is_null()) return std::numeric_limits<double>::quiet_NaN();
  const json& v = j[key];
  const std::string where = source + ": " + key + ": ";
  if (inf_ok && v.is_string() && v.get<std::string>() == "inf") return INFINITY;
  if (!v.is_number())
    throw ConfigError(where + json_excerpt(v) + " is not a number" + (inf_ok ? ", \"inf\"" : "") + " or null");
  const double x = v.get<double>();
  if (!(x >= lo && x <= hi) || !std::isfinite(x)) // NaN and infinity fail too (a parser could give one)
    throw ConfigError(where + json_excerpt(v) + " is outside " + range);
  return x;
}

/// A whole number in [0, hi]; 0 when absent.
int64_t measurement_count(const json& j, const char* key, int64_t hi, const std::string& source) {
  if (!j.contains(key) || j[key].is_null()) return 0;
  const json& v = j[key];
  const bool whole = v.is_number_unsigned() ? v.get<uint64_t>() <= uint64_t(hi)
                                            : v.is_number_integer() && v.get<int64_t>() >= 0 && v.get<int64_t>() <= hi;
  if (!whole)
    throw ConfigError(source + ": " + key + ": " + json_excerpt(v) + " is not a whole number in [0, " +
                      std::to_string(hi) + "]");
  return v.get<int64_t>();
}
} // namespace

json bench_measurement_json(const BenchMeasurement& m) {
  return {{"psnr8_db", measurement_number(m.psnr8_db)},
          {"ms_ssim", measurement_number(m.ms_ssim)},
          {"decode_fps", measurement_number(m.decode_fps)},
          {"decode_threads", m.decode_threads},
          {"decode_path", m.decode_path.empty() ? json(nullptr) : json(m.decode_path)},
          {"peak_device_bytes", m.peak_device_bytes}};
}

BenchMeasurement parse_bench_measurement(const json& j, const std::string& source) {
  if (!j.is_object())
    throw ConfigError(source + ": not a bench measurement (a JSON object of psnr8_db, ms_ssim, decode_fps, ...)");
  BenchMeasurement m;
  m.psnr8_db = measurement_field(j, "psnr8_db", 0, k_bench_max_psnr_db, "[0, 1000] dB", true, source);
  m.ms_ssim = measurement_field(j, "ms_ssim", 0, 1, "[0, 1]", false, source);
  m.decode_fps = measurement_field(j, "decode_fps", std::numeric_limits<double>::min(),
                                   std::numeric_limits<double>::max(), "the positive numbers", false, source);
  m.decode_threads = int32_t(measurement_count(j, "decode_threads", 1 << 20, source));
  m.peak_device_bytes = measurement_count(j, "peak_device_bytes", int64_t(1) << 50, source);
  if (j.contains("decode_path") && !j["decode_path"].is_null()) {
    const json& p = j["decode_path"];
    if (!p.is_string() || (p.get<std::string>() != "host" && p.get<std::string>() != "device"))
      throw ConfigError(source + ": decode_path: " + json_excerpt(p) + " is not \"host\", \"device\" or null");
    m.decode_path = p.get<std::string>();
  }
  return m;
}

double psnr_of(const Image& a, const Image& b) {
  if (a.width != b.width || a.height != b.height || a.channels != b.channels)
    throw ImageError("PSNR: the render and the image differ in size or channels");
  double sum = 0;
  for (size_t i = 0; i < a.pixels.size(); ++i) {
    const double d = double(a.pixels[i]) - double(b.pixels[i]);
    sum += d * d;
  }
  const double mse = sum / double(a.pixels.size());
  return mse > 0 ? 10 * std::log10(1 / mse) : INFINITY;
}

BenchQuality measure_bench_quality(const Image& picture, const Image& target) {
  BenchQuality q;
  q.psnr8_db = psnr_of(picture, target);
  if (std::min(picture.width, picture.height) > k_ms_ssim_min_side)
    q.ms_ssim = ms_ssim(picture, target);
  else
    q.not_measured = "MS-SSIM not measured: the image trains at " + std::to_string(picture.width) + "x" +
                     std::to_string(picture.height) + ", and MS-SSIM needs both sides over " +
                     std::to_string(k_ms_ssim_min_side) + " px (its 5 scales each hold an 11-pixel window); " +
                     "the 8-bit PSNR is measured";
  return q;
}

} // namespace redraw
