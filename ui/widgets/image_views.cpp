#include "ui/widgets/image_views.h"

#include <algorithm>
#include <cmath>

namespace redraw {
namespace {
/// NaN becomes 0: a pixel from a damaged network never turns into an out-of-range value.
uint8_t to_byte(float v) { return v > 0 ? uint8_t(std::lround(std::min(v, 1.0f) * 255.0f)) : 0; }
} // namespace

void to_rgba8_rows(const Image& img, int32_t y0, int32_t rows, uint8_t* out) {
  const size_t first = size_t(y0) * size_t(img.width), n = size_t(rows) * size_t(img.width);
  const int32_t c = img.channels;
  for (size_t i = 0; i < n; ++i) {
    const float* p = img.pixels.data() + (first + i) * size_t(c);
    out[i * 4 + 0] = to_byte(p[0]);
    out[i * 4 + 1] = to_byte(c >= 3 ? p[1] : p[0]);
    out[i * 4 + 2] = to_byte(c >= 3 ? p[2] : p[0]);
    out[i * 4 + 3] = 255;
  }
}

std::vector<uint8_t> to_rgba8(const Image& img) {
  std::vector<uint8_t> out(size_t(img.pixel_count()) * 4);
  to_rgba8_rows(img, 0, img.height, out.data());
  return out;
}

std::array<uint8_t, 3> heat_color(float v) {
  // Control points of a magma-like map: black -> purple -> red-orange -> pale yellow.
  static constexpr float k_stops[5][3] = {{0.00f, 0.00f, 0.02f},
                                          {0.32f, 0.07f, 0.47f},
                                          {0.80f, 0.22f, 0.32f},
                                          {0.99f, 0.60f, 0.25f},
                                          {0.99f, 0.99f, 0.75f}};
  v = (v > 0 ? std::min(v, 1.0f) : 0.0f) * 4.0f; // NaN -> 0: it indexes k_stops
  const int i = std::min(3, int(v));
  const float t = v - float(i);
  std::array<uint8_t, 3> rgb{};
  for (int k = 0; k < 3; ++k)
    rgb[size_t(k)] = to_byte(k_stops[i][k] + (k_stops[i + 1][k] - k_stops[i][k]) * t);
  return rgb;
}

std::vector<uint8_t> error_heat_map(const Image& prediction, const Image& truth, float gain) {
  if (prediction.width != truth.width || prediction.height != truth.height || prediction.channels != truth.channels)
    return {};
  const size_t n = size_t(truth.pixel_count());
  const int32_t c = truth.channels;
  std::vector<uint8_t> out(n * 4);
  for (size_t i = 0; i < n; ++i) {
    float e = 0;
    for (int32_t k = 0; k < c; ++k)
      e += std::abs(prediction.pixels[i * size_t(c) + size_t(k)] - truth.pixels[i * size_t(c) + size_t(k)]);
    const auto rgb = heat_color(e / float(c) * gain);
    out[i * 4 + 0] = rgb[0];
    out[i * 4 + 1] = rgb[1];
    out[i * 4 + 2] = rgb[2];
    out[i * 4 + 3] = 255;
  }
  return out;
}

float error_quantile(const Image& prediction, const Image& truth, float q) {
  if (prediction.width != truth.width || prediction.height != truth.height || prediction.channels != truth.channels ||
      truth.pixels.empty())
    return -1;
  const size_t n = size_t(truth.pixel_count());
  const size_t c = size_t(truth.channels);
  const size_t stride = std::max<size_t>(1, n / 65536);
  std::vector<float> errors;
  errors.reserve(n / stride + 1);
  for (size_t i = 0; i < n; i += stride) {
    float e = 0;
    for (size_t k = 0; k < c; ++k)
      e += std::abs(prediction.pixels[i * c + k] - truth.pixels[i * c + k]);
    errors.push_back(e / float(c));
  }
  const size_t at = std::min(errors.size() - 1, size_t(std::clamp(q, 0.0f, 1.0f) * float(errors.size() - 1) + 0.5f));
  std::nth_element(errors.begin(), errors.begin() + ptrdiff_t(at), errors.end());
  return errors[at];
}

float auto_error_full_scale(const Image& prediction, const Image& truth) {
  const float p99 = error_quantile(prediction, truth, 0.99f);
  return p99 < 0 ? -1.0f : std::clamp(p99, 1.0f / 255.0f, 1.0f);
}

double mean_abs_error(const Image& prediction, const Image& truth) {
  if (prediction.pixels.size() != truth.pixels.size() || truth.pixels.empty()) return -1;
  double s = 0;
  for (size_t i = 0; i < truth.pixels.size(); ++i)
    s += std::abs(double(prediction.pixels[i]) - double(truth.pixels[i]));
  return s / double(truth.pixels.size());
}

} // namespace redraw
