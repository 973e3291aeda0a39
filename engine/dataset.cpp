#include "engine/dataset.h"

namespace redraw {

void grid_coordinates(int32_t w, int32_t h, int32_t y0, int32_t y1, float* out) {
  for (int32_t y = y0; y < y1; ++y) {
    const float cy = pixel_centre<float>(y, h);
    float* row = out + size_t(y - y0) * size_t(w) * 2;
    for (int32_t x = 0; x < w; ++x) {
      row[2 * x] = pixel_centre<float>(x, w);
      row[2 * x + 1] = cy;
    }
  }
}

} // namespace redraw
