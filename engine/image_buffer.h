#pragma once
/// A picture in memory: float pixels in [0, 1], row-major, interleaved channels (1 or 3, or 4 when
/// raw). The core's, because the Backend trains on one (Dataset); reading and writing pictures
/// (decoders, PNG, resizing, colour modes) is engine/images/'s (image.h).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace redraw {

struct Image {
  int32_t width = 0, height = 0, channels = 0;
  std::vector<float> pixels; ///< width * height * channels, in [0, 1]

  float& at(int32_t x, int32_t y, int32_t c) { return pixels[(size_t(y) * width + x) * channels + c]; }
  float at(int32_t x, int32_t y, int32_t c) const { return pixels[(size_t(y) * width + x) * channels + c]; }
  int64_t pixel_count() const { return int64_t(width) * height; }
};

} // namespace redraw
