// The metric sampler (engine/training/metric_sampler.h) on a network whose weights are all zero, so it
// draws exactly 0.5 everywhere (tanh(0) = 0, sigmoid(0) = 1/2): its errors have closed forms on a
// flat picture and a float64 reference over the sample's pixels on a varied one.
#include "test_support.h"

#include "engine/training/metric_sampler.h"
#include "engine/pixel_sample.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

using namespace redraw;

namespace {
/// A CPU backend configured for `img`, every weight zero. Not movable: the backend holds the data.
struct HalfNetwork {
  Dataset data;
  RunConfig cfg = test::small_config(OptimizerKind::Adam, 0);
  CpuBackend backend;
  explicit HalfNetwork(const Image& img) : data{img} {
    cfg.model.output_channels = img.channels;
    backend.configure({cfg.model, cfg.loss, cfg.optimizer, 0, cfg.training.seed, k_metric_sample_pixels}, data);
    backend.set_parameters(std::vector<float>(size_t(backend.parameter_count()), 0.0f));
  }
  HalfNetwork(const HalfNetwork&) = delete;
};
Image flat(int32_t w, int32_t h, float v) {
  return test::image_of(w, h, 1, [&](int32_t, int32_t, int32_t) { return v; });
}
const double k_psnr_quarter = 10 * std::log10(16.0); ///< 0.5 against 0.25: MSE 1/16
} // namespace

TEST_CASE("metric sampler: a flat picture's sampled and exact rows have closed forms") {
  HalfNetwork n(flat(64, 64, 0.25f)); // 4096 pixels, a sample of about 1024
  MetricSampler s(n.backend, n.data, n.cfg.loss, 1024);
  CHECK_FALSE(s.whole());
  CHECK(s.sample_size() == doctest::Approx(1024).epsilon(0.05));
  const ErrorMeans e = s.sample_error();
  CHECK(e.mse == 0.0625);
  CHECK(e.loss == 0.0625); // MSE loss: (0.5 - 0.25)^2
  const MetricsRow sampled = s.measure(0, false, nullptr, n.cfg.model, {});
  CHECK(sampled.step == 0);
  CHECK_FALSE(sampled.psnr_exact);
  CHECK(sampled.psnr_db == doctest::Approx(k_psnr_quarter).epsilon(1e-12));
  CHECK(sampled.loss == 0.0625);
  CHECK(s.rows() == 1);
  CHECK(s.row_seconds() > 0);
  const double seconds = s.row_seconds();
  const MetricsRow exact = s.measure(0, true, nullptr, n.cfg.model, {});
  CHECK(exact.psnr_exact);
  CHECK(exact.psnr_db == doctest::Approx(k_psnr_quarter).epsilon(1e-12));
  CHECK(s.rows() == 1); // an exact row is not a sampled row
  CHECK(s.row_seconds() == seconds);
  CHECK(s.dataset_loss(n.cfg.model, {}) == doctest::Approx(0.0625).epsilon(1e-12));
}

TEST_CASE("metric sampler: the sample's error is the mean over its pixels, here in float64") {
  const Image img = test::gradient_image(64, 48, 3);
  HalfNetwork n(img);
  MetricSampler s(n.backend, n.data, n.cfg.loss, 1024);
  const PixelSample p = stratified_pixel_sample(64, 48, 1024, 0);
  REQUIRE(s.sample_size() == int64_t(p.indices.size()));
  double se = 0;
  for (const int64_t k : p.indices)
    for (int c = 0; c < 3; ++c)
      se += std::pow(0.5 - double(img.pixels[size_t(k * 3 + c)]), 2);
  const double mse = se / double(p.indices.size() * 3);
  const ErrorMeans e = s.sample_error();
  CHECK(e.mse == doctest::Approx(mse).epsilon(1e-12));
  CHECK(e.loss == doctest::Approx(mse).epsilon(1e-6)); // summed from float squares
  // The sample's coordinates are its pixels' centres in [-1, 1], in the sample's order.
  for (size_t i = 0; i < p.indices.size(); i += 97) {
    const int64_t k = p.indices[i];
    CHECK(s.sample_coords()[2 * i] == doctest::Approx((2.0 * double(k % 64) + 1) / 64 - 1));
    CHECK(s.sample_coords()[2 * i + 1] == doctest::Approx((2.0 * double(k / 64) + 1) / 48 - 1));
    CHECK(s.sample_targets()[3 * i + 2] == img.pixels[size_t(k * 3 + 2)]);
  }
}

TEST_CASE("metric sampler: an image no larger than the sample is measured whole, through the backend") {
  HalfNetwork n(flat(20, 10, 0.75f));
  MetricSampler s(n.backend, n.data, n.cfg.loss, 1024);
  CHECK(s.whole());
  CHECK(s.sample_size() == 0);
  const MetricsRow row = s.measure(3, false, nullptr, n.cfg.model, {});
  CHECK(row.psnr_exact);
  CHECK(row.psnr_db == doctest::Approx(k_psnr_quarter).epsilon(1e-12));
  CHECK(row.loss == doctest::Approx(0.0625).epsilon(1e-12)); // the whole image's loss
  CHECK(s.rows() == 0);
}

TEST_CASE("metric sampler: a row's loss is the one noted for its step, else measured; a given error is exact") {
  HalfNetwork n(flat(64, 64, 0.25f));
  MetricSampler s(n.backend, n.data, n.cfg.loss, 1024);
  LossSample reported;
  reported.step = 4; // the step that took the run to 5 steps
  reported.loss = 0.123;
  s.note_loss(reported);
  CHECK(s.last_loss() == 0.123);
  CHECK(s.measure(5, false, nullptr, n.cfg.model, {}).loss == 0.123);
  CHECK(s.measure(6, false, nullptr, n.cfg.model, {}).loss == 0.0625); // nothing noted at 6: measured
  s.recall_loss(std::nan(""), 7);                                      // a NaN loss is none known
  CHECK(s.measure(7, false, nullptr, n.cfg.model, {}).loss == 0.0625);
  s.recall_loss(0.5, 8);
  CHECK(s.measure(8, false, nullptr, n.cfg.model, {}).loss == 0.5);
  const ErrorMeans given{0.3, 0.01};
  const MetricsRow g = s.measure(9, false, &given, n.cfg.model, {});
  CHECK(g.psnr_exact);
  CHECK(g.loss == 0.3);
  CHECK(g.psnr_db == doctest::Approx(20.0).epsilon(1e-12)); // 10 log10(1 / 0.01)
}

TEST_CASE("metric sampler: the learning rate of the step that reached a count") {
  HalfNetwork n(flat(8, 8, 0.5f));
  MetricSampler s(n.backend, n.data, n.cfg.loss, 1024);
  CHECK_FALSE(s.lr_reaching(1).has_value());
  s.note_lr(3, 0.01);
  CHECK(s.last_lr() == 0.01);
  CHECK(s.lr_reaching(3).value_or(-1) == 0.01);
  CHECK_FALSE(s.lr_reaching(4).has_value());
  s.note_lr(0, 0.02); // no step reaches count 0
  CHECK_FALSE(s.lr_reaching(0).has_value());
  s.note_lr(5, 0.03);
  s.forget_lr();
  CHECK_FALSE(s.lr_reaching(5).has_value());
}

TEST_CASE("error sums: loss unclamped, squared error of the clamped prediction, by hand") {
  const float pred[] = {0.5f, 1.5f, -0.5f, 0.75f};
  const float target[] = {0.25f, 1.0f, 0.0f, 0.5f};
  ErrorSums sums;
  sums.add(LossParams{}, pred, target, 4);
  CHECK(sums.loss == 0.625); // 1/16 + 1/4 + 1/4 + 1/16
  CHECK(sums.se == 0.125);   // 1/16 + 0 + 0 + 1/16
  const ErrorMeans m = sums.means(4);
  CHECK(m.loss == 0.15625);
  CHECK(m.mse == 0.03125);
  CHECK(ErrorSums{}.means(0).mse == 0); // no values: no division by zero
}

TEST_CASE("metric sampler: the PNG of a render and its error over every pixel, from one pass") {
  HalfNetwork n(flat(16, 8, 0.25f));
  MetricSampler s(n.backend, n.data, n.cfg.loss, 1024);
  std::vector<uint8_t> png;
  const ErrorMeans e =
      s.png_error(bound_network(n.cfg.model), [&](const uint8_t* d, size_t k) { png.insert(png.end(), d, d + k); });
  CHECK(e.mse == 0.0625);
  CHECK(e.loss == 0.0625);
  REQUIRE(png.size() > 8);
  CHECK(std::memcmp(png.data(), "\x89PNG\r\n\x1a\n", 8) == 0);
}
