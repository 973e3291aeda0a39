// MS-SSIM (engine/insight/ms_ssim.h) against closed forms and a float64 reference written another
// way: each scale's statistics summed over the 2-D window directly (weights exp(-(i^2 + j^2) /
// 2 sigma^2) normalised as a whole), the pyramid built by indexing the full-resolution picture
// (a pixel of scale s is the mean of its 2^s x 2^s block), and the product taken in logs. The
// implementation filters separably and halves the picture scale by scale.
#include "engine/errors.h"
#include "engine/insight/ms_ssim.h"
#include "tests/tool_support.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace redraw {
namespace {

Image filled(int32_t w, int32_t h, int32_t c, float v) { return test::filled_image(w, h, c, v); }

/// A smooth picture plus noise of amplitude `noise`, so the scales differ.
Image pattern(int32_t w, int32_t h, int32_t c, uint32_t seed, double noise) {
  Image im = filled(w, h, c, 0);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int32_t y = 0; y < h; ++y)
    for (int32_t x = 0; x < w; ++x)
      for (int32_t ch = 0; ch < c; ++ch) {
        const double v = 0.5 + 0.3 * std::sin(0.07 * x + ch) * std::cos(0.05 * y) + noise * u(rng);
        im.at(x, y, ch) = float(std::clamp(v, 0.0, 1.0));
      }
  return im;
}

/// The reference, for sides that halve evenly four times (multiples of 16).
double reference_ms_ssim(const Image& a, const Image& b) {
  const double weights[5] = {0.0448, 0.2856, 0.3001, 0.2363, 0.1333};
  double kernel[11][11], ksum = 0;
  for (int i = 0; i < 11; ++i)
    for (int j = 0; j < 11; ++j)
      ksum += kernel[i][j] = std::exp(-((i - 5) * (i - 5) + (j - 5) * (j - 5)) / 4.5);
  double result = 0;
  for (int ch = 0; ch < a.channels; ++ch) {
    double log_value = 0;
    for (int s = 0; s < 5; ++s) {
      const int block = 1 << s, w = a.width / block, h = a.height / block;
      auto pyr = [&](const Image& im, int x, int y) {
        double sum = 0;
        for (int dy = 0; dy < block; ++dy)
          for (int dx = 0; dx < block; ++dx)
            sum += im.at(x * block + dx, y * block + dy, ch);
        return sum / (block * block);
      };
      std::vector<double> pa(size_t(w) * h), pb(size_t(w) * h);
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          pa[size_t(y) * w + x] = pyr(a, x, y);
          pb[size_t(y) * w + x] = pyr(b, x, y);
        }
      double ssim_sum = 0, cs_sum = 0;
      long n = 0;
      for (int y = 0; y + 11 <= h; ++y)
        for (int x = 0; x + 11 <= w; ++x, ++n) {
          double mx = 0, my = 0, sxx = 0, syy = 0, sxy = 0;
          for (int i = 0; i < 11; ++i)
            for (int j = 0; j < 11; ++j) {
              const double k = kernel[i][j] / ksum, p = pa[size_t(y + i) * w + x + j],
                           q = pb[size_t(y + i) * w + x + j];
              mx += k * p;
              my += k * q;
              sxx += k * p * p;
              syy += k * q * q;
              sxy += k * p * q;
            }
          const double cs = (2 * (sxy - mx * my) + 9e-4) / ((sxx - mx * mx) + (syy - my * my) + 9e-4);
          cs_sum += cs;
          ssim_sum += cs * (2 * mx * my + 1e-4) / (mx * mx + my * my + 1e-4);
        }
      const double term = s == 4 ? ssim_sum / double(n) : cs_sum / double(n);
      log_value += weights[s] * std::log(std::max(term, 1e-300));
    }
    result += std::exp(log_value);
  }
  return result / a.channels;
}

} // namespace

TEST_CASE("ms_ssim: identical pictures give exactly 1") {
  const Image a = pattern(176, 192, 3, 1, 0.1);
  CHECK(ms_ssim(a, a) == doctest::Approx(1.0).epsilon(1e-12));
}

TEST_CASE("ms_ssim: two flat pictures give the luminance term at the coarsest scale alone") {
  // Every variance is 0, so each cs is C2 / C2 = 1 and only s_5 = (2ab + C1) / (a^2 + b^2 + C1) is left.
  const double va = 0.25, vb = 0.75;
  const Image a = filled(192, 176, 1, float(va)), b = filled(192, 176, 1, float(vb));
  const double c1 = 1e-4, l = (2 * va * vb + c1) / (va * va + vb * vb + c1);
  CHECK(ms_ssim(a, b) == doctest::Approx(std::pow(l, 0.1333)).epsilon(1e-9));
}

TEST_CASE("ms_ssim: matches the direct float64 reference within 1e-4") {
  for (const double noise : {0.02, 0.2}) {
    const Image a = pattern(192, 176, 3, 2, 0.0), b = pattern(192, 176, 3, 3, noise);
    const double got = ms_ssim(a, b), want = reference_ms_ssim(a, b);
    CAPTURE(noise);
    CAPTURE(got);
    CAPTURE(want);
    CHECK(std::abs(got - want) < 1e-4);
    CHECK(got < 0.999); // the noise is seen: the test could fail
  }
}

TEST_CASE("ms_ssim: an odd side is padded with zeros that count in the 2x2 mean") {
  // A flat picture of value v with odd sides: the padded border blocks average to v/2 (or v/4 at
  // a corner), so a flat pair is no longer flat at scale 2 and the result moves off the flat-pair
  // value; identical pictures still give 1.
  const Image a = filled(177, 193, 1, 0.5f), b = filled(177, 193, 1, 0.6f);
  CHECK(ms_ssim(a, a) == doctest::Approx(1.0).epsilon(1e-12));
  const double c1 = 1e-4, l = (2 * 0.5 * 0.6 + c1) / (0.25 + 0.36 + c1);
  CHECK(std::abs(ms_ssim(a, b) - std::pow(l, 0.1333)) > 1e-6);
}

TEST_CASE("ms_ssim: refuses pictures it cannot measure, saying why") {
  const Image small = filled(160, 400, 1, 0.5f), big = filled(200, 200, 1, 0.5f), rgb = filled(200, 200, 3, 0.5f);
  CHECK_THROWS_WITH_AS(ms_ssim(small, small), doctest::Contains("must exceed 160"), ImageError);
  CHECK_THROWS_WITH_AS(ms_ssim(big, rgb), doctest::Contains("differ in size or channels"), ImageError);
}

} // namespace redraw
