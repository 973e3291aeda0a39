#pragma once
/// `redraw gui --screenshot FILE`: the framebuffer as a PNG, plus a sidecar FILE.json that says
/// where the reconstruction is drawn (so a test can crop it) and at which step.
#include <cstdint>
#include <string>

namespace redraw {

struct ScreenshotInfo {
  float recon_rect[4] = {0, 0, 0, 0}; ///< x, y, w, h in framebuffer pixels, from the top-left
  int64_t step = 0;
  double psnr_db = 0;
  double fps = 0;      ///< GUI frames per second while training (paced, not the limit)
  double frame_ms = 0; ///< CPU time of one GUI frame (1000 / frame_ms = the fps it could reach)
  double steps_per_s = 0;
  float font_px = 0;      ///< the UI font's size (follows the UI scale)
  float ui_scale = 0;     ///< the scale the UI was built at
  float layout[8] = {};   ///< controls w, plots h, canvas w, canvas h, status bar y, h, window w, h
  std::string extra_json; ///< a JSON object whose members join the sidecar's ("" for none)
};

/// Reads the current GL back buffer (w x h) and writes it as an 8-bit RGB PNG, top row first,
/// and the sidecar next to it. Returns an error message, or "" on success. GUI thread.
std::string write_screenshot(const std::string& file, int32_t w, int32_t h, const ScreenshotInfo& info);

} // namespace redraw
