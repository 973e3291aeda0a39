// Trainer::set_stop_flag: a stop request is honoured within a chunk of a step. A step not yet
// begun is not run; a CPU full-batch step in progress is left between its chunks with nothing of
// it applied, and the step after it is bit for bit the step an uninterrupted run takes.
#include "test_support.h"

#include "engine/training/trainer.h"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <thread>

using namespace redraw;

namespace {
/// A full-batch SIREN on a 256x256 picture: 16 chunks of 4096 rows, about a second a step on two
/// cores, so a stop 20 ms in lands inside the step.
Trainer long_step_trainer() {
  RunConfig c = test::siren_config(256);
  c.model.hidden = {256, 256, 256};
  c.model.hidden_activations.assign(3, c.model.hidden_activations.front());
  c.training.batch_size = 0;
  c.training.steps = 10;
  c.training.metrics_every = 1000;
  c.data.width = c.data.height = 0;
  return test::small_trainer(c, test::gradient_image(256, 256, 3));
}
} // namespace

TEST_CASE("stop flag: a step not yet begun is not run") {
  Trainer t = test::small_trainer(test::small_config(OptimizerKind::Adam, 0), test::gradient_image(12, 9, 3));
  t.run(2);
  const std::vector<float> before = t.parameters();
  std::atomic<bool> stop{true};
  t.set_stop_flag(&stop);
  CHECK(t.stop_requested());
  CHECK_FALSE(t.step().has_value());
  CHECK(t.current_step() == 2);
  CHECK(t.parameters() == before);
  stop = false;
  (void)t.step();
  CHECK(t.current_step() == 3);
}

TEST_CASE("stop flag: a CPU step in progress is left between its chunks, and the next step is the uninterrupted one") {
  Trainer a = long_step_trainer(), b = long_step_trainer();
  REQUIRE(a.parameters() == b.parameters());
  const std::vector<float> start = a.parameters();
  std::atomic<bool> stop{false};
  a.set_stop_flag(&stop);
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    stop = true;
  });
  const auto t0 = std::chrono::steady_clock::now();
  (void)a.step();
  const double abandoned_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  stopper.join();
  CHECK(a.current_step() == 0); // not counted
  CHECK(a.parameters() == start); // nothing of it applied
  stop = false;
  (void)a.step();
  const auto t1 = std::chrono::steady_clock::now();
  (void)b.step();
  const double whole_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  CHECK(a.current_step() == 1);
  CHECK(a.parameters() == b.parameters()); // no trace of the abandoned step in the next one
  MESSAGE("abandoned after " << abandoned_s << " s; a whole step " << whole_s << " s");
}
