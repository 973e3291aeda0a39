// A done cell's bench measurements (engine/bench/bench_measurement.h): bench.json read back with
// every value in its range (a damaged or hand-edited file refused, naming the file and the field),
// and the 8-bit picture's PSNR and MS-SSIM against closed forms, MS-SSIM left out (and said so)
// where the picture is too small for its five scales.
#include "engine/bench/bench_measurement.h"
#include "engine/errors.h"
#include "engine/insight/ms_ssim.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>

namespace redraw {
namespace {

Image flat_image(int32_t w, int32_t h, float v) {
  Image im;
  im.width = w;
  im.height = h;
  im.channels = 3;
  im.pixels.assign(size_t(w) * size_t(h) * 3, v);
  return im;
}

/// parse_bench_measurement's error for `text`, or "(no error)".
std::string measurement_error(const std::string& text) {
  try {
    (void)parse_bench_measurement(nlohmann::json::parse(text), "cells/x/bench.json");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

} // namespace

TEST_CASE("bench.json: what is written reads back, an exact fit and figures not measured included") {
  BenchMeasurement m;
  m.psnr8_db = INFINITY;
  m.ms_ssim = 0.9871;
  m.decode_fps = 812.5;
  m.decode_threads = 2;
  m.decode_path = "host";
  m.peak_device_bytes = (int64_t(3) << 30) + 7;
  const BenchMeasurement back = parse_bench_measurement(bench_measurement_json(m), "b.json");
  CHECK(std::isinf(back.psnr8_db));
  CHECK(back.ms_ssim == 0.9871);
  CHECK(back.decode_fps == 812.5);
  CHECK(back.decode_threads == 2);
  CHECK(back.decode_path == "host");
  CHECK(back.peak_device_bytes == (int64_t(3) << 30) + 7);
  const BenchMeasurement none = parse_bench_measurement(bench_measurement_json(BenchMeasurement{}), "b.json");
  CHECK(std::isnan(none.psnr8_db));
  CHECK(std::isnan(none.ms_ssim));
  CHECK(std::isnan(none.decode_fps));
  CHECK(none.decode_path.empty());
}

TEST_CASE("bench.json: JSON that is not an object of numbers in their ranges is refused, naming the file and field") {
  CHECK(measurement_error("[1, 2]") ==
        "cells/x/bench.json: not a bench measurement (a JSON object of psnr8_db, ms_ssim, decode_fps, ...)");
  CHECK(measurement_error("42") ==
        "cells/x/bench.json: not a bench measurement (a JSON object of psnr8_db, ms_ssim, decode_fps, ...)");
  CHECK(measurement_error(R"({"ms_ssim": 99})") == "cells/x/bench.json: ms_ssim: 99 is outside [0, 1]");
  CHECK(measurement_error(R"({"ms_ssim": -0.1})") == "cells/x/bench.json: ms_ssim: -0.1 is outside [0, 1]");
  CHECK(measurement_error(R"({"psnr8_db": 1e308})") == "cells/x/bench.json: psnr8_db: 1e+308 is outside [0, 1000] dB");
  CHECK(measurement_error(R"({"psnr8_db": -1})") == "cells/x/bench.json: psnr8_db: -1 is outside [0, 1000] dB");
  CHECK(measurement_error(R"({"psnr8_db": "high"})") ==
        "cells/x/bench.json: psnr8_db: \"high\" is not a number, \"inf\" or null");
  CHECK(measurement_error(R"({"decode_fps": 0})") == "cells/x/bench.json: decode_fps: 0 is outside the positive numbers");
  CHECK(measurement_error(R"({"decode_fps": "fast"})") == "cells/x/bench.json: decode_fps: \"fast\" is not a number or null");
  CHECK(measurement_error(R"({"peak_device_bytes": "x"})") ==
        "cells/x/bench.json: peak_device_bytes: \"x\" is not a whole number in [0, 1125899906842624]");
  CHECK(measurement_error(R"({"peak_device_bytes": -5})").find("peak_device_bytes: -5 is not a whole number") !=
        std::string::npos);
  CHECK(measurement_error(R"({"decode_threads": 1.5})").find("decode_threads: 1.5 is not a whole number") !=
        std::string::npos);
  CHECK(measurement_error(R"({"decode_path": "gpu"})") ==
        "cells/x/bench.json: decode_path: \"gpu\" is not \"host\", \"device\" or null");
  // The edges are in range; null and absent are "not measured".
  CHECK(measurement_error(R"({"psnr8_db": 1000, "ms_ssim": 1, "decode_fps": 1e-3})") == "(no error)");
  CHECK(measurement_error(R"({"psnr8_db": 0, "ms_ssim": 0, "decode_fps": null})") == "(no error)");
  CHECK(measurement_error("{}") == "(no error)");
}

TEST_CASE("bench quality: PSNR at any size, MS-SSIM only over 160 px a side, and the note says only it is missing") {
  // 0.5 against 0.25 everywhere: MSE 1/16, PSNR 10 log10(16) dB; identical pictures: MS-SSIM 1.
  const BenchQuality big = measure_bench_quality(flat_image(176, 168, 0.5f), flat_image(176, 168, 0.25f));
  CHECK(big.psnr8_db == doctest::Approx(10 * std::log10(16.0)).epsilon(1e-12));
  CHECK(big.not_measured.empty());
  CHECK(measure_bench_quality(flat_image(176, 168, 0.5f), flat_image(176, 168, 0.5f)).ms_ssim ==
        doctest::Approx(1.0).epsilon(1e-12));
  CHECK(std::isinf(measure_bench_quality(flat_image(176, 168, 0.5f), flat_image(176, 168, 0.5f)).psnr8_db));

  for (const std::pair<int, int>& size : {std::pair{120, 96}, std::pair{300, 160}}) {
    const int w = size.first, h = size.second; // plain names: clang 14's CAPTURE cannot take a structured binding
    CAPTURE(w);
    const BenchQuality small = measure_bench_quality(flat_image(w, h, 0.5f), flat_image(w, h, 0.25f));
    CHECK(small.psnr8_db == doctest::Approx(10 * std::log10(16.0)).epsilon(1e-12)); // measured
    CHECK(std::isnan(small.ms_ssim));
    CHECK(small.not_measured == "MS-SSIM not measured: the image trains at " + std::to_string(w) + "x" +
                                    std::to_string(h) +
                                    ", and MS-SSIM needs both sides over 160 px (its 5 scales each hold an "
                                    "11-pixel window); the 8-bit PSNR is measured");
  }
  CHECK_THROWS_AS(measure_bench_quality(flat_image(20, 20, 0.5f), flat_image(20, 21, 0.5f)), ImageError);
}

} // namespace redraw
