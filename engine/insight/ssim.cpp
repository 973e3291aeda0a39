#include "engine/insight/ssim.h"

#include "engine/errors.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace redraw {

namespace {
/// The five windowed quantities of a pixel's channel: x, y, x^2, y^2, x y.
constexpr size_t k_moments = 5;

/// Row `y` of both pictures filtered across by the Gaussian `g` (cut at the sides and
/// renormalised): `out` holds width * channels * 5 moments.
void filter_across(const Image& a, const Image& b, int32_t y, const std::vector<double>& g, int32_t r, double* out) {
  const int32_t w = a.width, c = a.channels;
  for (int32_t x = 0; x < w; ++x) {
    const int32_t lo = std::max(0, x - r), hi = std::min(w - 1, x + r);
    double norm = 0;
    for (int32_t i = lo; i <= hi; ++i)
      norm += g[size_t(i - x + r)];
    for (int32_t ch = 0; ch < c; ++ch) {
      double s[k_moments] = {};
      for (int32_t i = lo; i <= hi; ++i) {
        const double wt = g[size_t(i - x + r)], p = a.at(i, y, ch), q = b.at(i, y, ch);
        s[0] += wt * p;
        s[1] += wt * q;
        s[2] += wt * p * p;
        s[3] += wt * q * q;
        s[4] += wt * p * q;
      }
      double* o = out + (size_t(x) * size_t(c) + size_t(ch)) * k_moments;
      for (size_t k = 0; k < k_moments; ++k)
        o[k] = s[k] / norm;
    }
  }
}
} // namespace

double ssim(const Image& a, const Image& b, const SsimWindow& window) {
  if (a.width != b.width || a.height != b.height || a.channels != b.channels)
    throw ImageError("SSIM: the pictures differ in size (" + std::to_string(a.width) + "x" + std::to_string(a.height) +
                     "x" + std::to_string(a.channels) + " against " + std::to_string(b.width) + "x" +
                     std::to_string(b.height) + "x" + std::to_string(b.channels) + ")");
  if (a.pixel_count() <= 0 || a.channels <= 0) throw ImageError("SSIM: empty picture");
  if (window.radius < 0 || !(window.sigma > 0)) throw ImageError("SSIM: bad window");
  const int32_t r = window.radius, span = 2 * r + 1, w = a.width, h = a.height;
  std::vector<double> g(static_cast<size_t>(span));
  for (int32_t d = -r; d <= r; ++d)
    g[size_t(d + r)] = std::exp(-double(d) * d / (2 * window.sigma * window.sigma));
  const double c1 = window.k1 * window.k1, c2 = window.k2 * window.k2;

  const size_t row_len = size_t(w) * size_t(a.channels) * k_moments;
  std::vector<double> ring(size_t(span) * row_len), acc(row_len);
  const auto row = [&](int32_t y) { return ring.data() + size_t(y % span) * row_len; };
  int32_t filtered = 0; // rows [0, filtered) have been filtered across
  double total = 0;
  for (int32_t y = 0; y < h; ++y) {
    const int32_t lo = std::max(0, y - r), hi = std::min(h - 1, y + r);
    for (; filtered <= hi; ++filtered)
      filter_across(a, b, filtered, g, r, row(filtered));
    std::fill(acc.begin(), acc.end(), 0.0);
    double norm = 0;
    for (int32_t yy = lo; yy <= hi; ++yy) {
      const double wt = g[size_t(yy - y + r)];
      norm += wt;
      const double* src = row(yy);
      for (size_t i = 0; i < row_len; ++i)
        acc[i] += wt * src[i];
    }
    for (size_t i = 0; i < row_len; i += k_moments) {
      const double mx = acc[i] / norm, my = acc[i + 1] / norm;
      const double vx = acc[i + 2] / norm - mx * mx, vy = acc[i + 3] / norm - my * my;
      const double cov = acc[i + 4] / norm - mx * my;
      total += (2 * mx * my + c1) * (2 * cov + c2) / ((mx * mx + my * my + c1) * (vx + vy + c2));
    }
  }
  // Within [-1, 1] as SSIM is: a variance taken as E[x^2] - mean^2 can round a hair below 0 and a
  // map value a hair past 1, which a reader checking the range would refuse.
  return std::clamp(total / (double(a.pixel_count()) * a.channels), -1.0, 1.0);
}

} // namespace redraw
