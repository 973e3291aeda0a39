#include "engine/bench/bench_measurement.h"

#include "engine/bench/bench_columns.h"

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

/// A Text column's value: one of its choices, or "" when absent or null.
std::string measurement_choice(const json& j, const BenchColumn& c, const std::string& source) {
  if (!j.contains(c.name) || j[c.name].is_null()) return "";
  const json& v = j[c.name];
  std::string allowed;
  for (const char* const* k = c.choices; k && *k; ++k) {
    if (v.is_string() && v.get<std::string>() == *k) return *k;
    allowed += "\"" + std::string(*k) + "\", ";
  }
  throw ConfigError(source + ": " + c.name + ": " + json_excerpt(v) + " is not " +
                    (allowed.size() > 2 ? allowed.substr(0, allowed.size() - 2) : "") + " or null");
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
  json j = json::object();
  for (const BenchColumn& c : bench_columns()) {
    if (c.source != BenchSource::Measured) continue;
    if (c.kind == ResultKind::Text)
      j[c.name] = (m.*c.field).empty() ? json(nullptr) : json(m.*c.field);
    else if (c.kind == ResultKind::Count)
      j[c.name] = c.get_count(m);
    else
      j[c.name] = measurement_number(c.get(m));
  }
  return j;
}

BenchMeasurement parse_bench_measurement(const json& j, const std::string& source) {
  if (!j.is_object())
    throw ConfigError(source + ": not a bench measurement (a JSON object of psnr8_db, ms_ssim, decode_fps, ...)");
  BenchMeasurement m;
  for (const BenchColumn& c : bench_columns()) {
    if (c.source != BenchSource::Measured) continue;
    if (c.kind == ResultKind::Text)
      m.*c.field = measurement_choice(j, c, source);
    else if (c.kind == ResultKind::Count)
      c.set_count(m, measurement_count(j, c.name, int64_t(c.hi), source));
    else
      c.set(m, measurement_field(j, c.name, c.lo, c.hi, c.range, c.inf_ok, source));
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
