#pragma once
/// Renders a network at any resolution in bounded-memory tiles.
/// - A tile is a band of whole rows holding at most max_tile_pixels pixels, so a 16384 x 16384
///   render keeps only one band's coordinates, activations and output at a time; the caller's
///   on_rows callback consumes each band (e.g. packs it into an 8-bit PNG buffer).
/// - progress(fraction) is called after each band; returning false cancels with CancelledError.
#include "engine/backend.h"
#include "engine/images/image.h"

#include <functional>

namespace redraw {

constexpr int32_t k_max_render_side = 65536;

/// A part of the picture to render instead of the whole: the rectangle [x0, x1] x [y0, y1] in the
/// pixels of an image_w x image_h picture (the training image), sampled w x h times at the centres
/// of equal cells. The whole picture at w x h is {0, 0, w, h, w, h}.
struct RenderWindow {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  int32_t image_w = 0, image_h = 0; ///< 0: no window, the whole picture
  bool whole() const { return image_w <= 0 || image_h <= 0; }
};

struct RenderOptions {
  int64_t max_tile_pixels = int64_t(1) << 18;
  std::function<bool(double)> progress; ///< may be empty
  RenderWindow window;                  ///< a part of the picture (the app's sharp zoom)
};

/// Network coordinates of rows [y0, y1) of a w x h sampling of `win` (x, y pairs, row-major).
void window_coordinates(const RenderWindow& win, int32_t w, int32_t h, int32_t y0, int32_t y1, float* out);

/// The network a render needs: shape, parameters and Fourier matrix.
struct NetworkView {
  const ModelSpec* model = nullptr;
  std::span<const float> params;
  std::span<const float> fourier_b;
  /// The backend's bound network instead of params and fourier_b (Backend::predict_bound: the
  /// training weights where they are, no copy); model must be the bound model.
  bool bound = false;
};

/// The backend's bound network, with `model` its shape (NetworkView::bound).
inline NetworkView bound_network(const ModelSpec& model) {
  NetworkView v{&model, {}, {}};
  v.bound = true;
  return v;
}

/// Calls on_rows(y0, y1, values) for consecutive bands; values is (y1 - y0) * w * channels floats,
/// unclamped network outputs. Throws ConfigError for a size outside [1, k_max_render_side].
void render_tiles(Backend& backend, const NetworkView& net, int32_t w, int32_t h, const RenderOptions& opts,
                  const std::function<void(int32_t y0, int32_t y1, const float* values)>& on_rows);

/// Renders an 8-bit PNG of `channels` channels (the network's outputs) into `sink`, encoded band
/// by band as render_tiles produces them, so a full-size picture never exists as floats; each band's
/// values go to `on_rows` first when it is set.
void render_png_tiles(Backend& backend, const NetworkView& net, int32_t w, int32_t h, int32_t channels,
                      const ByteSink& sink,
                      const std::function<void(int32_t y0, int32_t y1, const float* values)>& on_rows = {});

/// Renders into an Image with values clamped to [0, 1].
Image render_image(Backend& backend, const NetworkView& net, int32_t w, int32_t h, const RenderOptions& opts = {});

} // namespace redraw
