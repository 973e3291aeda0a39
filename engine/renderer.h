#pragma once
/// Renders a network at any resolution in bounded-memory tiles.
/// - A tile is a band of whole rows holding at most max_tile_pixels pixels, so a 16384 x 16384
///   render keeps only one band's coordinates, activations and output at a time; the caller's
///   on_rows callback consumes each band (e.g. packs it into an 8-bit PNG buffer).
/// - progress(fraction) is called after each band; returning false cancels with CancelledError.
#include "engine/backend.h"
#include "engine/image.h"

#include <functional>

namespace redraw {

constexpr int32_t k_max_render_side = 65536;

struct RenderOptions {
  int64_t max_tile_pixels = int64_t(1) << 18;
  std::function<bool(double)> progress; ///< may be empty
};

/// The network a render needs: shape, parameters and Fourier matrix.
struct NetworkView {
  const ModelSpec* model = nullptr;
  std::span<const float> params;
  std::span<const float> fourier_b;
};

/// Calls on_rows(y0, y1, values) for consecutive bands; values is (y1 - y0) * w * channels floats,
/// unclamped network outputs. Throws ConfigError for a size outside [1, k_max_render_side].
void render_tiles(Backend& backend, const NetworkView& net, int32_t w, int32_t h, const RenderOptions& opts,
                  const std::function<void(int32_t y0, int32_t y1, const float* values)>& on_rows);

/// Renders into an Image with values clamped to [0, 1].
Image render_image(Backend& backend, const NetworkView& net, int32_t w, int32_t h, const RenderOptions& opts = {});

} // namespace redraw
