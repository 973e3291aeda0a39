/// Checks the layout of `redraw gui --screenshot` captures (sidecar FILE.json and the pixels):
///   redraw_gui_layout_check shrink SHOT.png
///     the window was shrunk to the --test-resize size and back (window_test_hook.h): the panels
///     are as wide and tall as before the shrink (within a pixel), and the settings saved while
///     tiny keep a sensible window size and the panel sizes from before;
///   redraw_gui_layout_check scale SCALE1.png SCALE2.png
///     the same window at UI scale 1 and 2: the font is twice the size, the menu bar's text is
///     about twice as tall in the pixels, and at both scales the status bar's text is whole and
///     inside the window, and the panels fit its width.
/// Exit 0 on success, 1 with a message for each failure.
#include "engine/images/image.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

namespace {
using nlohmann::json;

json sidecar(const std::string& png) {
  std::ifstream in(png + ".json");
  if (!in) throw std::runtime_error(png + ".json: missing sidecar");
  json j;
  in >> j;
  return j;
}

float luma(const redraw::Image& im, int x, int y) {
  if (im.channels < 3) return im.at(x, y, 0);
  return 0.299f * im.at(x, y, 0) + 0.587f * im.at(x, y, 1) + 0.114f * im.at(x, y, 2);
}

/// Rows [y0, y1) x [0, x1) holding light text pixels: first and last such row (-1 when none).
std::pair<int, int> ink_rows(const redraw::Image& im, int y0, int y1, int x1) {
  int first = -1, last = -1;
  for (int y = std::max(0, y0); y < std::min(y1, im.height); ++y)
    for (int x = 0; x < std::min(x1, im.width); ++x)
      if (luma(im, x, y) > 0.6f) {
        if (first < 0) first = y;
        last = y;
        break;
      }
  return {first, last};
}

bool fail(const char* fmt, const std::string& what) {
  std::fprintf(stderr, fmt, what.c_str());
  return false;
}

bool check_shrink(const std::string& png) {
  const json j = sidecar(png);
  bool ok = true;
  const json &before = j.at("layout_before"), &tiny = j.at("layout_tiny"), &after = j.at("layout_after");
  const json& size = j.at("tiny_size");
  std::printf("before: %s\ntiny:   %s\nafter:  %s\n", before.dump().c_str(), tiny.dump().c_str(), after.dump().c_str());
  if (std::abs(tiny.at("window_w").get<double>() - size[0].get<double>()) > 0.5 ||
      std::abs(tiny.at("window_h").get<double>() - size[1].get<double>()) > 0.5)
    ok = fail("error: the window was not shrunk to the asked size (%s)\n", tiny.dump());
  if (tiny.at("controls_w").get<double>() >= before.at("controls_w").get<double>())
    ok = fail("error: the controls did not narrow in the tiny window (%s)\n", tiny.dump());
  for (const char* k : {"controls_w", "plots_h", "canvas_w", "canvas_h", "status_y", "window_w", "window_h"}) {
    const double a = before.at(k).get<double>(), b = after.at(k).get<double>();
    if (std::abs(a - b) > 1.0)
      ok = fail("error: the layout was not restored: %s\n",
                std::string(k) + " " + std::to_string(a) + " before, " + std::to_string(b) + " after");
  }
  const json& saved = j.at("settings_saved_while_tiny");
  std::printf("saved while tiny: %s\n", saved.dump().c_str());
  const double scale = j.at("ui_scale").get<double>();
  if (saved.at("window_width").get<int>() < 640 || saved.at("window_height").get<int>() < 480)
    ok = fail("error: the settings saved while tiny carry the tiny window (%s)\n", saved.dump());
  if (std::abs(saved.at("controls_width").get<double>() * scale - before.at("controls_w").get<double>()) > 1.0 ||
      std::abs(saved.at("plots_height").get<double>() * scale - before.at("plots_h").get<double>()) > 1.0)
    ok = fail("error: the settings saved while tiny do not keep the panel sizes (%s)\n", saved.dump());
  if (!j.at("error").get<std::string>().empty()) ok = fail("error: %s\n", j.at("error").get<std::string>());
  const std::string tiny_png = png.substr(0, png.size() - 4) + "-tiny.png";
  const redraw::Image t = redraw::load_image(tiny_png);
  std::printf("tiny screenshot %s: %dx%d\n", tiny_png.c_str(), t.width, t.height);
  if (t.width != size[0].get<int>() || t.height != size[1].get<int>())
    ok = fail("error: the tiny screenshot has the wrong size (%s)\n", tiny_png);
  return ok;
}

struct Scaled {
  json j;
  redraw::Image img;
  double font = 0;
  int ink = 0;
};

Scaled measure(const std::string& png, bool& ok) {
  Scaled s{sidecar(png), redraw::load_image(png)};
  s.font = s.j.at("font_px").get<double>();
  // The menu bar's text ("File Training View Help"): the light rows in the top band.
  const auto [first, last] = ink_rows(s.img, 0, int(1.5 * s.font), int(20 * s.font));
  s.ink = first < 0 ? 0 : last - first + 1;
  const json& l = s.j.at("layout");
  const double status_y = l.at("status_y").get<double>(), status_h = l.at("status_h").get<double>();
  const auto [sf, sl] = ink_rows(s.img, int(status_y), int(status_y + status_h), s.img.width);
  std::printf("%s: scale %.2f, font %.1f px, menu text %d px tall, status bar %.0f..%.0f of %d, text rows %d..%d\n",
              png.c_str(), s.j.at("ui_scale").get<double>(), s.font, s.ink, status_y, status_y + status_h, s.img.height,
              sf, sl);
  // Its text is whole: about a font's height of glyph rows (capitals, digits and descenders), and
  // clear of the window's bottom edge.
  if (sf < 0)
    ok = fail("error: no text in the status bar (%s)\n", png);
  else if (sl - sf + 1 < 0.6 * s.font || sl >= s.img.height - 1)
    ok = fail("error: the status bar's text is cut off (%s)\n", png);
  if (l.at("controls_w").get<double>() + l.at("canvas_w").get<double>() > s.img.width + 1.0)
    ok = fail("error: the panels are wider than the window (%s)\n", png);
  if (s.ink <= 0) ok = fail("error: no menu text found (%s)\n", png);
  return s;
}

bool check_scale(const std::string& png1, const std::string& png2) {
  bool ok = true;
  const Scaled a = measure(png1, ok), b = measure(png2, ok);
  const double font_ratio = b.font / a.font, ink_ratio = a.ink > 0 ? double(b.ink) / a.ink : 0;
  std::printf("font ratio %.3f, menu text height ratio %.3f\n", font_ratio, ink_ratio);
  if (std::abs(font_ratio - 2.0) > 0.05) ok = fail("error: the font did not double (%s)\n", std::to_string(font_ratio));
  if (ink_ratio < 1.8 || ink_ratio > 2.2)
    ok = fail("error: the text on screen did not double in height (%s)\n", std::to_string(ink_ratio));
  return ok;
}
} // namespace

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "shrink" && argc == 3) return check_shrink(argv[2]) ? 0 : 1;
    if (mode == "scale" && argc == 4) return check_scale(argv[2], argv[3]) ? 0 : 1;
    std::fprintf(stderr, "usage: %s shrink SHOT.png | scale SCALE1.png SCALE2.png\n", argv[0]);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
