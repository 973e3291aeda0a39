// Training end to end on a shared sample image, determinism, minibatches, and the trainer's bookkeeping.
#include "test_support.h"

#include "engine/errors.h"

#include <doctest/doctest.h>

#include <cstring>

using namespace redraw;

TEST_CASE("end to end: a SIREN learns the cameraman to a PSNR floor") {
  // cameraman at 64x64 in gray, 2 sine layers of 64, Adam 1e-3, 300 full-batch steps.
  RunConfig cfg = test::siren_config(64);
  cfg.training.steps = 300;
  cfg.training.metrics_every = 50;
  cfg.data.color_mode = ColorMode::Gray;
  cfg.data.width = cfg.data.height = 64;
  Trainer t(std::make_unique<CpuBackend>(), cfg, Dataset{prepare_training_image(test::sample("camera.png"), cfg.data)});
  const double start = t.measure().psnr_db;
  t.run(300);
  const double end = t.measure().psnr_db;
  MESSAGE("cameraman 64x64 SIREN: PSNR " << start << " dB -> " << end << " dB after 300 steps");
  CHECK(end > 28.0);
  CHECK(t.record().rows().size() >= 6);
}

TEST_CASE("same seed, same result; another seed, another result") {
  RunConfig cfg = test::small_config(OptimizerKind::Adam, 30);
  const Image img = test::gradient_image(16, 16, 3);
  Trainer a = test::small_trainer(cfg, img), b = test::small_trainer(cfg, img);
  a.run(25);
  b.run(25);
  const auto pa = a.parameters(), pb = b.parameters();
  CHECK(std::memcmp(pa.data(), pb.data(), pa.size() * sizeof(float)) == 0);
  cfg.training.seed = 43;
  Trainer c = test::small_trainer(cfg, img);
  c.run(25);
  CHECK(c.parameters() != pa);
}

TEST_CASE("minibatch indices are uniform and cover the image") {
  const uint32_t n = 1000;
  std::vector<int> hits(n, 0);
  for (int64_t step = 0; step < 50; ++step)
    for (int64_t i = 0; i < 1000; ++i) ++hits[minibatch_index(7, step, i, n)];
  int min = 1 << 30, max = 0;
  for (int h : hits) min = std::min(min, h), max = std::max(max, h);
  CHECK(min > 20); // expectation 50 per index
  CHECK(max < 90);
}

TEST_CASE("metrics rows follow metrics_every and the schedule") {
  RunConfig cfg = test::small_config(OptimizerKind::Sgd, 0);
  cfg.schedule.kind = ScheduleKind::Cosine;
  cfg.schedule.lr_max = 0.1;
  cfg.schedule.lr_min = 0.001;
  cfg.training.steps = 20;
  Trainer t = test::small_trainer(cfg, test::gradient_image(8, 8, 1));
  t.run(20);
  std::vector<int64_t> steps;
  for (const auto& r : t.record().rows()) steps.push_back(r.step);
  CHECK(steps == std::vector<int64_t>{1, 5, 10, 15, 20});
  CHECK(t.record().rows().front().lr == doctest::Approx(0.1));
  CHECK(t.record().rows()[2].lr == doctest::Approx(t.learning_rate_at(9)));
  for (const auto& r : t.record().rows()) CHECK(std::isfinite(r.loss));
}

TEST_CASE("a run that keeps diverging stops with DivergedError after its recoveries on finite weights") {
  Trainer t = test::small_trainer(test::diverging_config(), test::gradient_image(8, 8, 1));
  CHECK_THROWS_AS(t.run(50), DivergedError);
  CHECK(t.guard().recoveries().size() == 3);
  CHECK(t.guard().lr_scale() == doctest::Approx(0.125));
  CHECK(count_nonfinite(t.parameters()) == 0);
  CHECK(t.current_step() == 0); // the only good state was the untrained network
  for (const auto& r : t.record().rows()) CHECK(std::isfinite(r.loss));
}

TEST_CASE("a dataset whose channels do not match the model is refused") {
  RunConfig cfg = test::small_config(OptimizerKind::Adam, 0);
  CpuBackend cpu;
  TrainSetup setup;
  setup.model = cfg.model;
  setup.model.output_channels = 3;
  const Dataset gray{test::gradient_image(4, 4, 1)};
  CHECK_THROWS_AS(cpu.configure(setup, gray), ConfigError);
  CHECK_THROWS_AS(cpu.train_step(StepArgs{}), BackendError);
}

TEST_CASE("the trainer's dataset is shared, not copied, and outlives the trainer for its readers") {
  const RunConfig cfg = test::small_config(OptimizerKind::Adam, 10);
  const Image img = test::gradient_image(24, 16, 3);
  std::shared_ptr<const Dataset> shared;
  {
    Trainer t = test::small_trainer(cfg, img);
    shared = t.shared_dataset();
    REQUIRE(shared);
    // The very floats the backend trains on (the GUI's ground truth reads them, no second copy).
    CHECK(&shared->image == &t.dataset().image);
    CHECK(shared->targets() == t.dataset().targets());
    t.run(3);
  }
  // The trainer is gone; the reader's reference still holds the image as it was given.
  CHECK(shared->image.width == 24);
  CHECK(shared->image.pixels == img.pixels);
}
