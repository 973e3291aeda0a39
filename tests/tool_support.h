#pragma once
/// Helpers shared by the tests and the benchmarks (bench/, which include it as
/// "tests/tool_support.h"): synthetic pictures and a stopwatch. Only the engine's headers: no
/// doctest, no build-tree paths. (Command-line options: tests/cli_options.h.)
#include "engine/images/image.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace redraw::test {

/// Seconds of wall-clock time since `t0` (steady clock).
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// A w x h picture whose sample (x, y, c) is `value(x, y, c)`.
template <class F> Image image_of(int32_t w, int32_t h, int32_t channels, F&& value) {
  Image img;
  img.width = w;
  img.height = h;
  img.channels = channels;
  img.pixels.resize(size_t(w) * size_t(h) * size_t(channels));
  for (int32_t y = 0; y < h; ++y)
    for (int32_t x = 0; x < w; ++x)
      for (int32_t c = 0; c < channels; ++c) img.at(x, y, c) = float(value(x, y, c));
  return img;
}

/// A w x h picture of one value everywhere.
inline Image filled_image(int32_t w, int32_t h, int32_t channels, float v) {
  return image_of(w, h, channels, [&](int32_t, int32_t, int32_t) { return v; });
}

/// A smooth test image: a diagonal gradient with a bump.
inline Image gradient_image(int32_t w, int32_t h, int32_t channels) {
  return image_of(w, h, channels,
                  [&](int32_t x, int32_t y, int32_t c) { return 0.5 + 0.4 * std::sin(3.0 * x / w + 2.0 * y / h + c); });
}

/// A busier deterministic pattern for timing (the time does not depend on the picture).
inline Image busy_pattern(int32_t w, int32_t h, int32_t channels) {
  return image_of(w, h, channels, [&](int32_t x, int32_t y, int32_t c) {
    return 0.5 + 0.45 * std::sin(17.0 * x / w + 11.0 * y / h + c) * std::cos(5.0 * x * y / (w * h));
  });
}

} // namespace redraw::test
