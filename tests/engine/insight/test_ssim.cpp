// SSIM (engine/insight/ssim.h) against closed forms and a float64 reference that sums each
// pixel's 2-D window directly (the implementation filters across, then down, a few rows at a time).
#include "engine/errors.h"
#include "engine/insight/ssim.h"
#include "tests/tool_support.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace redraw {
namespace {

Image filled_ssim(int32_t w, int32_t h, int32_t c, float v) { return test::filled_image(w, h, c, v); }

Image noise(int32_t w, int32_t h, int32_t c, uint32_t seed) {
  Image im = filled_ssim(w, h, c, 0);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0, 1);
  for (float& p : im.pixels)
    p = u(rng);
  return im;
}

/// The paper's formula at every pixel, its window summed in 2-D and cut at the borders.
double reference_ssim(const Image& a, const Image& b, int32_t r, double sigma) {
  const double c1 = 1e-4, c2 = 9e-4;
  double total = 0;
  for (int32_t ch = 0; ch < a.channels; ++ch)
    for (int32_t y = 0; y < a.height; ++y)
      for (int32_t x = 0; x < a.width; ++x) {
        double n = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
        for (int32_t j = std::max(0, y - r); j <= std::min(a.height - 1, y + r); ++j)
          for (int32_t i = std::max(0, x - r); i <= std::min(a.width - 1, x + r); ++i) {
            const double wt = std::exp(-((i - x) * (i - x) + (j - y) * (j - y)) / (2 * sigma * sigma));
            const double p = a.at(i, j, ch), q = b.at(i, j, ch);
            n += wt;
            sx += wt * p;
            sy += wt * q;
            sxx += wt * p * p;
            syy += wt * q * q;
            sxy += wt * p * q;
          }
        const double mx = sx / n, my = sy / n;
        const double vx = sxx / n - mx * mx, vy = syy / n - my * my, cov = sxy / n - mx * my;
        total += (2 * mx * my + c1) * (2 * cov + c2) / ((mx * mx + my * my + c1) * (vx + vy + c2));
      }
  return total / (double(a.pixel_count()) * a.channels);
}

} // namespace

TEST_CASE("ssim: a picture against itself is 1; flat pictures follow the closed form") {
  const Image a = noise(17, 12, 3, 1);
  CHECK(ssim(a, a) == doctest::Approx(1.0).epsilon(1e-12));
  const double c1 = 1e-4;
  for (const auto& pq : {std::pair{0.2f, 0.6f}, std::pair{0.0f, 1.0f}, std::pair{0.5f, 0.5f}}) {
    const float p = pq.first, q = pq.second; // named copies: CAPTURE cannot take structured bindings (clang)
    CAPTURE(p);
    CAPTURE(q);
    const double want = (2.0 * p * q + c1) / (double(p) * p + double(q) * q + c1);
    CHECK(ssim(filled_ssim(9, 4, 1, p), filled_ssim(9, 4, 1, q)) == doctest::Approx(want).epsilon(1e-6));
    CHECK(ssim(filled_ssim(1, 1, 3, p), filled_ssim(1, 1, 3, q)) == doctest::Approx(want).epsilon(1e-6));
  }
}

TEST_CASE("ssim: worked by hand on two pixels") {
  Image x = filled_ssim(2, 1, 1, 0), y = filled_ssim(2, 1, 1, 0.5f);
  x.pixels = {0.0f, 1.0f};
  const double c1 = 1e-4, c2 = 9e-4;
  // A one-pixel window: no variance, so each pixel is its luminance term alone.
  SsimWindow point;
  point.radius = 0;
  CHECK(ssim(x, y, point) == doctest::Approx(((0 + c1) / (0.25 + c1) + (1 + c1) / (1.25 + c1)) / 2).epsilon(1e-9));
  // A flat window over both pixels: each sees the whole picture. x = (0, 1) and its reverse have
  // means 1/2, variances 1/4 and covariance -1/4.
  SsimWindow flat;
  flat.radius = 1;
  flat.sigma = 1e9;
  y.pixels = {1.0f, 0.0f};
  const double want = (2 * 0.25 + c1) * (-0.5 + c2) / ((0.5 + c1) * (0.5 + c2));
  CHECK(ssim(x, y, flat) == doctest::Approx(want).epsilon(1e-9));
}

TEST_CASE("ssim: equals the 2-D windowed sum at every size, borders included") {
  for (const auto& whc : {std::tuple{13, 9, 3}, std::tuple{1, 30, 1}, std::tuple{30, 1, 1}, std::tuple{24, 24, 1}}) {
    const auto [w0, h0, c0] = whc;
    const int w = w0, h = h0, c = c0; // named copies: CAPTURE cannot take structured bindings (clang)
    CAPTURE(w);
    CAPTURE(h);
    const Image a = noise(w, h, c, 2);
    Image b = a;
    std::mt19937 rng(3);
    std::normal_distribution<float> n(0, 0.1f);
    for (float& p : b.pixels)
      p = std::clamp(p + n(rng), 0.0f, 1.0f);
    const double got = ssim(a, b);
    CHECK(got == doctest::Approx(reference_ssim(a, b, 5, 1.5)).epsilon(1e-9));
    CHECK(got == doctest::Approx(ssim(b, a)).epsilon(1e-12)); // symmetric
    CHECK(got < 0.99);
  }
}

TEST_CASE("ssim: more noise, lower SSIM; mismatched pictures are refused") {
  const Image a = noise(32, 32, 1, 4);
  double last = 1.0;
  for (const float sd : {0.02f, 0.05f, 0.1f, 0.2f}) {
    Image b = a;
    std::mt19937 rng(5);
    std::normal_distribution<float> n(0, sd);
    for (float& p : b.pixels)
      p = std::clamp(p + n(rng), 0.0f, 1.0f);
    const double s = ssim(a, b);
    CHECK(s < last);
    last = s;
  }
  CHECK_THROWS_AS(ssim(a, noise(32, 31, 1, 1)), ImageError);
  CHECK_THROWS_AS(ssim(a, noise(32, 32, 3, 1)), ImageError);
  CHECK_THROWS_AS(ssim(Image{}, Image{}), ImageError);
}

} // namespace redraw
