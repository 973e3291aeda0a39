/// Checks two `redraw gui --screenshot` captures of the same run at two step counts:
/// - each reconstruction area (from the FILE.json sidecar) is not blank: its luminance varies and
///   it is not one flat colour;
/// - the later capture's step is larger, and its reconstruction differs from the earlier one.
/// Usage: redraw_gui_screenshot_check EARLY.png LATE.png. Exit 0 on success, 1 with a message.
/// Compare runs: redraw_gui_screenshot_check --compare SHOT.png [RUNS] checks that every shown run's
/// picture (the sidecar's "compare_runs" rectangles; at least RUNS of them, 2 by default) is not
/// blank, and that no two overlap or show the same picture.
/// Owner map: redraw_gui_screenshot_check --owner-map OFF.png ON.png checks two captures of the same
/// step, the Sites window's owner map off and on ("distinct" colours, opaque): with it the
/// reconstruction area shows another picture, one of many colours in flat cells (most pixels equal
/// their right neighbour) with the diagram's darker edges between them.
/// Growth marks: redraw_gui_screenshot_check --growth-marks GROW.png PLAIN.png checks a run whose
/// Gaussians grow (at least two growth events) and the same run without growth: the first shows a
/// column of the marks' colour on the loss plot at each event's step and a tick on the timelapse
/// slider at its place among the frames, and nowhere else; the second shows none.
/// Sharp zoom: redraw_gui_screenshot_check --zoom BLOCK TEXELS.png SHARP.png checks that the same
/// view zoomed BLOCK times is blocky as enlarged texels and has detail inside them when sharp.
#include "engine/images/image.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {
struct Capture {
  redraw::Image img;
  int x = 0, y = 0, w = 0, h = 0;
  long long step = 0;
};

Capture load(const std::string& png, const char* key = "reconstruction") {
  Capture c;
  c.img = redraw::load_image(png);
  std::ifstream in(png + ".json");
  if (!in) throw std::runtime_error(png + ".json: missing sidecar");
  nlohmann::json j;
  in >> j;
  const auto& r = j.at(key);
  // Inset by 2 pixels so the frame around the picture is not counted.
  c.x = int(std::ceil(r[0].get<double>())) + 2;
  c.y = int(std::ceil(r[1].get<double>())) + 2;
  c.w = int(std::floor(r[2].get<double>())) - 4;
  c.h = int(std::floor(r[3].get<double>())) - 4;
  c.step = j.at("step").get<long long>();
  if (c.w < 8 || c.h < 8 || c.x < 0 || c.y < 0 || c.x + c.w > c.img.width || c.y + c.h > c.img.height)
    throw std::runtime_error(png + ": reconstruction rectangle is empty or outside the image");
  return c;
}

float luma(const Capture& c, int x, int y) {
  const redraw::Image& im = c.img;
  if (im.channels < 3) return im.at(c.x + x, c.y + y, 0);
  return 0.299f * im.at(c.x + x, c.y + y, 0) + 0.587f * im.at(c.x + x, c.y + y, 1) +
         0.114f * im.at(c.x + x, c.y + y, 2);
}

bool not_blank(const Capture& c, const char* name) {
  double sum = 0, sq = 0;
  std::vector<int> hist(16, 0);
  for (int y = 0; y < c.h; ++y)
    for (int x = 0; x < c.w; ++x) {
      const double v = luma(c, x, y);
      sum += v;
      sq += v * v;
      ++hist[size_t(std::clamp(int(v * 16), 0, 15))];
    }
  const double n = double(c.w) * c.h, mean = sum / n, sd = std::sqrt(std::max(0.0, sq / n - mean * mean));
  const int top = *std::max_element(hist.begin(), hist.end());
  std::printf("%s: step %lld, area %dx%d at (%d, %d), mean %.3f, stddev %.3f, largest bin %.1f%%\n", name, c.step, c.w,
              c.h, c.x, c.y, mean, sd, 100.0 * top / n);
  return sd > 0.02 && top < 0.98 * n;
}

/// Mean |a - b| of the luminance over the area both cover.
double mean_diff(const Capture& a, const Capture& b) {
  const int w = std::min(a.w, b.w), h = std::min(a.h, b.h);
  double diff = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      diff += std::abs(luma(a, x, y) - luma(b, x, y));
  return diff / (double(w) * h);
}

/// Compare runs: every shown run's picture (the sidecar's "compare_runs", at least `runs` of them)
/// is not blank, no two overlap on screen, and no two show the same picture.
int check_compare(const std::string& png, size_t runs) {
  std::ifstream in(png + ".json");
  if (!in) throw std::runtime_error(png + ".json: missing sidecar");
  nlohmann::json j;
  in >> j;
  std::vector<Capture> shown;
  std::vector<std::string> names;
  const redraw::Image img = redraw::load_image(png);
  for (const auto& run : j.at("compare_runs")) {
    Capture c;
    c.img = img;
    const auto& r = run.at("rect"); // inset by 2 pixels so the frame around the picture is not counted
    c.x = int(std::ceil(r[0].get<double>())) + 2;
    c.y = int(std::ceil(r[1].get<double>())) + 2;
    c.w = int(std::floor(r[2].get<double>())) - 4;
    c.h = int(std::floor(r[3].get<double>())) - 4;
    c.step = run.at("step").get<long long>();
    names.push_back("run " + run.at("run").get<std::string>());
    if (c.w < 8 || c.h < 8 || c.x < 0 || c.y < 0 || c.x + c.w > c.img.width || c.y + c.h > c.img.height)
      throw std::runtime_error(png + ": " + names.back() + "'s rectangle is empty or outside the image");
    shown.push_back(std::move(c));
  }
  bool ok = true;
  if (shown.size() < runs)
    ok = (std::fprintf(stderr, "error: %zu runs shown, expected %zu\n", shown.size(), runs), false);
  for (size_t i = 0; i < shown.size(); ++i)
    if (!not_blank(shown[i], names[i].c_str()))
      ok = (std::fprintf(stderr, "error: %s's picture is blank\n", names[i].c_str()), false);
  for (size_t i = 0; i < shown.size(); ++i)
    for (size_t k = i + 1; k < shown.size(); ++k) {
      const Capture &a = shown[i], &b = shown[k];
      if (a.x + a.w > b.x && b.x + b.w > a.x && a.y + a.h > b.y && b.y + b.h > a.y)
        ok = (std::fprintf(stderr, "error: %s's and %s's pictures overlap on screen\n", names[i].c_str(),
                           names[k].c_str()),
              false);
      const double diff = mean_diff(a, b);
      std::printf("mean |%s - %s| = %.4f\n", names[k].c_str(), names[i].c_str(), diff);
      // The same picture drawn twice gives 0; two runs of different models never do, however close
      // both come to the target (well-trained runs on the drawing differ by a few thousandths).
      if (diff < 1e-6)
        ok = (std::fprintf(stderr, "error: %s and %s show the same picture\n", names[i].c_str(), names[k].c_str()),
              false);
    }
  return ok ? 0 : 1;
}
/// The share of the luminance's variance that lies inside the cells of a `block`-pixel grid
/// (the rest lies between the cells' means), for the grid offset that makes it least: 0 for a
/// picture enlarged from texels block times (every cell one colour), above for a picture with
/// detail inside the texels.
double within_block_share(const Capture& c, int block) {
  double sum = 0, sq = 0;
  for (int y = 0; y < c.h; ++y)
    for (int x = 0; x < c.w; ++x) {
      const double v = luma(c, x, y);
      sum += v;
      sq += v * v;
    }
  const double n = double(c.w) * c.h, total = sq - sum * sum / n;
  if (!(total > 0)) return 0;
  double least = 1;
  for (int oy = 0; oy < block; ++oy)
    for (int ox = 0; ox < block; ++ox) {
      double within = 0;
      for (int by = oy - block; by < c.h; by += block)
        for (int bx = ox - block; bx < c.w; bx += block) {
          double s = 0, q = 0, k = 0;
          for (int y = std::max(0, by); y < std::min(c.h, by + block); ++y)
            for (int x = std::max(0, bx); x < std::min(c.w, bx + block); ++x) {
              const double v = luma(c, x, y);
              s += v;
              q += v * v;
              ++k;
            }
          if (k > 0) within += q - s * s / k;
        }
      least = std::min(least, within / total);
    }
  return least;
}

/// The sharp zoom: the same view zoomed `block` times, as enlarged texels and as drawn at screen
/// resolution: both show the picture, the first is blocky, the second has detail inside the texels.
int check_zoom(int block, const std::string& texels_png, const std::string& sharp_png) {
  const Capture t = load(texels_png), s = load(sharp_png);
  bool ok = true;
  if (!not_blank(t, "texels") || !not_blank(s, "sharp")) ok = (std::fprintf(stderr, "error: a zoomed picture is blank\n"), false);
  const double wt = within_block_share(t, block), ws = within_block_share(s, block);
  std::printf("variance inside %dx%d cells: texels %.3f, sharp %.3f\n", block, block, wt, ws);
  // Edges carry the variance inside the cells; flat regions carry most of it between them (a
  // binary drawing enlarged 12x: ~0 against ~0.03 sharp).
  if (!(wt < 0.005)) ok = (std::fprintf(stderr, "error: the texel view is not blocky (is it already sharp?)\n"), false);
  if (!(ws > 0.01 && ws > 5 * wt))
    ok = (std::fprintf(stderr, "error: the sharp zoom shows no detail inside the texels\n"), false);
  const double diff = mean_diff(t, s);
  std::printf("mean |sharp - texels| = %.4f\n", diff);
  if (diff > 0.1) ok = (std::fprintf(stderr, "error: the sharp zoom shows another picture\n"), false);
  return ok ? 0 : 1;
}

/// See the header: the owner map's capture against the plain one at the same step.
int check_owner_map(const std::string& off_png, const std::string& on_png) {
  const Capture off = load(off_png), on = load(on_png);
  bool ok = not_blank(on, "owner map");
  if (off.step != on.step)
    ok = (std::fprintf(stderr, "error: the captures are of steps %lld and %lld\n", off.step, on.step), false);
  const double diff = mean_diff(off, on);
  std::vector<uint32_t> colours;
  int64_t flat = 0, pairs = 0;
  for (int y = 0; y < on.h; ++y)
    for (int x = 0; x < on.w; ++x) {
      uint32_t key = 0, right = 0;
      for (int k = 0; k < 3; ++k) {
        key = key * 64 + uint32_t(std::clamp(on.img.at(on.x + x, on.y + y, k), 0.0f, 1.0f) * 63.0f + 0.5f);
        if (x + 1 < on.w)
          right = right * 64 + uint32_t(std::clamp(on.img.at(on.x + x + 1, on.y + y, k), 0.0f, 1.0f) * 63.0f + 0.5f);
      }
      colours.push_back(key);
      if (x + 1 < on.w) flat += key == right, ++pairs;
    }
  std::sort(colours.begin(), colours.end());
  const size_t distinct = size_t(std::unique(colours.begin(), colours.end()) - colours.begin());
  const double flat_share = double(flat) / double(std::max<int64_t>(1, pairs));
  std::printf("mean |owner map - picture| = %.4f, %zu colours, %.1f%% of pixels equal their right neighbour\n", diff,
              distinct, 100.0 * flat_share);
  if (diff < 0.03) ok = (std::fprintf(stderr, "error: the owner map does not show over the picture\n"), false);
  if (distinct < 30) ok = (std::fprintf(stderr, "error: the owner map has too few colours for its sites\n"), false);
  if (flat_share < 0.5) ok = (std::fprintf(stderr, "error: the owner map is not flat cells\n"), false);
  return ok ? 0 : 1;
}
/// The growth marks' colour (ui/state/shown_runs.h, k_growth_mark_rgb) within `tol` per channel.
bool growth_coloured(const redraw::Image& im, int x, int y, int tol = 12) {
  const int want[3] = {110, 215, 140};
  for (int k = 0; k < 3; ++k)
    if (std::abs(int(std::lround(im.at(x, y, k) * 255.0f)) - want[k]) > tol) return false;
  return true;
}

/// The columns of [x0, x1) x [y0, y1) (pixel bounds) whose pixels are at least `share` marks' colour.
std::vector<int> marked_columns(const redraw::Image& im, int x0, int y0, int x1, int y1, double share) {
  std::vector<int> out;
  for (int x = std::max(0, x0); x < std::min(im.width, x1); ++x) {
    int hits = 0;
    for (int y = std::max(0, y0); y < std::min(im.height, y1); ++y)
      hits += growth_coloured(im, x, y);
    if (hits >= share * double(y1 - y0)) out.push_back(x);
  }
  return out;
}

/// Every expected column has a marked column within a pixel and every marked column an expected
/// one; prints both. `what` names the place.
bool columns_match(const std::vector<int>& expected, const std::vector<int>& found, const char* what) {
  const auto near = [](const std::vector<int>& list, int x) {
    return std::any_of(list.begin(), list.end(), [x](int v) { return std::abs(v - x) <= 1; });
  };
  std::string e, f;
  for (int x : expected) e += " " + std::to_string(x);
  for (int x : found) f += " " + std::to_string(x);
  std::printf("%s: expected columns [%s ], marked columns [%s ]\n", what, e.c_str(), f.c_str());
  bool ok = true;
  for (int x : expected)
    if (!near(found, x)) ok = (std::fprintf(stderr, "error: %s: no mark at column %d\n", what, x), false);
  for (int x : found)
    if (!near(expected, x)) ok = (std::fprintf(stderr, "error: %s: a mark at column %d, where no event is\n", what, x), false);
  return ok;
}

/// One capture's growth marks: on the loss plot a column of the marks' colour at each event's step
/// (x from the plot's area and the steps at its edges) and nowhere else; on the timelapse slider
/// a tick at each event's place between the frames around its step. Returns the events seen.
size_t check_growth_capture(const std::string& png, bool& ok) {
  const redraw::Image img = redraw::load_image(png);
  std::ifstream in(png + ".json");
  if (!in) throw std::runtime_error(png + ".json: missing sidecar");
  nlohmann::json j;
  in >> j;
  const auto& g = j.at("growth");
  std::vector<long long> steps;
  for (const auto& e : g.at("events")) steps.push_back(e.at(0).get<long long>());
  const auto& plot = g.at("loss_plot");
  const double x0 = plot.at("area")[0], y0 = plot.at("area")[1], x1 = plot.at("area")[2], y1 = plot.at("area")[3];
  const double lo = plot.at("steps")[0], hi = plot.at("steps")[1];
  if (!(x1 - x0 > 20 && y1 - y0 > 20 && hi > lo)) throw std::runtime_error(png + ": the loss plot was not drawn");
  std::vector<int> expected;
  for (long long s : steps)
    if (s >= lo && s <= hi) expected.push_back(std::min(int(std::floor(x0 + (double(s) - lo) / (hi - lo) * (x1 - x0))), int(x1) - 1));
  const std::vector<int> found =
      marked_columns(img, int(std::ceil(x0)), int(std::ceil(y0)) + 1, int(std::floor(x1)), int(std::floor(y1)) - 1, 0.6);
  std::printf("%s: step %lld, %zu growth events, loss plot %.0fx%.0f at (%.0f, %.0f) over steps %.0f..%.0f\n",
              png.c_str(), j.at("step").get<long long>(), steps.size(), x1 - x0, y1 - y0, x0, y0, lo, hi);
  ok = columns_match(expected, found, "loss plot") && ok;
  const auto& sl = g.at("slider");
  std::vector<long long> frames;
  for (const auto& f : sl.at("frame_steps")) frames.push_back(f.get<long long>());
  const double sx0 = sl.at("rect")[0], sy0 = sl.at("rect")[1], sx1 = sl.at("rect")[2], sy1 = sl.at("rect")[3];
  const double t0 = sl.at("track")[0], t1 = sl.at("track")[1];
  if (frames.size() < 2 || !(sx1 - sx0 > 20)) throw std::runtime_error(png + ": the timelapse slider was not drawn");
  std::vector<int> ticks;
  for (long long s : steps) {
    if (s > frames.back()) continue;
    size_t i = 0;
    while (i < frames.size() && frames[i] < s) ++i;
    const double f = i == 0 ? 0.0 : double(i - 1) + double(s - frames[i - 1]) / double(std::max(1LL, frames[i] - frames[i - 1]));
    ticks.push_back(int(std::floor(t0 + f / double(frames.size() - 1) * (t1 - t0))));
  }
  const std::vector<int> tick_found = marked_columns(img, int(std::ceil(sx0)), int(std::ceil(sy0)),
                                                     int(std::floor(sx1)), int(std::floor(sy1)), 0.4);
  std::printf("timelapse slider %.0fx%.0f at (%.0f, %.0f), %zu frames\n", sx1 - sx0, sy1 - sy0, sx0, sy0, frames.size());
  ok = columns_match(ticks, tick_found, "timelapse slider") && ok;
  return steps.size();
}

/// Growth marks: GROW.png (a run that grows, at least two events) has them where its events are,
/// PLAIN.png (the same run without growth, at the same step) has none.
int check_growth_marks(const std::string& grow_png, const std::string& plain_png) {
  bool ok = true;
  const size_t grown = check_growth_capture(grow_png, ok), plain = check_growth_capture(plain_png, ok);
  if (grown < 2) ok = (std::fprintf(stderr, "error: %zu growth events in the growing run, expected at least 2\n", grown), false);
  if (plain != 0) ok = (std::fprintf(stderr, "error: %zu growth events in the run without growth\n", plain), false);
  return ok ? 0 : 1;
}

/// EARLY.png and LATE.png: two captures of one run, the later one at a later step, neither blank,
/// and the reconstruction changed between them.
int check_early_late(const std::string& early_png, const std::string& late_png) {
  const Capture a = load(early_png), b = load(late_png);
  bool ok = true;
  if (!not_blank(a, "early")) ok = (std::fprintf(stderr, "error: early reconstruction is blank\n"), false);
  if (!not_blank(b, "late")) ok = (std::fprintf(stderr, "error: late reconstruction is blank\n"), false);
  if (b.step <= a.step)
    ok = (std::fprintf(stderr, "error: late step %lld is not after early step %lld\n", b.step, a.step), false);
  const double diff = mean_diff(a, b);
  std::printf("mean |late - early| = %.4f\n", diff);
  if (diff < 0.005)
    ok = (std::fprintf(stderr, "error: the reconstruction did not change between the captures\n"), false);
  return ok ? 0 : 1;
}

/// Runs one check: its exit status, or 1 after "error: <what>" for an exception.
template <class Check> int run_check(const Check& check) {
  try {
    return check();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
} // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (argc == 4 && mode == "--growth-marks") return run_check([&] { return check_growth_marks(argv[2], argv[3]); });
  if (argc == 4 && mode == "--owner-map") return run_check([&] { return check_owner_map(argv[2], argv[3]); });
  if (argc == 5 && mode == "--zoom") return run_check([&] { return check_zoom(std::stoi(argv[2]), argv[3], argv[4]); });
  if ((argc == 3 || argc == 4) && mode == "--compare")
    return run_check([&] { return check_compare(argv[2], argc == 4 ? size_t(std::stoul(argv[3])) : 2); });
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s EARLY.png LATE.png\n", argv[0]);
    return 2;
  }
  return run_check([&] { return check_early_late(argv[1], argv[2]); });
}
