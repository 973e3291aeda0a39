// Timelapse snapshots: the policy's steps, thinning under the memory cap, and the Trainer's
// snapshots (re-rendered bit-exactly, saved in checkpoints, branching).
#include "test_support.h"

#include "engine/checkpoint.h"
#include "engine/cpu_backend.h"
#include "engine/errors.h"
#include "engine/timelapse.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>

using namespace redraw;

namespace {
Snapshot frame_at(int64_t step, size_t params) {
  Snapshot s;
  s.metrics.step = step;
  s.metrics.psnr_db = double(step);
  s.params.assign(params, float(step));
  return s;
}

RunConfig tiny_config() {
  RunConfig cfg = test::small_config(OptimizerKind::Adam, 0);
  cfg.model.hidden = {16, 16};
  cfg.model.hidden_activations = {Activation::Tanh, Activation::Tanh};
  cfg.training.steps = 60;
  cfg.training.metrics_every = 10;
  return cfg;
}
} // namespace

TEST_CASE("the snapshot policy is dense early and regular later") {
  SnapshotPolicy p;
  p.per_octave = 2;
  p.every = 100;
  std::vector<int64_t> early;
  for (int64_t s = 0; s <= 40; ++s)
    if (p.should_snapshot(s)) early.push_back(s);
  CHECK(early == std::vector<int64_t>{0, 1, 2, 3, 4, 6, 8, 11, 16, 23, 32});
  CHECK(p.should_snapshot(100));
  CHECK(p.should_snapshot(1000));
  CHECK(p.should_snapshot(1024)); // 2^10 is on the ladder
  CHECK_FALSE(p.should_snapshot(999));
  int64_t count = 0;
  for (int64_t s = 1; s <= 100000; ++s)
    count += p.should_snapshot(s);
  CHECK(count < 1000 + 40); // regular frames plus a logarithmic number of ladder frames
  p.initial = false;
  CHECK_FALSE(p.should_snapshot(0));
  p.enabled = false;
  CHECK_FALSE(p.should_snapshot(1));

  const SnapshotPolicy r = SnapshotPolicy::for_run(20000, 10);
  CHECK(r.every == 100);
  CHECK(SnapshotPolicy::for_run(2000, 7).every % 7 == 0);
  CHECK(SnapshotPolicy::for_run(50, 10).every == 10);
}

TEST_CASE("thinning keeps the first and the newest frames and stays under the cap") {
  const size_t params = 1000;
  const size_t frame_bytes = snapshot_bytes(frame_at(0, params));
  SnapshotStore store(frame_bytes * 40);
  SnapshotPolicy p = SnapshotPolicy::for_run(100000, 10);
  int64_t added = 0;
  for (int64_t s = 0; s <= 100000; ++s) {
    if (!p.should_snapshot(s)) continue;
    store.add(frame_at(s, params));
    ++added;
    REQUIRE(store.bytes() <= store.cap_bytes());
    REQUIRE(store.frames().front().metrics.step == 0);
    REQUIRE(store.frames().back().metrics.step == s); // the newest is never dropped
  }
  CHECK(added > 200);
  CHECK(store.size() == 40);
  CHECK(store.thinned() == size_t(added) - 40);
  for (size_t i = 1; i < store.size(); ++i)
    CHECK(store[i - 1].metrics.step < store[i].metrics.step);
  // Evenly thinned in log(1 + step): no gap is more than a few times the typical one.
  std::vector<double> gaps;
  for (size_t i = 1; i < store.size(); ++i)
    gaps.push_back(std::log1p(double(store[i].metrics.step)) - std::log1p(double(store[i - 1].metrics.step)));
  const double mean = (std::log1p(100000.0)) / double(gaps.size());
  for (double g : gaps)
    CHECK(g < 4 * mean);
  // The early, fast-changing part keeps frames: some are in the first 100 steps.
  CHECK(store.index_at_step(100) >= 3);

  // Lowering the cap thins at once; the cap can never drop the first and last frames.
  store.set_cap_bytes(frame_bytes * 10);
  CHECK(store.size() == 10);
  CHECK(store.bytes() <= store.cap_bytes());
  store.set_cap_bytes(1);
  CHECK(store.size() == 2);
  CHECK(store.frames().front().metrics.step == 0);
  CHECK(store.frames().back().metrics.step == 100000);
}

TEST_CASE("a frame at an earlier step replaces the later part of the timeline") {
  SnapshotStore store;
  for (int64_t s : {0, 1, 2, 4, 8})
    store.add(frame_at(s, 4));
  store.add(frame_at(3, 4));
  CHECK(store.size() == 4);
  CHECK(store.frames().back().metrics.step == 3);
  store.truncate_after(1);
  CHECK(store.size() == 2);
  CHECK(store.index_at_step(100) == 1);
  store.assign({frame_at(5, 4), frame_at(2, 4)});
  CHECK(store[0].metrics.step == 2);
  CHECK(store.bytes() == 2 * snapshot_bytes(frame_at(0, 4)));
}

TEST_CASE("a snapshot re-rendered equals what was rendered at that step during training") {
  Trainer t = test::small_trainer(tiny_config(), test::gradient_image(12, 10, 3));
  std::map<int64_t, std::vector<float>> shown;
  shown[0] = t.render(24, 20).pixels;
  while (t.current_step() < 60) {
    t.step();
    if (t.snapshot_policy().should_snapshot(t.current_step())) shown[t.current_step()] = t.render(24, 20).pixels;
  }
  REQUIRE(t.snapshot_count() == shown.size());
  CHECK(t.snapshot(0).metrics.step == 0);
  for (size_t i = 0; i < t.snapshot_count(); ++i) {
    const Snapshot& s = t.snapshot(i);
    CHECK(t.render_snapshot(i, 24, 20).pixels == shown.at(s.metrics.step));
  }
  // And after a save and load into a new trainer.
  const auto bytes = serialize_checkpoint(t.checkpoint("x.png"));
  const Checkpoint c = deserialize_checkpoint(bytes.data(), bytes.size(), "mem");
  CHECK(c.snapshots.size() == shown.size());
  Trainer u = test::small_trainer(tiny_config(), test::gradient_image(12, 10, 3));
  u.restore(c);
  REQUIRE(u.snapshot_count() == shown.size());
  for (size_t i = 0; i < u.snapshot_count(); ++i)
    CHECK(u.render_snapshot(i, 24, 20).pixels == shown.at(u.snapshot(i).metrics.step));
  u.reset();
  CHECK(u.snapshot_count() == 0);
  CHECK_THROWS_AS((void)u.snapshot(0), std::out_of_range);
}

TEST_CASE("snapshots do not change training or the metrics history, and carry their step's metrics") {
  Trainer with = test::small_trainer(tiny_config(), test::gradient_image(12, 10, 1));
  Trainer without = test::small_trainer(tiny_config(), test::gradient_image(12, 10, 1));
  SnapshotPolicy off;
  off.enabled = false;
  without.set_snapshot_policy(off);
  with.run(60);
  without.run(60);
  CHECK(with.parameters() == without.parameters());
  CHECK(without.snapshot_count() == 0);
  REQUIRE(with.history().size() == without.history().size());
  for (size_t i = 0; i < with.history().size(); ++i)
    CHECK(with.history()[i].psnr_db == without.history()[i].psnr_db);
  for (const auto& s : with.snapshots().frames()) {
    CHECK(std::isfinite(s.metrics.psnr_db));
    if (s.metrics.step > 0) CHECK(std::isfinite(s.metrics.loss));
    for (const auto& row : with.history())
      if (row.step == s.metrics.step) CHECK(row.psnr_db == s.metrics.psnr_db);
  }
}

TEST_CASE("the snapshot cap holds during training") {
  Trainer t = test::small_trainer(tiny_config(), test::gradient_image(8, 8, 1));
  SnapshotPolicy every;
  every.every = 1;
  t.set_snapshot_policy(every);
  const size_t frame = snapshot_bytes(Snapshot{{}, t.parameters()});
  t.set_snapshot_cap_bytes(frame * 7);
  t.run(60);
  CHECK(t.snapshot_count() == 7);
  CHECK(t.snapshots().bytes() <= t.snapshot_cap_bytes());
  CHECK(t.snapshot(0).metrics.step == 0);
  CHECK(t.snapshot(6).metrics.step == 60);
  CHECK(t.snapshot(6).params == t.parameters());
}

TEST_CASE("branching from a snapshot restores its weights, step and timeline") {
  Trainer t = test::small_trainer(tiny_config(), test::gradient_image(12, 10, 1));
  t.run(60);
  const size_t i = t.snapshots().index_at_step(20);
  const Snapshot s = t.snapshot(i);
  REQUIRE(s.metrics.step == 20);
  t.branch_from_snapshot(i);
  CHECK(t.current_step() == 20);
  CHECK(t.parameters() == s.params);
  CHECK(t.snapshot_count() == i + 1);
  CHECK(t.history().back().step == 20);
  const OptimizerState st = t.backend().optimizer_state();
  for (float v : st.first)
    REQUIRE(v == 0.0f);
  t.run(10);
  CHECK(t.current_step() == 30);
  CHECK(t.snapshots().frames().back().metrics.step == 30);
  CHECK(t.history().back().step == 30);
  CHECK_THROWS_AS(t.branch_from_snapshot(1000), std::out_of_range);
}

TEST_CASE("a branch restarts Adam's bias correction with its moments: the first update is lr * g / (|g| + eps)") {
  // Closed form: from zero moments, Adam's first bias-corrected update is exactly lr * g / (|g| + eps).
  // Keeping the run's step count instead (1 - beta^t near 1) makes it several times larger.
  RunConfig cfg = tiny_config();
  cfg.training.steps = 400;
  Trainer t = test::small_trainer(cfg, test::gradient_image(12, 10, 1));
  t.run(400);
  const size_t i = t.snapshot_count() - 1;
  const Snapshot s = t.snapshot(i);
  REQUIRE(s.metrics.step == 400);
  t.branch_from_snapshot(i);
  const Dataset& d = t.dataset();
  std::vector<float> coords(size_t(d.size()) * 2);
  for (int64_t k = 0; k < d.size(); ++k) d.coordinate(k, coords[size_t(2 * k)], coords[size_t(2 * k + 1)]);
  std::vector<float> grads(s.params.size());
  CpuBackend reference;
  (void)reference.loss_and_gradients(t.config().model, t.config().loss, s.params, t.fourier_b(), coords.data(),
                                     d.targets(), d.size(), grads);
  const double lr = t.learning_rate_at(400);
  REQUIRE(lr > 0);
  const double eps = t.config().optimizer.adam.epsilon;
  t.step();
  const std::vector<float> after = t.parameters();
  double worst = 0;
  for (size_t k = 0; k < grads.size(); ++k) {
    const double g = grads[k];
    const double want = -lr * g / (std::abs(g) + eps);
    worst = std::max(worst, std::abs((double(after[k]) - double(s.params[k])) - want));
  }
  CHECK(worst <= 1e-3 * lr);

  // The count travels in checkpoints: a resumed branch continues exactly as the branch does.
  t.run(5);
  const Checkpoint c = t.checkpoint();
  CHECK(c.optimizer_step == 6);
  CHECK(c.step == 406);
  const std::vector<uint8_t> bytes = serialize_checkpoint(c);
  const Checkpoint back = deserialize_checkpoint(bytes.data(), bytes.size(), "mem");
  CHECK(back.optimizer_step == 6);
  Trainer u = test::small_trainer(cfg, test::gradient_image(12, 10, 1));
  u.restore(back);
  t.run(5);
  u.run(5);
  CHECK(u.parameters() == t.parameters());
}

TEST_CASE("restore refuses snapshots that do not fit the model") {
  Trainer t = test::small_trainer(tiny_config(), test::gradient_image(8, 8, 1));
  t.run(5);
  Checkpoint c = t.checkpoint();
  c.snapshots.push_back(Snapshot{{}, std::vector<float>(3, 0.0f)});
  Trainer u = test::small_trainer(tiny_config(), test::gradient_image(8, 8, 1));
  const auto before = u.parameters();
  CHECK_THROWS_AS(u.restore(c), CheckpointError);
  CHECK(u.parameters() == before); // nothing half-restored
}
