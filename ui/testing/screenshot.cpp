#include "ui/testing/screenshot.h"

#include "engine/atomic_file.h"
#include "engine/images/image.h"
#include "engine/json_read.h"

#include <glad/gl.h>
#include <nlohmann/json.hpp>

#include <vector>

namespace redraw {

std::string write_screenshot(const std::string& file, int32_t w, int32_t h, const ScreenshotInfo& info) {
  if (w <= 0 || h <= 0) return "screenshot: the window has no size";
  std::vector<uint8_t> rgb(size_t(w) * size_t(h) * 3);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, rgb.data());
  if (glGetError() != GL_NO_ERROR) return "screenshot: glReadPixels failed";
  Image img;
  img.width = w;
  img.height = h;
  img.channels = 3;
  img.pixels.resize(rgb.size());
  const size_t row = size_t(w) * 3;
  for (int32_t y = 0; y < h; ++y) { // GL's row 0 is the bottom
    const uint8_t* src = rgb.data() + size_t(h - 1 - y) * row;
    float* dst = img.pixels.data() + size_t(y) * row;
    for (size_t i = 0; i < row; ++i)
      dst[i] = float(src[i]) / 255.0f;
  }
  try {
    write_png(file, img, 8);
    nlohmann::json j = {
        {"width", w},
        {"height", h},
        {"step", info.step},
        {"psnr_db", info.psnr_db},
        {"fps", info.fps},
        {"frame_ms", info.frame_ms},
        {"steps_per_s", info.steps_per_s},
        {"reconstruction", {info.recon_rect[0], info.recon_rect[1], info.recon_rect[2], info.recon_rect[3]}},
        {"font_px", info.font_px},
        {"ui_scale", info.ui_scale},
        {"layout",
         {{"controls_w", info.layout[0]},
          {"plots_h", info.layout[1]},
          {"canvas_w", info.layout[2]},
          {"canvas_h", info.layout[3]},
          {"status_y", info.layout[4]},
          {"status_h", info.layout[5]},
          {"window_w", info.layout[6]},
          {"window_h", info.layout[7]}}}};
    if (!info.extra_json.empty()) {
      const nlohmann::json extra = parse_json(info.extra_json, "the screenshot's extra fields"); // outlives the loop
      for (const auto& [key, value] : extra.items())
        j[key] = value;
    }
    write_text_atomic(file + ".json", j.dump(2) + "\n");
  } catch (const std::exception& e) {
    return std::string("screenshot: ") + e.what();
  }
  return {};
}

} // namespace redraw
