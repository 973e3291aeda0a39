/// The CPU backend's per-phase step timing (BackendFeature::StepProfile, the performance panel):
/// it counts every step and measurement, its phases add up to no more than the whole step, and
/// taking the report starts a new count.
#include <doctest/doctest.h>

#include "test_support.h"

#include <chrono>

using namespace redraw;

TEST_CASE("step profile: the CPU backend splits its steps into forward, backward and update") {
  const RunConfig cfg = test::small_config(OptimizerKind::Adam, 0);
  Trainer t = test::small_trainer(cfg, test::gradient_image(24, 16, 3));
  Backend& b = t.backend();
  REQUIRE(b.supports(BackendFeature::StepProfile));
  (void)b.take_step_profile(); // whatever the constructor measured

  const auto start = std::chrono::steady_clock::now();
  constexpr int k_steps = 12;
  for (int i = 0; i < k_steps; ++i) {
    StepArgs args;
    args.step = i;
    args.learning_rate = 1e-3f;
    args.record_loss = i % 4 == 0;
    b.train_step(args);
    if (i % 5 == 4) (void)b.dataset_mse();
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const StepProfile p = b.take_step_profile();
  CHECK(p.steps == k_steps);
  CHECK(p.metrics_calls == 2);
  CHECK(p.forward_s > 0);
  CHECK(p.backward_s > 0);
  CHECK(p.update_s >= 0);
  CHECK(p.metrics_s > 0);
  CHECK(p.forward_s + p.backward_s + p.update_s <= p.step_s * (1 + 1e-9));
  CHECK(p.step_s + p.metrics_s <= wall); // all of it happened inside the loop
  CHECK(p.device_used_bytes == -1);      // the CPU reports no device memory

  const StepProfile again = b.take_step_profile();
  CHECK(again.steps == 0);
  CHECK(again.metrics_calls == 0);
  CHECK(again.step_s == 0);
  (void)b.dataset_mse();
  CHECK(b.take_step_profile().metrics_calls == 1);
}
