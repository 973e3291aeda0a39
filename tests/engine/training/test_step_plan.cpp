/// engine/training/step_plan: which counts get a metrics row and a timelapse frame, checked against lists
/// written out by hand, and against what a Trainer records (the lagged GPU path is held to the
/// synchronous one in test_lagged_metrics.cpp).
#include <doctest/doctest.h>

#include "engine/training/step_plan.h"
#include "test_support.h"

#include <vector>

using namespace redraw;

namespace {
std::vector<int64_t> counts(int64_t total, int64_t every, const SnapshotPolicy& policy, bool frames) {
  std::vector<int64_t> out;
  for (int64_t step = 0; step < total; ++step) {
    const StepPlan p = plan_step(step, total, every, policy);
    if (frames ? p.snapshot : p.measure) out.push_back(step + 1);
  }
  return out;
}
SnapshotPolicy no_frames() {
  SnapshotPolicy p;
  p.enabled = false;
  return p;
}
} // namespace

TEST_CASE("step plan: a row at the first step, every metrics_every steps and at the last") {
  CHECK(counts(25, 10, no_frames(), false) == std::vector<int64_t>{1, 10, 20, 25});
  CHECK(counts(20, 10, no_frames(), false) == std::vector<int64_t>{1, 10, 20});
  CHECK(counts(4, 0, no_frames(), false) == std::vector<int64_t>{1, 2, 3, 4}); // below 1 counts as 1
  CHECK(counts(5, -3, no_frames(), false) == std::vector<int64_t>{1, 2, 3, 4, 5});
  CHECK(counts(1, 7, no_frames(), false) == std::vector<int64_t>{1});
  CHECK(counts(25, 10, no_frames(), true).empty());
  // Past the planned end (steps raised later, or a run trained on) the interval goes on.
  CHECK(plan_step(29, 25, 10, no_frames()).measure);
  CHECK_FALSE(plan_step(25, 25, 10, no_frames()).measure);
}

TEST_CASE("step plan: frames where the snapshot policy keeps them") {
  SnapshotPolicy p;
  p.per_octave = 1; // 1, 2, 4, 8, 16, ...
  p.every = 10;
  CHECK(counts(24, 5, p, true) == std::vector<int64_t>{1, 2, 4, 8, 10, 16, 20});
}

TEST_CASE("checkpoint_due: every N steps, never for 0") {
  std::vector<int64_t> due;
  for (int64_t c = 1; c <= 20; ++c)
    if (checkpoint_due(c, 6)) due.push_back(c);
  CHECK(due == std::vector<int64_t>{6, 12, 18});
  for (int64_t c = 0; c <= 20; ++c) CHECK_FALSE(checkpoint_due(c, 0));
}

TEST_CASE("step plan: a trainer records rows and frames exactly where the plan says") {
  RunConfig cfg = test::small_config(OptimizerKind::Adam, 0);
  cfg.training.steps = 37;
  cfg.training.metrics_every = 6;
  Trainer t = test::small_trainer(cfg, test::gradient_image(12, 10, 1));
  SnapshotPolicy policy;
  policy.per_octave = 2;
  policy.every = 9;
  t.set_snapshot_policy(policy);
  t.run(37);
  std::vector<int64_t> rows, frames;
  for (const MetricsRow& r : t.record().rows()) rows.push_back(r.step);
  for (const Snapshot& s : t.frames().store().frames()) frames.push_back(s.metrics.step);
  CHECK(rows == counts(37, 6, policy, false));
  std::vector<int64_t> planned_frames = counts(37, 6, policy, true);
  planned_frames.insert(planned_frames.begin(), 0); // the untrained network
  CHECK(frames == planned_frames);
}
