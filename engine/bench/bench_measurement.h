#pragma once
/// What `redraw bench` measures of each done cell, once, and keeps in DIR/cells/<name>/bench.json:
/// {"psnr8_db", "ms_ssim", "decode_fps", "decode_threads", "decode_path", "peak_device_bytes"}.
/// - Reading it back checks every value, so a file changed by hand or damaged is refused, naming
///   the file and the field, and never reaches the table: PSNR in [0, k_bench_max_psnr_db] dB or
///   "inf" (an exact fit; the 8-bit picture and the image are both in [0, 1], so the MSE is at most
///   1), MS-SSIM in [0, 1] (ms_ssim.h clamps each scale's term at 0), decode FPS finite and
///   positive, counts whole and non-negative; null for a figure not measured.
/// - The 8-bit PSNR is taken at any size; MS-SSIM only where both sides of the training size are
///   over k_ms_ssim_min_side pixels (its five scales each need an 11-pixel window).
#include "engine/images/image.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <limits>
#include <string>

namespace redraw {

/// The highest finite PSNR a measurement file may hold: far above any an 8-bit picture reaches.
inline constexpr double k_bench_max_psnr_db = 1000;

/// One cell's bench.json. NaN: not measured.
struct BenchMeasurement {
  double psnr8_db = std::numeric_limits<double>::quiet_NaN(); ///< +inf: exact
  double ms_ssim = std::numeric_limits<double>::quiet_NaN();
  double decode_fps = std::numeric_limits<double>::quiet_NaN();
  int32_t decode_threads = 0;    ///< the CPU thread setting the decoding was timed with (0: measured)
  std::string decode_path;       ///< "host", "device", or "" when decoding was not timed
  int64_t peak_device_bytes = 0; ///< 0: not measured (CPU)
};

/// bench.json's content.
nlohmann::json bench_measurement_json(const BenchMeasurement& m);
/// Reads it back, every value checked (above). ConfigError naming `source` and the field, e.g.
/// "DIR/cells/x/bench.json: ms_ssim: 99 is outside [0, 1]".
BenchMeasurement parse_bench_measurement(const nlohmann::json& j, const std::string& source);

/// The 8-bit picture's quality against the image at the training size.
struct BenchQuality {
  double psnr8_db = std::numeric_limits<double>::quiet_NaN();
  double ms_ssim = std::numeric_limits<double>::quiet_NaN();
  std::string not_measured; ///< "": both measured; else what was not and why, for a note
};

/// PSNR in dB of `a` against `b` over every sample (values in [0, 1]): 10 log10(1 / MSE), +inf
/// when equal. ImageError when their sizes or channel counts differ.
double psnr_of(const Image& a, const Image& b);
/// The PSNR of `picture` against `target` and, where both sides are over k_ms_ssim_min_side, its
/// MS-SSIM; `not_measured` says which was not and why. ImageError when their sizes or channel
/// counts differ (nothing is measured then).
BenchQuality measure_bench_quality(const Image& picture, const Image& target);

} // namespace redraw
