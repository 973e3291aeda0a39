// The timelapse's keeper (engine/training/snapshot_keeper.h): which steps keep a frame and what it holds,
// big networks' keyframes and picture-only frames, what a checkpoint borrows, and which checkpoints
// a model can take. The network's weights are all zero, so every picture is exactly 0.5 (128).
#include "test_support.h"

#include "engine/errors.h"
#include "engine/training/snapshot_keeper.h"

#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>

using namespace redraw;

namespace {
struct ZeroNetwork {
  Dataset data{test::gradient_image(12, 10, 1)};
  RunConfig cfg = test::small_config(OptimizerKind::Adam, 0);
  CpuBackend backend;
  OptimizerState moments;
  ZeroNetwork() {
    cfg.model.output_channels = 1;
    cfg.training.steps = 2000;
    cfg.training.metrics_every = 10;
    backend.configure({cfg.model, cfg.loss, cfg.optimizer, 0, 1, k_metric_sample_pixels}, data);
    backend.set_parameters(std::vector<float>(size_t(backend.parameter_count()), 0.0f));
    moments.first.assign(size_t(backend.parameter_count()), 0.5f);
    moments.second.assign(size_t(backend.parameter_count()), 0.25f);
    backend.set_optimizer_state(moments);
  }
  SnapshotKeeper keeper() { return SnapshotKeeper(backend, cfg, {}, 12, 10); }
};
MetricsRow row_at(int64_t step) {
  MetricsRow r;
  r.step = step;
  r.psnr_db = 10;
  return r;
}
bool all_half(const FramePicture& p) {
  for (uint8_t v : p.pixels)
    if (v != 128) return false;
  return !p.pixels.empty();
}
} // namespace

TEST_CASE("snapshot keeper: the default policy follows the run's length until one is set") {
  ZeroNetwork n;
  SnapshotKeeper k = n.keeper();
  CHECK(k.policy().every == 10); // 2000 steps / 200 frames, a multiple of metrics_every
  k.set_total_steps(100000);
  CHECK(k.policy().every == 500);
  CHECK(k.should_snapshot(500));
  CHECK_FALSE(k.should_snapshot(501));
  SnapshotPolicy mine;
  mine.per_octave = 0;
  mine.every = 7;
  k.set_policy(mine);
  k.set_total_steps(50000);
  CHECK(k.policy().every == 7);
  CHECK(k.policy().per_octave == 0);
}

TEST_CASE("snapshot keeper: a network is big when an exact frame passes the large-frame size") {
  ZeroNetwork n;
  SnapshotKeeper k = n.keeper();
  const size_t exact = size_t(parameter_count(n.cfg.model)) * sizeof(float) * 3; // weights + Adam's two moments
  k.set_large_frame_bytes(exact);
  CHECK_FALSE(k.big_frames());
  for (const int64_t s : {0, 1, 3, 5, 6, 12})
    CHECK(k.keeps_weights(s));
  k.set_large_frame_bytes(exact - 1);
  CHECK(k.big_frames());
  for (const int64_t s : {0, 1, 2, 4, 8, 1024})
    CHECK(k.keeps_weights(s));
  for (const int64_t s : {3, 5, 6, 12, 1000})
    CHECK_FALSE(k.keeps_weights(s));
}

TEST_CASE("snapshot keeper: a recorded frame holds the live weights, its picture and what a resume needs") {
  ZeroNetwork n;
  SnapshotKeeper k = n.keeper();
  k.record(0, row_at(0), {0, 1.0});
  k.record(5, row_at(5), {3, 0.5});
  REQUIRE(k.store().size() == 2);
  const Snapshot& start = k.frame(0);
  CHECK(start.resumable);
  CHECK(start.optimizer.first.empty()); // a zeroed optimizer is not read: empty arrays stand for zeros
  const Snapshot& s = k.frame(1);
  CHECK(s.metrics.step == 5);
  CHECK(s.params == std::vector<float>(size_t(n.backend.parameter_count()), 0.0f));
  CHECK(s.resumable);
  CHECK(s.optimizer_step == 3);
  CHECK(s.lr_scale == 0.5);
  CHECK(s.optimizer.first == n.moments.first);
  CHECK(s.optimizer.second == n.moments.second);
  CHECK(s.picture.width == 12);
  CHECK(s.picture.height == 10);
  CHECK(all_half(s.picture));
  CHECK_THROWS_AS(k.frame(2), std::out_of_range);
}

TEST_CASE("snapshot keeper: a big network keeps fp16 keyframes at powers of two and pictures between") {
  ZeroNetwork n;
  SnapshotKeeper k = n.keeper();
  k.set_large_frame_bytes(1);
  k.record(0, row_at(0), {0, 1});
  k.record(3, row_at(3), {3, 1});
  k.record(4, row_at(4), {4, 1});
  REQUIRE(k.store().size() == 3);
  CHECK(k.frame(0).resumable); // step 0 stays exact
  CHECK(k.frame(0).params.size() == size_t(n.backend.parameter_count()));
  const Snapshot& between = k.frame(1);
  CHECK_FALSE(has_weights(between));
  CHECK(all_half(between.picture));
  const Snapshot& key = k.frame(2);
  CHECK(key.params.empty());
  CHECK(key.half_params.size() == size_t(n.backend.parameter_count()));
  CHECK(key.optimizer.first.empty());
  CHECK(k.branch_point(2).state.params == std::vector<float>(key.half_params.size(), 0.0f)); // widened
  CHECK_THROWS_AS(k.branch_point(1), ConfigError);
  CHECK_THROWS_AS(k.branch_point(3), std::out_of_range);
  // A picture-only frame renders its picture resampled; a keyframe from its weights.
  const Image big = k.render(1, 24, 20, {});
  CHECK(big.width == 24);
  CHECK(big.height == 20);
  for (float v : big.pixels)
    CHECK(v == doctest::Approx(128.0 / 255.0).epsilon(1e-3));
  for (float v : k.render(2, 5, 3, {}).pixels)
    CHECK(v == 0.5f);
}

TEST_CASE("snapshot keeper: a frame begun without waiting takes its weights from a copy of its step") {
  ZeroNetwork n;
  SnapshotKeeper k = n.keeper();
  PendingRow r;
  k.begin_frame(r, 6, {2, 0.25});
  REQUIRE(r.copy_ticket >= 0);
  REQUIRE(r.snapshot.has_value());
  CHECK(r.snapshot->resumable);
  CHECK(r.snapshot->optimizer_step == 2);
  CHECK(r.snapshot->lr_scale == 0.25);
  n.backend.set_parameters(std::vector<float>(size_t(n.backend.parameter_count()), 1.0f)); // training moves on
  ParameterCopy copy;
  REQUIRE(n.backend.finish_parameter_copy(r.copy_ticket, copy, true));
  r.snapshot->params = std::move(copy.params);
  r.snapshot->optimizer = std::move(copy.optimizer);
  k.add_begun(std::move(*r.snapshot), row_at(6));
  const Snapshot& s = k.frame(0);
  CHECK(s.metrics.step == 6);
  CHECK(s.params == std::vector<float>(size_t(n.backend.parameter_count()), 0.0f));
  CHECK(s.optimizer.first == n.moments.first);
  CHECK(all_half(s.picture)); // drawn from the frame's weights, not the live ones
  // Big: a picture-only frame is drawn at once; a power of two copies weights without moments.
  k.set_large_frame_bytes(1);
  PendingRow pic;
  k.begin_frame(pic, 6, {2, 1});
  CHECK(pic.copy_ticket == -1);
  REQUIRE(pic.snapshot.has_value());
  CHECK_FALSE(has_weights(*pic.snapshot));
  CHECK(pic.snapshot->picture.pixels.size() == 12u * 10u);
  PendingRow key;
  k.begin_frame(key, 8, {8, 1});
  REQUIRE(key.copy_ticket >= 0);
  REQUIRE(n.backend.finish_parameter_copy(key.copy_ticket, copy, true));
  CHECK(copy.optimizer.first.empty()); // a keyframe keeps no moments: none are copied
  key.snapshot->params = std::move(copy.params);
  k.add_begun(std::move(*key.snapshot), row_at(8));
  CHECK(k.frame(1).metrics.step == 8);
  CHECK(k.frame(1).params.empty());
  CHECK(k.frame(1).half_params.size() == size_t(n.backend.parameter_count()));
}

TEST_CASE("checkpoint loan: frames and state go to the checkpoint and come back, also on a throw") {
  ZeroNetwork n;
  SnapshotKeeper k = n.keeper();
  k.record(0, row_at(0), {0, 1});
  k.record(1, row_at(1), {1, 1});
  std::vector<float> params{1, 2, 3};
  OptimizerState opt;
  opt.first = {4, 5, 6};
  Checkpoint c;
  {
    CheckpointLoan loan(c, k.store());
    CHECK(k.store().empty());
    CHECK(c.snapshots.size() == 2);
    loan.lend_state(params, opt);
    CHECK(params.empty());
    CHECK(c.params == std::vector<float>{1, 2, 3});
    CHECK(c.optimizer.first == std::vector<float>{4, 5, 6});
  }
  CHECK(k.store().size() == 2);
  CHECK(params == std::vector<float>{1, 2, 3});
  CHECK(opt.first == std::vector<float>{4, 5, 6});
  CHECK(c.snapshots.empty());
  try {
    CheckpointLoan loan(c, k.store());
    throw IoError("disk full");
  } catch (const IoError&) {
  }
  CHECK(k.store().size() == 2);
  CHECK(params == std::vector<float>{1, 2, 3}); // not lent that time: untouched
}

TEST_CASE("snapshot keeper: a branch starts from the frame, its optimizer state only when it is resumable") {
  ZeroNetwork n;
  SnapshotKeeper k = n.keeper();
  MetricsRow r = row_at(5);
  r.loss = 0.25;
  r.seconds = 7.5;
  k.record(5, r, {3, 0.5});
  Snapshot plain = k.frame(0); // the same frame without what a resume needs
  plain.resumable = false;
  plain.optimizer = {};
  plain.metrics.step = 9;
  k.store().add(plain);
  const BranchPoint exact = k.branch_point(0);
  CHECK(exact.state.step == 5);
  CHECK(exact.state.optimizer_step == 3);
  CHECK(exact.state.loss == 0.25);
  CHECK(exact.state.optimizer.second == n.moments.second);
  CHECK(exact.seconds == 7.5);
  CHECK(exact.lr_scale.value_or(-1) == 0.5);
  const BranchPoint fresh = k.branch_point(1);
  CHECK(fresh.state.step == 9);
  CHECK(fresh.state.optimizer_step == 0); // zero moments: Adam's bias correction restarts
  CHECK(fresh.state.optimizer.first == std::vector<float>(n.moments.first.size(), 0.0f));
  CHECK(fresh.state.optimizer.second == std::vector<float>(n.moments.second.size(), 0.0f));
  CHECK_FALSE(fresh.lr_scale.has_value());
}

TEST_CASE("snapshot keeper: a resume's state: the model's counts, a fresh optimizer where it has none") {
  ZeroNetwork n;
  SnapshotKeeper k = n.keeper();
  Checkpoint c;
  c.config = n.cfg;
  c.step = 40;
  c.optimizer_step = 12;
  c.params.assign(size_t(parameter_count(n.cfg.model)), 0.5f);
  c.optimizer = n.moments;
  c.history = {row_at(35), row_at(40)};
  c.history.back().loss = 0.125;
  TrainingState st = k.resume_state(c);
  CHECK(st.step == 40);
  CHECK(st.optimizer_step == 12);
  CHECK(st.loss == 0.125);
  CHECK(st.params == c.params);
  CHECK(st.optimizer.first == n.moments.first);
  c.optimizer_step = -1; // an older model: the update count is the step
  CHECK(k.resume_state(c).optimizer_step == 40);
  c.optimizer = {}; // a model without optimizer state starts it afresh, from update 0
  c.history.clear();
  st = k.resume_state(c);
  CHECK(st.optimizer_step == 0);
  CHECK(st.optimizer.second == std::vector<float>(c.params.size(), 0.0f));
  CHECK(std::isnan(st.loss));
  c.params[0] = std::nanf("");
  CHECK_THROWS_AS(k.resume_state(c), CheckpointError);
}

TEST_CASE("check_restorable: the colour mode, the shape, sound numbers and frames of the model's size") {
  ZeroNetwork n;
  Checkpoint c;
  c.config = n.cfg;
  c.params.assign(size_t(parameter_count(n.cfg.model)), 0.0f);
  CHECK_NOTHROW(check_restorable(c, n.cfg.model));
  Checkpoint colour = c;
  colour.config.model.output_channels = 3;
  CHECK_THROWS_WITH_AS(check_restorable(colour, n.cfg.model), doctest::Contains("colour mode differs"),
                       CheckpointError);
  Checkpoint wider = c;
  wider.config.model.hidden = {9, 6};
  CHECK_THROWS_WITH_AS(check_restorable(wider, n.cfg.model), doctest::Contains("network shape"), CheckpointError);
  Checkpoint diverged = c;
  diverged.params[1] = std::nanf("");
  CHECK_THROWS_WITH_AS(check_restorable(diverged, n.cfg.model), doctest::Contains("not finite"), CheckpointError);
  Checkpoint frames = c;
  Snapshot s;
  s.params.assign(c.params.size() + 1, 0.0f);
  frames.snapshots.push_back(s);
  CHECK_THROWS_WITH_AS(check_restorable(frames, n.cfg.model), doctest::Contains("a timelapse snapshot has"),
                       CheckpointError);
}
