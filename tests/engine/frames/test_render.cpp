// Rendering: tiled equals untiled, sizes are checked, cancel works, and the network's picture at
// the training size is what the trainer measured.
#include "reference_mlp.h"
#include "test_support.h"

#include "engine/dataset.h"

#include "engine/errors.h"
#include "engine/loss_math.h"
#include "engine/frames/renderer.h"

#include <doctest/doctest.h>

using namespace redraw;

namespace {
/// small_config with 8 Fourier features (sigma 2), on a w x h gradient in colour.
Trainer fourier_trainer(int32_t w, int32_t h) {
  RunConfig cfg = test::small_config(OptimizerKind::Adam, 0);
  cfg.model.encoding.kind = EncodingKind::Fourier;
  cfg.model.encoding.features = 8;
  cfg.model.encoding.sigma = 2;
  return test::small_trainer(cfg, test::gradient_image(w, h, 3));
}
} // namespace

TEST_CASE("tiled rendering equals untiled rendering") {
  Trainer t = fourier_trainer(10, 10);
  t.run(10);
  RenderOptions tiny;
  tiny.max_tile_pixels = 37; // bands of one row, less than a row
  RenderOptions whole;
  whole.max_tile_pixels = int64_t(1) << 40;
  const std::vector<float> params = t.parameters();
  const test::ReferenceMlp ref(t.config().model, params, t.fourier_b());
  for (auto [w, h] : {std::pair{53, 41}, std::pair{5000, 3}}) {
    const Image a = t.render(w, h, tiny);
    const Image b = t.render(w, h, whole);
    CHECK(a.width == w);
    CHECK(a.channels == 3);
    CHECK(test::max_abs_diff(a, b) <= test::k_tiling_tolerance);
    // Every tile holds the right pixels: each pixel is the float64 network at its own centre.
    std::vector<float> coords(size_t(w) * size_t(h) * 2);
    grid_coordinates(w, h, 0, h, coords.data());
    double worst = 0;
    for (int64_t i = 0; i < int64_t(w) * h; ++i) {
      const auto want = ref.forward(coords[size_t(2 * i)], coords[size_t(2 * i + 1)]);
      for (int32_t c = 0; c < 3; ++c)
        worst = std::max(worst, std::abs(double(a.pixels[size_t(3 * i + c)]) - std::clamp(want[size_t(c)], 0.0, 1.0)));
    }
    CHECK(worst <= 1e-5);
  }
}

TEST_CASE("rendering at the training size reproduces the measured PSNR") {
  Trainer t = test::small_trainer(test::small_config(OptimizerKind::Adam, 0), test::gradient_image(20, 14, 1));
  t.run(20);
  const MetricsRow row = t.measure();
  const Image r = t.render(20, 14);
  double mse = 0;
  for (size_t i = 0; i < r.pixels.size(); ++i) {
    const double d = double(r.pixels[i]) - double(t.dataset().image.pixels[i]);
    mse += d * d;
  }
  mse /= double(r.pixels.size());
  CHECK(psnr_db(mse) == doctest::Approx(row.psnr_db).epsilon(1e-9));
}

TEST_CASE("render sizes are checked and a render can be cancelled") {
  Trainer t = test::small_trainer(test::small_config(OptimizerKind::Adam, 0), test::gradient_image(8, 8, 1));
  CHECK_THROWS_AS(t.render(0, 10), ConfigError);
  CHECK_THROWS_AS(t.render(70000, 10), ConfigError);
  RenderOptions o;
  o.max_tile_pixels = 64;
  int calls = 0;
  o.progress = [&](double) { return ++calls < 3; };
  CHECK_THROWS_AS(t.render(64, 64, o), CancelledError);
  CHECK(calls == 3);
}

TEST_CASE("PSNR of a constant network against a closed form") {
  // Zero weights: every pixel is sigmoid(b) for output bias b. For a target image with values t,
  // MSE = mean((sigmoid(b) - t)^2).
  RunConfig cfg = test::small_config(OptimizerKind::Adam, 0);
  const Image img = test::gradient_image(9, 7, 1);
  Trainer t = test::small_trainer(cfg, img);
  std::vector<float> p(size_t(parameter_count(cfg.model)), 0.0f);
  const float b = 0.3f;
  p.back() = b;
  t.backend().set_parameters(p);
  const double c = 1.0 / (1.0 + std::exp(-double(b)));
  double mse = 0;
  for (float v : img.pixels) mse += (c - v) * (c - v);
  mse /= double(img.pixels.size());
  CHECK(t.measure().psnr_db == doctest::Approx(10.0 * std::log10(1.0 / mse)).epsilon(1e-6));
}

TEST_CASE("a PNG made band by band has the bytes of the whole picture's PNG") {
  const Image img = test::gradient_image(31, 17, 3);
  const size_t row = size_t(31) * 3;
  const std::vector<uint8_t> banded = encode_png_rows(31, 17, 3, 8, [&](const auto& write) {
    write(img.pixels.data(), 5);
    write(img.pixels.data() + 5 * row, 12);
  });
  CHECK(banded == encode_png(img));
  // Fewer rows than the height is an error, never a short file.
  CHECK_THROWS_AS(encode_png_rows(31, 17, 3, 8, [&](const auto& write) { write(img.pixels.data(), 5); }), IoError);
  // The trainer's final picture: rendered in bands (700 x 400 is two of them) into the same PNG.
  RunConfig cfg = test::small_config(OptimizerKind::Adam, 0);
  Trainer t = test::small_trainer(cfg, test::gradient_image(10, 10, 3));
  t.run(5);
  for (auto [w, h] : {std::pair{37, 29}, std::pair{700, 400}}) CHECK(t.render_png(w, h) == encode_png(t.render(w, h)));
}

TEST_CASE("final.png and the exact row from one pass: the same picture, the row of a float64 reference") {
  // 600 x 500 is three render bands; a minibatch run's rows before it are sampled.
  const Image img = test::gradient_image(600, 500, 3);
  RunConfig cfg = test::small_config(OptimizerKind::Adam, 4096);
  Trainer t = test::small_trainer(cfg, img);
  // The untrained network: no step has reported a loss, so the row's loss is the whole image's.
  const auto measured_png = [&] {
    std::vector<uint8_t> bytes;
    const MetricsRow row = t.render_png_measured([&](const uint8_t* d, size_t n) { bytes.insert(bytes.end(), d, d + n); });
    return std::pair{bytes, row};
  };
  const auto reference = [&] { // clamped MSE and the loss of the raw outputs, in float64 from predict
    const int64_t n = t.dataset().size();
    const float* target = t.dataset().targets();
    std::vector<float> coords(size_t(n) * 2), pred(size_t(n) * size_t(t.dataset().channels()));
    for (int64_t i = 0; i < n; ++i)
      t.dataset().coordinate(i, coords[size_t(2 * i)], coords[size_t(2 * i + 1)]);
    const std::vector<float> params = t.backend().parameters();
    t.backend().predict(t.config().model, params, t.fourier_b(), coords.data(), n, pred.data());
    double se = 0, loss = 0;
    for (size_t e = 0; e < pred.size(); ++e) {
      const double d = std::clamp(double(pred[e]), 0.0, 1.0) - double(target[e]);
      se += d * d;
      loss += double(loss_value<float>(cfg.loss, pred[e], target[e]));
    }
    return std::pair{10.0 * std::log10(1.0 / (se / double(pred.size()))), loss / double(pred.size())};
  };
  {
    const auto [bytes, row] = measured_png();
    const auto [psnr, loss] = reference();
    CHECK(bytes == t.render_png(600, 500));
    CHECK(row.psnr_exact);
    CHECK(row.step == 0);
    CHECK(row.psnr_db == doctest::Approx(psnr).epsilon(1e-6));
    CHECK(row.loss == doctest::Approx(loss).epsilon(1e-6));
    REQUIRE(!t.record().rows().empty());
    CHECK(t.record().rows().back().step == 0);
    CHECK(t.record().rows().back().psnr_db == row.psnr_db);
  }
  t.run(30);
  REQUIRE(!t.record().rows().back().psnr_exact); // the sampled rows of a minibatch run
  const auto [bytes, row] = measured_png();
  const auto [psnr, loss] = reference();
  CHECK(bytes == t.render_png(600, 500));
  CHECK(row.step == 30);
  CHECK(row.psnr_exact);
  CHECK(row.psnr_db == doctest::Approx(psnr).epsilon(1e-6));
  CHECK(row.psnr_db == doctest::Approx(t.measure().psnr_db).epsilon(1e-6)); // the backend's own pass
  CHECK(t.record().rows().back().step == 30);
  CHECK(t.record().rows().back().psnr_exact);
}

TEST_CASE("a window of the picture: each sample is the float64 network at its cell's centre") {
  Trainer t = fourier_trainer(12, 8);
  t.run(10);
  const test::ReferenceMlp ref(t.config().model, t.parameters(), t.fourier_b());
  // Image pixels x 2.5..5.5, y 1..4 of the 12 x 8 picture on a 7 x 5 grid: sample (i, j) sits at
  // image (2.5 + (i + 0.5) * 3 / 7, 1 + (j + 0.5) * 3 / 5), network 2 u / 12 - 1 and 2 v / 8 - 1.
  RenderOptions opts;
  opts.window = RenderWindow{2.5, 1, 5.5, 4, 12, 8};
  opts.max_tile_pixels = 9; // bands of one row
  const Image a = t.render(7, 5, opts);
  REQUIRE(a.width == 7);
  REQUIRE(a.height == 5);
  double worst = 0;
  for (int32_t j = 0; j < 5; ++j)
    for (int32_t i = 0; i < 7; ++i) {
      const double u = 2.5 + (i + 0.5) * 3.0 / 7, v = 1 + (j + 0.5) * 3.0 / 5;
      const auto want = ref.forward(2 * u / 12 - 1, 2 * v / 8 - 1);
      for (int32_t c = 0; c < 3; ++c)
        worst = std::max(worst, std::abs(double(a.at(i, j, c)) - std::clamp(want[size_t(c)], 0.0, 1.0)));
    }
  CHECK(worst <= 1e-5);
  // The whole picture as a window is the plain render, and the top-left quarter at 2 samples a
  // pixel is the render at twice the size, cropped.
  RenderOptions whole;
  whole.window = RenderWindow{0, 0, 12, 8, 12, 8};
  CHECK(test::max_abs_diff(t.render(12, 8, whole), t.render(12, 8)) <= 1e-6);
  RenderOptions quarter;
  quarter.window = RenderWindow{0, 0, 6, 4, 12, 8};
  const Image q = t.render(12, 8, quarter), big = t.render(24, 16);
  double crop = 0;
  for (int32_t j = 0; j < 8; ++j)
    for (int32_t i = 0; i < 12; ++i)
      for (int32_t c = 0; c < 3; ++c) crop = std::max(crop, double(std::abs(q.at(i, j, c) - big.at(i, j, c))));
  CHECK(crop <= 1e-6);
}
