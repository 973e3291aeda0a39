#include "engine/pixel_sample.h"

#include "engine/rng_math.h"

#include <algorithm>
#include <cmath>

namespace redraw {

namespace {
constexpr uint64_t k_stream_metric_sample = 5; ///< beside RandomStream's ids (rng_math.h)

/// Where cell i of `cells` over [0, n) begins: i * n / cells rounded to nearest, so the cells'
/// uneven sizes (9 and 10 pixels, say) do not shift the sample's mean by half a pixel.
int64_t cell_start(int64_t i, int64_t cells, int64_t n) { return (2 * i * n + cells) / (2 * cells); }

/// Cell i of `cells` over [0, n): its first index and its length (at least 1 when cells <= n).
void cell_range(int64_t i, int64_t cells, int64_t n, int64_t& lo, int64_t& len) {
  lo = cell_start(i, cells, n);
  len = cell_start(i + 1, cells, n) - lo;
}
} // namespace

int64_t metric_sample_pixels(int64_t batch) {
  if (batch <= 0) return k_metric_sample_pixels;
  const int64_t b = std::min(batch, k_metric_sample_pixels); // no overflow for an absurd batch
  return std::clamp(b + b / 2, k_metric_sample_min_pixels, k_metric_sample_pixels);
}

PixelSample stratified_pixel_sample(int32_t width, int32_t height, int64_t count, uint64_t seed) {
  PixelSample s;
  const int64_t w = std::max<int32_t>(width, 0), h = std::max<int32_t>(height, 0);
  const int64_t n = w * h;
  if (n <= std::max<int64_t>(count, 1)) {
    s.indices.resize(size_t(n));
    for (int64_t i = 0; i < n; ++i) s.indices[size_t(i)] = i;
    s.whole = true;
    return s;
  }
  // Cells as square as the image allows: about sqrt(n / count) pixels a side.
  const double scale = std::sqrt(double(count) / double(n));
  const int64_t gx = std::clamp<int64_t>(std::llround(double(w) * scale), 1, w);
  const int64_t gy = std::clamp<int64_t>(std::max<int64_t>(1, count / gx), 1, h);
  s.indices.reserve(size_t(gx * gy));
  for (int64_t cy = 0; cy < gy; ++cy) {
    int64_t y0 = 0, ny = 0;
    cell_range(cy, gy, h, y0, ny);
    for (int64_t cx = 0; cx < gx; ++cx) {
      int64_t x0 = 0, nx = 0;
      cell_range(cx, gx, w, x0, nx);
      const uint64_t cell = uint64_t(cy * gx + cx);
      const int64_t x = x0 + random_below(seed, k_stream_metric_sample, 2 * cell, uint32_t(nx));
      const int64_t y = y0 + random_below(seed, k_stream_metric_sample, 2 * cell + 1, uint32_t(ny));
      s.indices.push_back(y * w + x);
    }
  }
  std::sort(s.indices.begin(), s.indices.end());
  return s;
}

} // namespace redraw
