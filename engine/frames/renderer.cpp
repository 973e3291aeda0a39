#include "engine/frames/renderer.h"

#include "engine/dataset.h"
#include "engine/errors.h"

#include <algorithm>

namespace redraw {

void window_coordinates(const RenderWindow& win, int32_t w, int32_t h, int32_t y0, int32_t y1, float* out) {
  // Image pixel u maps to 2 u / n - 1 (pixel_centre: pixel i's centre is u = i + 0.5).
  const double sx = (win.x1 - win.x0) / double(w), sy = (win.y1 - win.y0) / double(h);
  for (int32_t y = y0; y < y1; ++y) {
    const auto cy = float(2.0 * (win.y0 + (double(y) + 0.5) * sy) / double(win.image_h) - 1.0);
    float* row = out + size_t(y - y0) * size_t(w) * 2;
    for (int32_t x = 0; x < w; ++x) {
      row[2 * x] = float(2.0 * (win.x0 + (double(x) + 0.5) * sx) / double(win.image_w) - 1.0);
      row[2 * x + 1] = cy;
    }
  }
}

void render_tiles(Backend& backend, const NetworkView& net, int32_t w, int32_t h, const RenderOptions& opts,
                  const std::function<void(int32_t, int32_t, const float*)>& on_rows) {
  if (!net.model) throw ConfigError("render: no network");
  if (w < 1 || h < 1 || w > k_max_render_side || h > k_max_render_side)
    throw ConfigError("render size " + std::to_string(w) + "x" + std::to_string(h) + " is outside 1.." +
                      std::to_string(k_max_render_side) + " per side");
  const int64_t budget = std::max<int64_t>(opts.max_tile_pixels, 1);
  const int32_t band = int32_t(std::clamp<int64_t>(budget / w, 1, h));
  const int32_t channels = net.model->output_channels;
  std::vector<float> coords(size_t(band) * size_t(w) * 2);
  std::vector<float> values(size_t(band) * size_t(w) * size_t(channels));
  for (int32_t y0 = 0; y0 < h; y0 += band) {
    const int32_t y1 = std::min(h, y0 + band);
    const int64_t n = int64_t(y1 - y0) * w;
    if (opts.window.whole()) grid_coordinates(w, h, y0, y1, coords.data());
    else window_coordinates(opts.window, w, h, y0, y1, coords.data());
    if (net.bound) backend.predict_bound(coords.data(), n, values.data());
    else backend.predict(*net.model, net.params, net.fourier_b, coords.data(), n, values.data());
    on_rows(y0, y1, values.data());
    if (opts.progress && !opts.progress(double(y1) / double(h))) throw CancelledError("render cancelled");
  }
}

void render_png_tiles(Backend& backend, const NetworkView& net, int32_t w, int32_t h, int32_t channels,
                      const ByteSink& sink, const std::function<void(int32_t, int32_t, const float*)>& on_rows) {
  encode_png_rows(sink, w, h, channels, 8, [&](const auto& write) {
    render_tiles(backend, net, w, h, RenderOptions{}, [&](int32_t y0, int32_t y1, const float* values) {
      if (on_rows) on_rows(y0, y1, values);
      write(values, y1 - y0);
    });
  });
}

Image render_image(Backend& backend, const NetworkView& net, int32_t w, int32_t h, const RenderOptions& opts) {
  if (int64_t(w) * h > k_max_image_pixels)
    throw ConfigError("render: " + std::to_string(w) + "x" + std::to_string(h) +
                      " is too large to hold in memory; export it to a PNG file instead");
  Image img;
  img.width = w;
  img.height = h;
  img.channels = net.model ? net.model->output_channels : 1;
  img.pixels.resize(size_t(w) * size_t(h) * size_t(img.channels));
  render_tiles(backend, net, w, h, opts, [&](int32_t y0, int32_t y1, const float* v) {
    const size_t count = size_t(y1 - y0) * size_t(w) * size_t(img.channels);
    float* dst = img.pixels.data() + size_t(y0) * size_t(w) * size_t(img.channels);
    for (size_t i = 0; i < count; ++i) dst[i] = std::clamp(v[i], 0.0f, 1.0f);
  });
  return img;
}

} // namespace redraw
