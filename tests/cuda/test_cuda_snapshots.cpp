// Timelapse frames on the GPU: begin_parameter_copy copies the parameters (and optimizer state)
// as they are after the steps enqueued so far, through a staging buffer and pinned memory on a
// stream of its own, and the steps after it change nothing in the copy. Checked bit for bit
// against parameters() read synchronously at the same points.
// Without a device every case prints "SKIPPED: no CUDA device: <why>" and checks nothing.
#if REDRAW_HAVE_CUDA

#include "cuda_test_support.h"
#include "test_support.h"

#include "cuda/cuda_backend.h"
#include "engine/errors.h"
#include "engine/training/trainer.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

using namespace redraw;

namespace {

RunConfig small_siren() {
  RunConfig c = load_preset("siren");
  c.model.hidden = {64, 64};
  c.model.hidden_activations.assign(2, Activation::Sine);
  c.training.steps = 50;
  c.training.metrics_every = 5;
  return c;
}

} // namespace

TEST_CASE("cuda snapshots: a copy holds the values at its call, whatever the steps after it do") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  for (CudaPrecision p : {CudaPrecision::Fp32, CudaPrecision::Auto}) {
    CAPTURE(cuda_precision_name(p));
    RunConfig c = p == CudaPrecision::Auto ? load_preset("instant") : small_siren();
    c.model.encoding.log2_hashmap_size = std::min(c.model.encoding.log2_hashmap_size, 12);
    c.training.batch_size = p == CudaPrecision::Auto ? 1024 : 0;
    c.training.cpu_batch_size = -1;
    Trainer t(test::cuda_backend(p), c, Dataset{redraw::test::gradient_image(32, 24, 3)});
    t.run(3); // past the eager step and the capture: later steps replay the graph
    Backend& b = t.backend();
    StepArgs args;
    args.learning_rate = 1e-3f;
    args.step = 3;

    const std::vector<float> p0 = b.parameters();
    const OptimizerState o0 = b.optimizer_state();
    const int64_t first = b.begin_parameter_copy(true);
    b.train_step(args);
    ++args.step;
    const std::vector<float> p1 = b.parameters();
    const int64_t second = b.begin_parameter_copy(false);
    for (int i = 0; i < 3; ++i, ++args.step) b.train_step(args);
    REQUIRE(b.parameters() != p1); // the steps did change the parameters

    ParameterCopy got;
    REQUIRE(b.finish_parameter_copy(second, got, true));
    CHECK(got.params == p1);
    CHECK(got.optimizer.first.empty());
    REQUIRE(b.finish_parameter_copy(first, got, true));
    CHECK(got.params == p0);
    CHECK(got.optimizer.first == o0.first);
    CHECK(got.optimizer.second == o0.second);
    CHECK_THROWS_AS(b.finish_parameter_copy(first, got, true), BackendError); // spent

    // A dropped copy frees its slot; polling never blocks and returns the copy once it arrived.
    b.drop_parameter_copy(b.begin_parameter_copy(true));
    const int64_t third = b.begin_parameter_copy(false);
    b.synchronize();
    const std::vector<float> p2 = b.parameters();
    bool arrived = false;
    for (int i = 0; i < 1000 && !arrived; ++i) arrived = b.finish_parameter_copy(third, got, false);
    REQUIRE(arrived);
    CHECK(got.params == p2);
  }
}

TEST_CASE("cuda snapshots: a GPU run's timelapse frames are the weights of their steps") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  RunConfig c = small_siren();
  Trainer t(test::cuda_backend(CudaPrecision::Fp32), c, Dataset{redraw::test::gradient_image(32, 24, 3)});
  SnapshotPolicy every_five;
  every_five.per_octave = 0;
  every_five.every = 5;
  t.set_snapshot_policy(every_five);
  t.run(20);
  (void)t.flush_metrics();
  REQUIRE(t.frames().store().size() == 5); // steps 0, 5, 10, 15, 20
  CHECK(t.frames().frame(4).metrics.step == 20);
  CHECK(t.frames().frame(4).params == t.parameters()); // the last frame is the current network
  CHECK(t.frames().frame(4).optimizer.first == t.backend().optimizer_state().first);
  for (size_t i = 1; i < t.frames().store().size(); ++i) {
    CHECK(t.frames().frame(i).params != t.frames().frame(i - 1).params);
    for (float v : t.frames().frame(i).params) REQUIRE(std::isfinite(v));
  }
}

#endif // REDRAW_HAVE_CUDA
