#include "engine/images/training_pixels.h"

namespace redraw {

Image prepare_training_pixels(Image&& raw, const DataSpec& spec, int32_t w, int32_t h) {
  if (spec.color_mode == ColorMode::Binary) {
    Image gray = resize_area(convert_color(std::move(raw), ColorMode::Gray, spec.threshold, spec.background), w, h);
    for (float& v : gray.pixels)
      v = v >= spec.threshold ? 1.0f : 0.0f;
    return gray;
  }
  // Converted in place and, at full resolution, moved: the photo's floats exist once.
  return resize_area(convert_color(std::move(raw), spec.color_mode, spec.threshold, spec.background), w, h);
}

} // namespace redraw
