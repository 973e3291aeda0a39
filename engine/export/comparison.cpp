#include "engine/export/comparison.h"

#include "engine/export/export_writers.h"

#include "engine/atomic_file.h"
#include "engine/errors.h"

#include <algorithm>
#include <cstring>

namespace redraw {

namespace {
Image upscaled(const NetworkView& net, const Image& original, int32_t w, int32_t h) {
  if (!net.model) throw ConfigError("comparison: no network");
  if (original.channels != net.model->output_channels)
    throw ConfigError("comparison: the original has " + std::to_string(original.channels) +
                      " channels, the network draws " + std::to_string(net.model->output_channels));
  if (w < 1 || h < 1 || int64_t(w) * h > k_max_comparison_pixels || int64_t(w) * 2 > k_max_render_side)
    throw ConfigError("comparison: " + std::to_string(w) + "x" + std::to_string(h) +
                      " is too large for a side-by-side image (at most " +
                      std::to_string(k_max_comparison_pixels >> 20) + " Mpixel per half, " +
                      std::to_string(k_max_render_side / 2) + " wide)");
  Image up = resize_bicubic(original, w, h);
  for (float& v : up.pixels)
    v = std::clamp(v, 0.0f, 1.0f); // Catmull-Rom overshoots at edges
  return up;
}

/// Copies rows [y0, y1) of the left image and the right values into 2w-wide rows.
void join_rows(const Image& left, const float* right, int32_t y0, int32_t y1, float* out) {
  const size_t row = size_t(left.width) * size_t(left.channels);
  for (int32_t y = y0; y < y1; ++y) {
    float* dst = out + size_t(y - y0) * row * 2;
    std::memcpy(dst, left.pixels.data() + size_t(y) * row, row * sizeof(float));
    const float* src = right + size_t(y - y0) * row;
    for (size_t i = 0; i < row; ++i)
      dst[row + i] = std::clamp(src[i], 0.0f, 1.0f);
  }
}
} // namespace

Image comparison_original(const Image& raw, const DataSpec& data) {
  const ColorMode mode = data.color_mode == ColorMode::Binary ? ColorMode::Gray : data.color_mode;
  return convert_color(raw, mode, data.threshold, data.background);
}

Image comparison_image(Backend& backend, const NetworkView& net, const Image& original, int32_t w, int32_t h,
                       const RenderOptions& opts) {
  const Image left = upscaled(net, original, w, h);
  Image out;
  out.width = 2 * w;
  out.height = h;
  out.channels = left.channels;
  out.pixels.resize(size_t(out.width) * size_t(h) * size_t(out.channels));
  render_tiles(backend, net, w, h, opts, [&](int32_t y0, int32_t y1, const float* v) {
    join_rows(left, v, y0, y1, out.pixels.data() + size_t(y0) * size_t(out.width) * size_t(out.channels));
  });
  return out;
}

void export_comparison_png(Backend& backend, const NetworkView& net, const Image& original, int32_t w, int32_t h,
                           const std::filesystem::path& out, int bit_depth, const RenderOptions& opts) {
  check_writable_destination(out);
  const Image left = upscaled(net, original, w, h);
  const auto file = open_row_writer(out, 2 * w, h, left.channels, bit_depth);
  std::vector<float> rows;
  render_tiles(backend, net, w, h, opts, [&](int32_t y0, int32_t y1, const float* v) {
    rows.resize(size_t(y1 - y0) * size_t(2 * w) * size_t(left.channels));
    join_rows(left, v, y0, y1, rows.data());
    file->write_rows(rows.data(), y1 - y0);
  });
  file->commit();
}

} // namespace redraw
