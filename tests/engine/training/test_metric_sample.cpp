// The metrics rows' pixel sample: stratified, fixed, unbiased against closed forms, and the rows
// measured on it (sampled) beside the exact ones over every pixel.
#include "test_support.h"

#include "engine/thread_budget.h"
#include "engine/pixel_sample.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

using namespace redraw;

TEST_CASE("pixel sample: a small image is taken whole, a large one one pixel per cell") {
  const PixelSample small = stratified_pixel_sample(120, 100, k_metric_sample_pixels, 0);
  CHECK(small.whole);
  CHECK(small.indices.size() == 12000u);
  CHECK(small.indices.back() == 11999);

  const int32_t w = 6000, h = 4000;
  const PixelSample s = stratified_pixel_sample(w, h, k_metric_sample_pixels, 0);
  CHECK_FALSE(s.whole);
  // About count cells (the grid rounds), each pixel once, ascending, inside the image.
  CHECK(double(s.indices.size()) == doctest::Approx(double(k_metric_sample_pixels)).epsilon(0.02));
  CHECK(std::is_sorted(s.indices.begin(), s.indices.end()));
  CHECK(std::adjacent_find(s.indices.begin(), s.indices.end()) == s.indices.end());
  CHECK(s.indices.front() >= 0);
  CHECK(s.indices.back() < int64_t(w) * h);
  // Stratified: every 100 x 100 block of the image holds a sample (cells are about 38 px a side).
  std::set<int64_t> blocks;
  for (int64_t i : s.indices) blocks.insert((i / w / 100) * 1000 + (i % w) / 100);
  CHECK(blocks.size() == size_t(60 * 40));
}

TEST_CASE("pixel sample: a run's sample follows its batch, 1.5 batches within 2^10 .. 2^14") {
  // A row (one forward pass over the sample) every 10 steps (each about three forward passes over
  // the batch) then costs 1.5 / 31.5 of the training time.
  CHECK(metric_sample_pixels(0) == k_metric_sample_pixels); // full batch: rows are cheap beside a step
  CHECK(metric_sample_pixels(2048) == 3072);                // classic
  CHECK(metric_sample_pixels(1024) == 1536);
  CHECK(metric_sample_pixels(16384) == k_metric_sample_pixels); // instant on the CPU
  CHECK(metric_sample_pixels(int64_t(1) << 18) == k_metric_sample_pixels); // instant on the GPU
  CHECK(metric_sample_pixels(std::numeric_limits<int64_t>::max()) == k_metric_sample_pixels);
  CHECK(metric_sample_pixels(256) == k_metric_sample_min_pixels);
  CHECK(metric_sample_pixels(1) == k_metric_sample_min_pixels);
  // 1.5 batches all the way between the bounds.
  for (int64_t b = k_metric_sample_min_pixels; b * 3 / 2 <= k_metric_sample_pixels; b += 333)
    CHECK(metric_sample_pixels(b) == b + b / 2);
}

TEST_CASE("pixel sample: the same pixels for the same size, others for another seed") {
  const PixelSample a = stratified_pixel_sample(1021, 683, 4096, 0), b = stratified_pixel_sample(1021, 683, 4096, 0);
  CHECK(a.indices == b.indices);
  CHECK(stratified_pixel_sample(1021, 683, 4096, 1).indices != a.indices);
}

TEST_CASE("pixel sample: means over the sample match closed forms") {
  // f(x, y) = x^2 + y on the pixel centres of [0, 1)^2: the mean over the square is 1/3 + 1/2.
  // A stratified sample's error is far below a plain random sample's (~0.3 / sqrt(n) = 1e-3).
  const int32_t w = 3000, h = 2000;
  const PixelSample s = stratified_pixel_sample(w, h, k_metric_sample_pixels, 0);
  double sum = 0, sum_sq = 0;
  for (int64_t i : s.indices) {
    const double x = (double(i % w) + 0.5) / w, y = (double(i / w) + 0.5) / h;
    sum += x * x + y;
    sum_sq += (x - 0.5) * (x - 0.5);
  }
  const double n = double(s.indices.size());
  CHECK(std::abs(sum / n - (1.0 / 3 + 0.5)) < 2e-4);
  CHECK(std::abs(sum_sq / n - 1.0 / 12) < 1e-4); // the variance of a uniform [0, 1)
}

namespace {
/// A 320 x 240 grey picture (76,800 pixels: more than the sample) with edges and texture.
Image busy_image() {
  Image img = test::gradient_image(320, 240, 1);
  for (int32_t y = 0; y < img.height; ++y)
    for (int32_t x = 0; x < img.width; ++x)
      if (((x / 16) + (y / 12)) % 3 == 0) img.at(x, y, 0) = 0.9f - 0.6f * img.at(x, y, 0);
  return img;
}

RunConfig minibatch_config() { return test::tanh16_config(1024, 40, 10); }

/// The clamped MSE of the trainer's network over `indices` (all pixels when empty), in float64
/// from the backend's predictions: the reference the rows are checked against.
double reference_mse(Trainer& t, const std::vector<int64_t>& indices) {
  const Dataset& d = t.dataset();
  std::vector<int64_t> idx = indices;
  if (idx.empty())
    for (int64_t i = 0; i < d.size(); ++i) idx.push_back(i);
  std::vector<float> coords(idx.size() * 2), pred(idx.size() * size_t(d.channels()));
  for (size_t i = 0; i < idx.size(); ++i) d.coordinate(idx[i], coords[2 * i], coords[2 * i + 1]);
  t.backend().predict(t.config().model, t.parameters(), t.fourier_b(), coords.data(), int64_t(idx.size()), pred.data());
  double se = 0;
  for (size_t i = 0; i < idx.size(); ++i)
    for (int32_t c = 0; c < d.channels(); ++c) {
      const double p = std::clamp(double(pred[i * size_t(d.channels()) + size_t(c)]), 0.0, 1.0);
      const double e = p - double(d.targets()[idx[i] * d.channels() + c]);
      se += e * e;
    }
  return se / (double(idx.size()) * d.channels());
}
} // namespace

TEST_CASE("metrics rows: sampled while training, exact from measure(), both against float64 references") {
  const Image img = busy_image();
  Trainer t = test::small_trainer(minibatch_config(), img);
  t.run(20);
  REQUIRE(t.record().rows().size() >= 2);
  const MetricsRow& row = t.record().rows().back();
  CHECK(row.step == 20);
  CHECK_FALSE(row.psnr_exact);
  // The run's sample: 1.5 of its 1024-pixel batches.
  const PixelSample s = stratified_pixel_sample(img.width, img.height, 1536, 0);
  CHECK(double(s.indices.size()) == doctest::Approx(1536.0).epsilon(0.03));
  CHECK(row.psnr_db == doctest::Approx(psnr_from_mse(reference_mse(t, s.indices))).epsilon(1e-9));
  const MetricsRow exact = t.measure();
  CHECK(exact.psnr_exact);
  CHECK(exact.step == 20);
  CHECK(exact.psnr_db == doctest::Approx(psnr_from_mse(reference_mse(t, {}))).epsilon(1e-6));
  // The estimate is close to the truth: a stratified sample of most of the picture.
  CHECK(std::abs(exact.psnr_db - row.psnr_db) < 0.2);
  CHECK(t.record().rows().back().psnr_exact); // measure() replaced the row of the same step
}

TEST_CASE("metrics rows: a picture no larger than the sample is measured exactly, as before") {
  // 36 x 32 = 1,152 pixels, within the 1,536-pixel sample of a 1024-pixel batch.
  Trainer t = test::small_trainer(minibatch_config(), test::gradient_image(36, 32, 3));
  t.run(10);
  for (const MetricsRow& r : t.record().rows()) CHECK(r.psnr_exact);
  CHECK(t.record().rows().back().psnr_db == doctest::Approx(psnr_from_mse(reference_mse(t, {}))).epsilon(1e-6));
}

TEST_CASE("metrics rows: the same bits at any thread count") {
  const Image img = busy_image();
  std::vector<MetricsRow> rows[2];
  for (int threads : {1, 2}) {
    set_cpu_threads(threads);
    Trainer t = test::small_trainer(minibatch_config(), img);
    t.run(30);
    rows[threads - 1] = t.record().rows();
  }
  set_cpu_threads(0);
  REQUIRE(rows[0].size() == rows[1].size());
  for (size_t i = 0; i < rows[0].size(); ++i) {
    CHECK(std::memcmp(&rows[0][i].psnr_db, &rows[1][i].psnr_db, sizeof(double)) == 0);
    CHECK(std::memcmp(&rows[0][i].loss, &rows[1][i].loss, sizeof(double)) == 0);
  }
}
