/// Checks two `redraw gui --screenshot` captures of a run with the Spectrum or Neuron maps window
/// open (FILE.insight.json sidecars from ui/panels/insight_views.cpp): every view area named in both
/// sidecars is not blank (its luminance varies, it is not one flat colour) and differs between the
/// early and the late capture; the views' steps increase.
/// Usage: redraw_gui_insight_check EARLY.png LATE.png. Exit 0 on success, 1 with a message.
#include "engine/images/image.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

struct Area {
  int x = 0, y = 0, w = 0, h = 0;
};

nlohmann::json sidecar(const std::string& png) {
  std::ifstream in(png + ".insight.json");
  if (!in) throw std::runtime_error(png + ".insight.json: missing sidecar");
  nlohmann::json j;
  in >> j;
  return j;
}

Area area(const nlohmann::json& r, const redraw::Image& img, const std::string& what) {
  Area a; // inset by 2 pixels so borders are not counted
  a.x = int(std::ceil(r[0].get<double>())) + 2;
  a.y = int(std::ceil(r[1].get<double>())) + 2;
  a.w = int(std::floor(r[2].get<double>())) - 4;
  a.h = int(std::floor(r[3].get<double>())) - 4;
  if (a.w < 8 || a.h < 8 || a.x < 0 || a.y < 0 || a.x + a.w > img.width || a.y + a.h > img.height)
    throw std::runtime_error(what + ": the rectangle is empty or outside the screenshot");
  return a;
}

float luma(const redraw::Image& im, int x, int y) {
  if (im.channels < 3) return im.at(x, y, 0);
  return 0.299f * im.at(x, y, 0) + 0.587f * im.at(x, y, 1) + 0.114f * im.at(x, y, 2);
}

bool not_blank(const redraw::Image& im, const Area& a, const std::string& name) {
  double sum = 0, sq = 0;
  std::vector<int> hist(16, 0);
  for (int y = 0; y < a.h; ++y)
    for (int x = 0; x < a.w; ++x) {
      const double v = luma(im, a.x + x, a.y + y);
      sum += v;
      sq += v * v;
      ++hist[size_t(std::clamp(int(v * 16), 0, 15))];
    }
  const double n = double(a.w) * a.h, mean = sum / n, sd = std::sqrt(std::max(0.0, sq / n - mean * mean));
  const int top = *std::max_element(hist.begin(), hist.end());
  std::printf("%s: area %dx%d at (%d, %d), mean %.3f, stddev %.3f, largest bin %.1f%%\n", name.c_str(), a.w, a.h, a.x,
              a.y, mean, sd, 100.0 * top / n);
  return sd > 0.02 && top < 0.98 * n;
}

/// Mean |late - early| of the luminance, the late area sampled at the early one's positions.
double difference(const redraw::Image& ia, const Area& a, const redraw::Image& ib, const Area& b) {
  double diff = 0;
  for (int y = 0; y < a.h; ++y)
    for (int x = 0; x < a.w; ++x) {
      const int bx = b.x + x * b.w / a.w, by = b.y + y * b.h / a.h;
      diff += std::abs(luma(ia, a.x + x, a.y + y) - luma(ib, bx, by));
    }
  return diff / (double(a.w) * a.h);
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s EARLY.png LATE.png\n", argv[0]);
    return 2;
  }
  try {
    const redraw::Image ia = redraw::load_image(argv[1]), ib = redraw::load_image(argv[2]);
    const nlohmann::json ja = sidecar(argv[1]), jb = sidecar(argv[2]);
    bool ok = true;
    int areas = 0;
    for (const char* key : {"spectrum_recon", "spectrum_heat", "neuron_grid"}) {
      if (!ja.contains(key) || !jb.contains(key)) continue;
      ++areas;
      const Area a = area(ja[key], ia, std::string(argv[1]) + " " + key);
      const Area b = area(jb[key], ib, std::string(argv[2]) + " " + key);
      if (!not_blank(ia, a, std::string("early ") + key))
        ok = (std::fprintf(stderr, "error: early %s is blank\n", key), false);
      if (!not_blank(ib, b, std::string("late ") + key))
        ok = (std::fprintf(stderr, "error: late %s is blank\n", key), false);
      const double d = difference(ia, a, ib, b);
      std::printf("%s: mean |late - early| = %.4f\n", key, d);
      if (d < 0.005) ok = (std::fprintf(stderr, "error: %s did not change between the captures\n", key), false);
    }
    for (const char* key : {"spectrum_step", "neuron_step"})
      if (ja.contains(key) && jb.contains(key) && jb[key].get<long long>() <= ja[key].get<long long>())
        ok = (std::fprintf(stderr, "error: %s did not increase\n", key), false);
    if (areas == 0) ok = (std::fprintf(stderr, "error: no insight view in the sidecars\n"), false);
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
