#include "engine/insight/ms_ssim.h"

#include "engine/errors.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

namespace redraw {

namespace {
constexpr int32_t k_taps = 11;
constexpr double k_sigma = 1.5;
constexpr std::array<double, 5> k_weights = {0.0448, 0.2856, 0.3001, 0.2363, 0.1333};

/// One channel as doubles, row-major.
struct Plane {
  int32_t width = 0, height = 0;
  std::vector<double> v;
  double at(int32_t x, int32_t y) const { return v[size_t(y) * size_t(width) + size_t(x)]; }
};

Plane plane_of(const Image& im, int32_t channel) {
  Plane p{im.width, im.height, std::vector<double>(size_t(im.pixel_count()))};
  for (int32_t y = 0; y < im.height; ++y)
    for (int32_t x = 0; x < im.width; ++x)
      p.v[size_t(y) * size_t(im.width) + size_t(x)] = im.at(x, y, channel);
  return p;
}

std::array<double, k_taps> gaussian_taps() {
  std::array<double, k_taps> g{};
  double sum = 0;
  for (int32_t i = 0; i < k_taps; ++i)
    sum += g[size_t(i)] = std::exp(-double((i - k_taps / 2) * (i - k_taps / 2)) / (2 * k_sigma * k_sigma));
  for (double& t : g)
    t /= sum;
  return g;
}

/// 2 x 2 block means; an odd side gets a zero on each side first (counted in the mean).
Plane downsample(const Plane& p) {
  const int32_t px = p.width % 2, py = p.height % 2;
  Plane out{(p.width + px) / 2, (p.height + py) / 2, {}};
  out.v.assign(size_t(out.width) * size_t(out.height), 0.0);
  for (int32_t oy = 0; oy < out.height; ++oy)
    for (int32_t ox = 0; ox < out.width; ++ox) {
      double s = 0;
      for (int32_t dy = 0; dy < 2; ++dy)
        for (int32_t dx = 0; dx < 2; ++dx) {
          const int32_t x = 2 * ox - px + dx, y = 2 * oy - py + dy;
          if (x >= 0 && y >= 0 && x < p.width && y < p.height) s += p.at(x, y);
        }
      out.v[size_t(oy) * size_t(out.width) + size_t(ox)] = s / 4;
    }
  return out;
}

struct ScaleStats {
  double ssim = 0, cs = 0; ///< means of the SSIM and contrast-structure maps
};

/// The windowed statistics where the window fits: filtered across into `rows`, then down.
ScaleStats scale_stats(const Plane& a, const Plane& b, const std::array<double, k_taps>& g) {
  const int32_t w = a.width, h = a.height, ow = w - (k_taps - 1), oh = h - (k_taps - 1);
  constexpr double c1 = 0.01 * 0.01, c2 = 0.03 * 0.03;
  // Five moments (x, y, x^2, y^2, xy) filtered along each row, for every row.
  std::vector<double> across(size_t(h) * size_t(ow) * 5);
  for (int32_t y = 0; y < h; ++y)
    for (int32_t x = 0; x < ow; ++x) {
      double m[5] = {};
      for (int32_t t = 0; t < k_taps; ++t) {
        const double p = a.at(x + t, y), q = b.at(x + t, y), wt = g[size_t(t)];
        m[0] += wt * p;
        m[1] += wt * q;
        m[2] += wt * p * p;
        m[3] += wt * q * q;
        m[4] += wt * p * q;
      }
      std::copy(m, m + 5, &across[(size_t(y) * size_t(ow) + size_t(x)) * 5]);
    }
  double ssim_sum = 0, cs_sum = 0;
  for (int32_t y = 0; y < oh; ++y)
    for (int32_t x = 0; x < ow; ++x) {
      double m[5] = {};
      for (int32_t t = 0; t < k_taps; ++t)
        for (int32_t k = 0; k < 5; ++k)
          m[k] += g[size_t(t)] * across[(size_t(y + t) * size_t(ow) + size_t(x)) * 5 + size_t(k)];
      const double mx = m[0], my = m[1];
      const double vx = m[2] - mx * mx, vy = m[3] - my * my, cxy = m[4] - mx * my;
      const double cs = (2 * cxy + c2) / (vx + vy + c2);
      cs_sum += cs;
      ssim_sum += (2 * mx * my + c1) / (mx * mx + my * my + c1) * cs;
    }
  const double n = double(ow) * double(oh);
  return {ssim_sum / n, cs_sum / n};
}
} // namespace

double ms_ssim(const Image& a, const Image& b) {
  if (a.width != b.width || a.height != b.height || a.channels != b.channels)
    throw ImageError("MS-SSIM: the pictures differ in size or channels (" + std::to_string(a.width) + "x" +
                     std::to_string(a.height) + "x" + std::to_string(a.channels) + " against " +
                     std::to_string(b.width) + "x" + std::to_string(b.height) + "x" + std::to_string(b.channels) + ")");
  if (a.channels < 1 || std::min(a.width, a.height) <= k_ms_ssim_min_side)
    throw ImageError("MS-SSIM: a " + std::to_string(a.width) + "x" + std::to_string(a.height) +
                     " picture is too small (its smaller side must exceed " + std::to_string(k_ms_ssim_min_side) +
                     " pixels, for five scales of an 11-pixel window)");
  const std::array<double, k_taps> g = gaussian_taps();
  double total = 0;
  for (int32_t c = 0; c < a.channels; ++c) {
    Plane pa = plane_of(a, c), pb = plane_of(b, c);
    double value = 1;
    for (size_t s = 0; s < k_weights.size(); ++s) {
      const ScaleStats st = scale_stats(pa, pb, g);
      const bool last = s + 1 == k_weights.size();
      value *= std::pow(std::max(0.0, last ? st.ssim : st.cs), k_weights[s]);
      if (!last) {
        pa = downsample(pa);
        pb = downsample(pb);
      }
    }
    total += value;
  }
  return std::min(total / a.channels, 1.0); // each term is clamped at 0; rounding may not take it past 1
}

} // namespace redraw
