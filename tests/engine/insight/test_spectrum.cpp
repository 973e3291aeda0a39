// The frequency view (engine/insight/spectrum.h) against closed forms and a float64 DFT written out.
#include "engine/errors.h"
#include "engine/insight/spectrum.h"
#include "engine/insight/spectrum_history.h"
#include "test_support.h"

#include <doctest/doctest.h>

#include <cmath>
#include <complex>
#include <random>
#include <sstream>
#include <tuple>

namespace redraw {
namespace {

Image blank(int32_t w, int32_t h, int32_t c) {
  Image im;
  im.width = w;
  im.height = h;
  im.channels = c;
  im.pixels.assign(size_t(w) * size_t(h) * size_t(c), 0.0f);
  return im;
}

/// The DFT of one channel at (kx, ky), summed in double: the independent reference.
std::complex<double> naive_dft(const Image& im, int32_t c, int32_t kx, int32_t ky) {
  std::complex<double> s = 0;
  for (int32_t y = 0; y < im.height; ++y)
    for (int32_t x = 0; x < im.width; ++x) {
      const double a = -2 * M_PI * (double(kx) * x / im.width + double(ky) * y / im.height);
      s += double(im.at(x, y, c)) * std::complex<double>(std::cos(a), std::sin(a));
    }
  return s;
}

/// Position of the largest value outside the centre (the DC term) of a centred magnitude.
std::pair<int32_t, int32_t> peak_off_dc(const std::vector<float>& mag, int32_t w, int32_t h) {
  int32_t bx = -1, by = -1;
  float best = -1;
  for (int32_t y = 0; y < h; ++y)
    for (int32_t x = 0; x < w; ++x) {
      if (x == w / 2 && y == h / 2) continue;
      if (mag[size_t(y) * size_t(w) + size_t(x)] > best) best = mag[size_t(y) * size_t(w) + size_t(x)], bx = x, by = y;
    }
  return {bx, by};
}

} // namespace

TEST_CASE("spectrum: a single sinusoid peaks at its frequency, with the DFT's amplitude") {
  const int32_t w = 64, h = 48, fx = 5, fy = 3;
  Image im = blank(w, h, 1);
  for (int32_t y = 0; y < h; ++y)
    for (int32_t x = 0; x < w; ++x)
      im.at(x, y, 0) = float(0.5 + 0.4 * std::cos(2 * M_PI * (double(fx) * x / w + double(fy) * y / h)));
  SpectrumAnalyzer a(w, h);
  const std::vector<float> mag = a.magnitude(im);
  const auto [px, py] = peak_off_dc(mag, w, h);
  // Centred: frequency (kx, ky) sits at (w/2 + kx, h/2 + ky); the peak is +f or its mirror -f.
  const bool plus = px == w / 2 + fx && py == h / 2 + fy, minus = px == w / 2 - fx && py == h / 2 - fy;
  CHECK((plus || minus));
  // |X(f)| = 0.4 * N / 2, the DC term 0.5 * N.
  const double n = double(w) * h;
  CHECK(mag[size_t(h / 2 + fy) * w + size_t(w / 2 + fx)] == doctest::Approx(0.2 * n).epsilon(1e-4));
  CHECK(mag[size_t(h / 2 - fy) * w + size_t(w / 2 - fx)] == doctest::Approx(0.2 * n).epsilon(1e-4));
  CHECK(mag[size_t(h / 2) * w + size_t(w / 2)] == doctest::Approx(0.5 * n).epsilon(1e-4));
  // The error of a zero prediction against the sinusoid minus its mean: all power in the band of
  // radius sqrt((5/64)^2 + (3/48)^2) = 0.1.
  Image zero_mean = im;
  for (float& v : zero_mean.pixels)
    v -= 0.5f;
  const std::vector<double> p = a.error_band_power(zero_mean, blank(w, h, 1));
  const int32_t band = int32_t(std::hypot(double(fx) / w, double(fy) / h) / 0.5 * a.bands());
  CHECK(a.band_of(fx, fy) == band);
  CHECK(p[size_t(band)] == doctest::Approx(0.4 * 0.4 / 2).epsilon(1e-4));
  for (int32_t b = 0; b < a.bands(); ++b)
    if (b != band) CHECK(p[size_t(b)] < 1e-9);
}

TEST_CASE("spectrum: a checkerboard peaks at Nyquist, in the last band") {
  const int32_t w = 32, h = 20;
  Image im = blank(w, h, 3);
  for (int32_t y = 0; y < h; ++y)
    for (int32_t x = 0; x < w; ++x)
      for (int32_t c = 0; c < 3; ++c)
        im.at(x, y, c) = float((x + y) % 2);
  SpectrumAnalyzer a(w, h, 8);
  const std::vector<float> mag = a.magnitude(im);
  // Nyquist (w/2, h/2) is centred to (0, 0).
  CHECK(peak_off_dc(mag, w, h) == std::pair<int32_t, int32_t>{0, 0});
  CHECK(mag[0] == doctest::Approx(0.5 * w * h).epsilon(1e-5));
  Image half = blank(w, h, 3);
  for (float& v : half.pixels)
    v = 0.5f;
  const std::vector<double> p = a.error_band_power(im, half); // error: +-0.5 alternating, MSE 0.25
  CHECK(p.back() == doctest::Approx(0.25).epsilon(1e-5));
  for (size_t b = 0; b + 1 < p.size(); ++b)
    CHECK(p[b] < 1e-9);
  const Image logm = a.log_magnitude_image(im);
  CHECK(logm.channels == 1);
  CHECK(*std::max_element(logm.pixels.begin(), logm.pixels.end()) == doctest::Approx(1.0));
}

TEST_CASE("spectrum: band powers match a float64 DFT and add up to the MSE (Parseval)") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(0, 1);
  for (const auto& size : {std::tuple{9, 7, 3}, std::tuple{16, 12, 1}, std::tuple{13, 11, 2}, std::tuple{31, 40, 3}}) {
    // Named ints, not a structured binding: clang 14 cannot capture a binding in CAPTURE's lambda.
    const int w = std::get<0>(size), h = std::get<1>(size), c = std::get<2>(size);
    CAPTURE(w);
    CAPTURE(h);
    Image t = blank(w, h, c), p = blank(w, h, c);
    for (float& v : t.pixels)
      v = u(rng);
    for (float& v : p.pixels)
      v = u(rng);
    SpectrumAnalyzer a(w, h, 6);
    const std::vector<double> bands = a.error_band_power(t, p);
    double mse = 0;
    for (size_t i = 0; i < t.pixels.size(); ++i)
      mse += std::pow(double(p.pixels[i]) - t.pixels[i], 2);
    mse /= double(t.pixels.size());
    double total = 0;
    for (double b : bands)
      total += b;
    CHECK(total == doctest::Approx(mse).epsilon(1e-5));
    const std::vector<int64_t> counts = a.band_bin_counts();
    int64_t bins = 0;
    for (int64_t k : counts)
      bins += k;
    CHECK(bins == int64_t(w) * h);
    if (w * h > 200) continue; // the written-out DFT is O(N^2)
    Image e = blank(w, h, c);
    for (size_t i = 0; i < e.pixels.size(); ++i)
      e.pixels[i] = p.pixels[i] - t.pixels[i];
    std::vector<double> ref(bands.size(), 0.0);
    for (int32_t ch = 0; ch < c; ++ch)
      for (int32_t ky = 0; ky < h; ++ky)
        for (int32_t kx = 0; kx < w; ++kx) {
          // Band by signed frequency, computed here again.
          const double fx = double(kx <= w / 2 ? kx : kx - w) / w, fy = double(ky <= h / 2 ? ky : ky - h) / h;
          const int32_t b = std::min(5, int32_t(std::hypot(fx, fy) / 0.5 * 6));
          ref[size_t(b)] += std::norm(naive_dft(e, ch, kx, ky)) / (double(w) * h * w * h * c);
        }
    for (size_t b = 0; b < ref.size(); ++b)
      CHECK(bands[b] == doctest::Approx(ref[b]).epsilon(1e-4));
  }
}

TEST_CASE("spectrum: bad sizes are refused") {
  CHECK_THROWS_AS(SpectrumAnalyzer(0, 4), ConfigError);
  CHECK_THROWS_AS(SpectrumAnalyzer(4, 4, 0), ConfigError);
  SpectrumAnalyzer a(8, 8);
  CHECK_THROWS_AS(a.magnitude(blank(8, 7, 1)), ConfigError);
  CHECK_THROWS_AS(a.error_band_power(blank(8, 8, 1), blank(8, 8, 3)), ConfigError);
}

TEST_CASE("spectrum history: one row per record, one column per band, rows in step order") {
  CHECK(SpectrumHistory::cadence(10, 500) == 10);
  CHECK(SpectrumHistory::cadence(10, 5000) == 30); // 25 rounded up to the metrics cadence
  CHECK(SpectrumHistory::cadence(0, 0) == 1);
  Trainer t = test::small_trainer(test::small_config(OptimizerKind::Adam, 0), test::gradient_image(16, 12, 1));
  SpectrumHistory hist(5);
  hist.record(t);
  for (int i = 0; i < 4; ++i)
    t.step();
  hist.record(t);
  hist.record(t); // the same step again: replaces the row
  REQUIRE(hist.rows().size() == 2);
  CHECK(hist.rows()[0].step == 0);
  CHECK(hist.rows()[1].step == 4);
  CHECK(hist.rows()[1].band_power.size() == 5);
  // The bands add up to the MSE the trainer measures.
  double total = 0;
  for (double b : hist.rows()[1].band_power)
    total += b;
  CHECK(total == doctest::Approx(t.backend().dataset_mse()).epsilon(1e-4));
  std::istringstream csv(hist.csv());
  std::string line;
  std::getline(csv, line);
  CHECK(line == "step,mse,f0.0500,f0.1500,f0.2500,f0.3500,f0.4500");
  int rows = 0;
  while (std::getline(csv, line)) {
    ++rows;
    CHECK(std::count(line.begin(), line.end(), ',') == 6);
  }
  CHECK(rows == 2);
}

} // namespace redraw

namespace redraw {
TEST_CASE("spectrum: sides with large prime factors (Bluestein) match a float64 DFT at their own size") {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(0, 1);
  for (const auto& size : {std::pair{67, 53}, std::pair{96, 83}}) { // primes; 83 against a radix-2/3 side
    const int w = size.first, h = size.second;
    CAPTURE(w);
    Image im = blank(w, h, 1);
    for (float& v : im.pixels)
      v = u(rng);
    SpectrumAnalyzer a(w, h);
    const std::vector<float> mag = a.magnitude(im);
    for (int i = 0; i < 40; ++i) {
      const int32_t kx = int32_t(rng() % uint32_t(w)), ky = int32_t(rng() % uint32_t(h));
      const double ref = std::abs(naive_dft(im, 0, kx, ky));
      const int32_t ox = (kx + w / 2) % w, oy = (ky + h / 2) % h;
      CHECK(mag[size_t(oy) * size_t(w) + size_t(ox)] == doctest::Approx(ref).epsilon(1e-3).scale(double(w) * h * 1e-5));
    }
    Image p = im;
    for (float& v : p.pixels)
      v = u(rng);
    double mse = 0;
    for (size_t i = 0; i < im.pixels.size(); ++i)
      mse += std::pow(double(p.pixels[i]) - im.pixels[i], 2);
    mse /= double(im.pixels.size());
    double total = 0;
    for (double b : a.error_band_power(im, p))
      total += b;
    CHECK(total == doctest::Approx(mse).epsilon(1e-4)); // Parseval holds at the picture's size
  }
}
} // namespace redraw
