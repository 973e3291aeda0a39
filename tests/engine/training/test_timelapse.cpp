// Timelapse snapshots: the policy's steps, thinning under the memory cap, and the Trainer's
// snapshots (re-rendered bit-exactly, saved in checkpoints, branching).
#include "test_support.h"

#include "engine/model_files/checkpoint.h"
#include "cpu/cpu_backend.h"
#include "engine/errors.h"
#include "engine/half_float.h"
#include "engine/frames/timelapse.h"

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
  s.half_params.assign(params, float_to_half(float(step))); // a keyframe: only frames are dropped
  return s;
}

RunConfig timelapse_config() { return test::tanh16_config(0, 60, 10); }
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
  CHECK(SnapshotPolicy::for_run(50, 10).every == 1);    // a short run keeps every step
  CHECK(SnapshotPolicy::for_run(2000, 50).every == 10); // 200 regular frames, beside the ladder
}

TEST_CASE("make_keyframe rounds the weights to fp16 and drops the optimizer state, unless a weight is out of range") {
  std::vector<float> w(100003);
  for (size_t i = 0; i < w.size(); ++i) w[i] = std::sin(float(i)) * (i % 7 == 0 ? 3e-6f : 40.0f); // subnormals too
  Snapshot s;
  s.params = w;
  s.optimizer.first.assign(w.size(), 1.0f);
  make_keyframe(s);
  CHECK(s.params.empty());
  CHECK(s.optimizer.first.empty());
  REQUIRE(s.half_params.size() == w.size());
  for (size_t i = 0; i < w.size(); ++i) REQUIRE(s.half_params[i] == float_to_half(w[i]));
  for (const float bad : {70000.0f, -1e30f, std::nanf(""), INFINITY}) {
    CAPTURE(bad);
    Snapshot e;
    e.params = w;
    e.params[w.size() / 2] = bad;
    make_keyframe(e);
    CHECK(e.half_params.empty()); // kept exact: fp16 cannot hold it
    CHECK(e.params.size() == w.size());
  }
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
  Trainer t = test::small_trainer(timelapse_config(), test::gradient_image(12, 10, 3));
  std::map<int64_t, std::vector<float>> shown;
  shown[0] = t.render(24, 20).pixels;
  while (t.current_step() < 60) {
    t.step();
    if (t.frames().policy().should_snapshot(t.current_step())) shown[t.current_step()] = t.render(24, 20).pixels;
  }
  REQUIRE(t.frames().store().size() == shown.size());
  CHECK(t.frames().frame(0).metrics.step == 0);
  for (size_t i = 0; i < t.frames().store().size(); ++i) {
    const Snapshot& s = t.frames().frame(i);
    CHECK(t.render_snapshot(i, 24, 20).pixels == shown.at(s.metrics.step));
  }
  // And after a save and load into a new trainer.
  const auto bytes = serialize_checkpoint(t.checkpoint("x.png"));
  const Checkpoint c = deserialize_checkpoint(bytes.data(), bytes.size(), "mem");
  CHECK(c.snapshots.size() == shown.size());
  Trainer u = test::small_trainer(timelapse_config(), test::gradient_image(12, 10, 3));
  u.restore(c);
  REQUIRE(u.frames().store().size() == shown.size());
  // A file keeps pictures, fp16 keyframes and step 0's exact weights: step 0 renders the same, a
  // keyframe within fp16 rounding, and a picture is the exact render at its size in 8 bits.
  for (size_t i = 0; i < u.frames().store().size(); ++i) {
    const Snapshot& s = u.frames().frame(i);
    const std::vector<float>& exact = shown.at(s.metrics.step);
    if (!s.params.empty()) CHECK(u.render_snapshot(i, 24, 20).pixels == exact);
    if (!s.half_params.empty()) CHECK(test::psnr_f64(u.render_snapshot(i, 24, 20).pixels, exact) > 50);
    if (!has_weights(s)) CHECK(s.picture.pixels == to_frame_picture(t.render_snapshot(i, 12, 10)).pixels);
  }
  u.reset();
  CHECK(u.frames().store().empty());
  CHECK_THROWS_AS((void)u.frames().frame(0), std::out_of_range);
}

TEST_CASE("snapshots do not change training or the metrics history, and carry their step's metrics") {
  Trainer with = test::small_trainer(timelapse_config(), test::gradient_image(12, 10, 1));
  Trainer without = test::small_trainer(timelapse_config(), test::gradient_image(12, 10, 1));
  SnapshotPolicy off;
  off.enabled = false;
  without.set_snapshot_policy(off);
  with.run(60);
  without.run(60);
  CHECK(with.parameters() == without.parameters());
  CHECK(without.frames().store().empty());
  REQUIRE(with.record().rows().size() == without.record().rows().size());
  for (size_t i = 0; i < with.record().rows().size(); ++i)
    CHECK(with.record().rows()[i].psnr_db == without.record().rows()[i].psnr_db);
  for (const auto& s : with.frames().store().frames()) {
    CHECK(std::isfinite(s.metrics.psnr_db));
    if (s.metrics.step > 0) CHECK(std::isfinite(s.metrics.loss));
    for (const auto& row : with.record().rows())
      if (row.step == s.metrics.step) CHECK(row.psnr_db == s.metrics.psnr_db);
  }
}

TEST_CASE("the snapshot cap holds during training") {
  Trainer t = test::small_trainer(timelapse_config(), test::gradient_image(8, 8, 1));
  SnapshotPolicy every;
  every.every = 1;
  t.set_snapshot_policy(every);
  const size_t frame = snapshot_bytes(Snapshot{{}, t.parameters(), {}, {}});
  t.set_snapshot_cap_bytes(frame * 7);
  t.run(60);
  // Seven exact frames' worth: the newest keeps its exact state (3 frames' weight with Adam's
  // moments), the rest are thinned to fp16 keyframes and then to 8x8 pictures (which with a
  // network this small cost about a fifth of an exact frame, the Snapshot itself included).
  const size_t n = t.frames().store().size();
  CHECK(n > 20);
  CHECK(t.frames().store().bytes() <= t.frames().store().cap_bytes());
  CHECK(t.frames().frame(0).metrics.step == 0);
  CHECK(has_weights(t.frames().frame(0))); // the first frame keeps weights
  CHECK(t.frames().frame(n - 1).metrics.step == 60);
  CHECK(t.frames().frame(n - 1).params == t.parameters());
  CHECK(frame_kind(t.frames().frame(n - 1)) == FrameKind::Resumable);
  size_t pictures = 0;
  for (size_t i = 0; i < n; ++i) {
    CHECK(t.frames().frame(i).picture.width == 8);
    pictures += frame_kind(t.frames().frame(i)) == FrameKind::Picture;
  }
  CHECK(pictures >= n - 4);
}

TEST_CASE("optimizer states are thinned before frames, evenly in log step, never the newest") {
  std::vector<Snapshot> frames;
  for (int64_t step : {0, 1, 2, 4, 8, 16, 32, 64, 128}) {
    Snapshot s = frame_at(step, 100);
    s.params = frame_weights(s); // exact weights
    s.half_params.clear();
    s.resumable = step > 0;
    if (step > 0) s.optimizer.first.assign(100, 1.0f), s.optimizer.second.assign(100, 2.0f);
    frames.push_back(std::move(s));
  }
  size_t all = 0;
  for (const auto& f : frames)
    all += snapshot_bytes(f);
  // An exact frame with its optimizer state costs 400 + 800 bytes, an fp16 keyframe 200: each
  // frame made a keyframe gives back 1000 bytes (step 0's, without optimizer state, 200).
  // Room for all but 3000 bytes: step 0 goes first (closest neighbours in log step), then three.
  const size_t cap = all - 3000;
  CHECK(thin_snapshots(frames, cap) == 0);
  CHECK(frames.size() == 9);
  size_t held = 0;
  for (const auto& f : frames)
    held += f.resumable && !f.optimizer.first.empty();
  CHECK(held == 5);
  CHECK(frames.back().resumable);
  CHECK(frames.front().resumable == false); // it never had one here
  for (const auto& f : frames) {
    CHECK(f.resumable == !f.optimizer.first.empty());
    CHECK(f.resumable == !f.params.empty()); // the others are fp16 keyframes
    CHECK(f.resumable == f.half_params.empty());
  }
  // Without pictures no frame can become a picture only: frames go next; the newest stays exact.
  CHECK(thin_snapshots(frames, 4 * sizeof(Snapshot)) > 0);
  CHECK(frames.back().resumable);
}

TEST_CASE("a branch from a resumable frame continues bit for bit as the uninterrupted run did") {
  for (const int64_t batch : {int64_t(0), int64_t(24)}) {
    for (const OptimizerKind opt : {OptimizerKind::Adam, OptimizerKind::Sgd}) {
      CAPTURE(batch);
      CAPTURE(int(opt));
      RunConfig cfg = test::small_config(opt, batch);
      cfg.model.hidden = {16, 16};
      cfg.model.hidden_activations = {Activation::Tanh, Activation::Tanh};
      cfg.training.steps = 60;
      cfg.training.metrics_every = 10;
      cfg.schedule.kind = ScheduleKind::Cosine; // the schedule's position matters too
      cfg.schedule.lr_min = cfg.schedule.lr_max * 0.01;
      const Image img = test::gradient_image(12, 10, 1);
      Trainer straight = test::small_trainer(cfg, img);
      straight.run(60);
      Trainer t = test::small_trainer(cfg, img);
      t.run(45);
      const size_t i = t.frames().store().index_at_step(20);
      REQUIRE(t.frames().frame(i).metrics.step == 20);
      REQUIRE(t.frames().frame(i).resumable);
      CHECK(t.branch_from_snapshot(i));
      t.run(40);
      REQUIRE(t.current_step() == 60);
      CHECK(t.parameters() == straight.parameters());
      CHECK(t.backend().optimizer_state().first == straight.backend().optimizer_state().first);
      CHECK(t.backend().optimizer_state().second == straight.backend().optimizer_state().second);
      REQUIRE(t.record().rows().size() == straight.record().rows().size());
      for (size_t k = 0; k < t.record().rows().size(); ++k) {
        CHECK(t.record().rows()[k].step == straight.record().rows()[k].step);
        CHECK(t.record().rows()[k].loss == straight.record().rows()[k].loss);
        CHECK(t.record().rows()[k].psnr_db == straight.record().rows()[k].psnr_db);
      }
    }
  }
}

TEST_CASE("branching from a snapshot restores its weights, step and timeline") {
  Trainer t = test::small_trainer(timelapse_config(), test::gradient_image(12, 10, 1));
  t.run(60);
  const size_t i = t.frames().store().index_at_step(20);
  const Snapshot s = t.frames().frame(i);
  REQUIRE(s.metrics.step == 20);
  REQUIRE(s.resumable);
  CHECK(t.branch_from_snapshot(i));
  CHECK(t.current_step() == 20);
  CHECK(t.parameters() == s.params);
  CHECK(t.frames().store().size() == i + 1);
  CHECK(t.record().rows().back().step == 20);
  const OptimizerState st = t.backend().optimizer_state();
  CHECK(st.first == s.optimizer.first);
  CHECK(st.second == s.optimizer.second);
  CHECK(std::any_of(st.first.begin(), st.first.end(), [](float v) { return v != 0.0f; }));
  t.run(10);
  CHECK(t.current_step() == 30);
  CHECK(t.frames().store().frames().back().metrics.step == 30);
  CHECK(t.record().rows().back().step == 30);
  CHECK_THROWS_AS(t.branch_from_snapshot(1000), std::out_of_range);
}

TEST_CASE("a branch from a frame without its optimizer state restarts Adam's bias correction with its moments") {
  // Closed form: from zero moments, Adam's first bias-corrected update is exactly lr * g / (|g| + eps).
  // Keeping the run's step count instead (1 - beta^t near 1) makes it several times larger.
  // Frames read from a .redraw file carry no optimizer state (only step 0's, which is zero).
  RunConfig cfg = timelapse_config();
  cfg.training.steps = 400;
  Trainer t = test::small_trainer(cfg, test::gradient_image(12, 10, 1));
  t.run(400);
  {
    const std::vector<uint8_t> saved = serialize_checkpoint(t.checkpoint());
    const Checkpoint loaded = deserialize_checkpoint(saved.data(), saved.size(), "mem");
    CHECK(loaded.snapshots.front().resumable);
    CHECK_FALSE(loaded.snapshots.back().resumable);
    t.restore(loaded);
  }
  const size_t i = t.frames().store().size() - 1;
  const Snapshot s = t.frames().frame(i);
  REQUIRE(s.metrics.step == 400);
  CHECK_FALSE(t.branch_from_snapshot(i));
  const Dataset& d = t.dataset();
  std::vector<float> coords(size_t(d.size()) * 2);
  for (int64_t k = 0; k < d.size(); ++k)
    d.coordinate(k, coords[size_t(2 * k)], coords[size_t(2 * k + 1)]);
  const std::vector<float> weights = frame_weights(s); // fp16 from the file, widened
  std::vector<float> grads(weights.size());
  CpuBackend reference;
  (void)reference.loss_and_gradients(t.config().model, t.config().loss, weights, t.fourier_b(), coords.data(),
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
    worst = std::max(worst, std::abs((double(after[k]) - double(weights[k])) - want));
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
  Trainer t = test::small_trainer(timelapse_config(), test::gradient_image(8, 8, 1));
  t.run(5);
  Checkpoint c = t.checkpoint();
  c.snapshots.push_back(Snapshot{{}, std::vector<float>(3, 0.0f), {}, {}});
  Trainer u = test::small_trainer(timelapse_config(), test::gradient_image(8, 8, 1));
  const auto before = u.parameters();
  CHECK_THROWS_AS(u.restore(c), CheckpointError);
  CHECK(u.parameters() == before); // nothing half-restored
}

TEST_CASE("a network too large for exact frames keeps fp16 keyframes at powers of two and pictures between") {
  Trainer t = test::small_trainer(timelapse_config(), test::gradient_image(12, 10, 3));
  const auto params = size_t(t.parameters().size());
  // Adam: weights and two moments; an exact frame over the bound counts as large.
  t.set_large_frame_bytes(params * sizeof(float) * 3 - 1);
  SnapshotPolicy every;
  every.per_octave = 0;
  every.every = 1;
  t.set_snapshot_policy(every);
  std::map<int64_t, std::vector<uint8_t>> pictures;
  std::map<int64_t, std::vector<float>> renders;
  while (t.current_step() < 40) {
    t.step();
    pictures[t.current_step()] = to_frame_picture(t.render(12, 10)).pixels;
    renders[t.current_step()] = t.render(24, 20).pixels;
  }
  (void)t.flush_metrics();
  REQUIRE(t.frames().store().size() == 41); // step 0 and every step after
  size_t keyframes = 0;
  for (size_t i = 0; i < t.frames().store().size(); ++i) {
    const Snapshot& s = t.frames().frame(i);
    const int64_t step = s.metrics.step;
    CHECK(s.optimizer.first.empty());
    if (step == 0) {
      CHECK(s.params.size() == params); // the untrained network stays exact
    } else if ((step & (step - 1)) == 0) {
      ++keyframes;
      CHECK(s.params.empty());
      CHECK(s.half_params.size() == params);
      CHECK_FALSE(s.resumable);
      CHECK(test::psnr_f64(t.render_snapshot(i, 24, 20).pixels, renders.at(step)) > 50);
    } else {
      CHECK_FALSE(has_weights(s)); // a picture, drawn from the weights of its own step
    }
    if (step > 0) CHECK(s.picture.pixels == pictures.at(step));
  }
  CHECK(keyframes == 6); // 1, 2, 4, 8, 16, 32
  // Below the bound the same run keeps exact, resumable frames.
  Trainer u = test::small_trainer(timelapse_config(), test::gradient_image(12, 10, 3));
  u.set_snapshot_policy(every);
  u.run(5);
  (void)u.flush_metrics();
  REQUIRE(u.frames().store().size() == 6);
  CHECK(u.frames().frame(3).params.size() == params);
  CHECK(u.frames().frame(3).resumable);
}

TEST_CASE("timelapse memory: a keyframe frees its fp32 weights, and a frame's bytes count what it holds allocated") {
  Snapshot s;
  s.params.assign(1000, 0.25f);
  s.optimizer.first.assign(1000, 0.0f);
  make_keyframe(s);
  CHECK(s.params.capacity() == 0); // freed, not only emptied
  CHECK(s.optimizer.first.capacity() == 0);
  CHECK(s.half_params.size() == 1000);
  CHECK(snapshot_bytes(s) == sizeof(Snapshot) + 1000 * sizeof(uint16_t));
  // A buffer emptied but kept still costs memory, and the cap must see it.
  Snapshot kept;
  kept.params.reserve(5000);
  CHECK(snapshot_bytes(kept) >= sizeof(Snapshot) + 5000 * sizeof(float));
}

TEST_CASE("timelapse memory: a save borrows the frames and gives them back, also when it fails") {
  const RunConfig c = redraw::test::small_config(OptimizerKind::Adam, 16);
  Trainer t = redraw::test::small_trainer(c, redraw::test::gradient_image(16, 16, 1));
  for (int i = 0; i < 20; ++i)
    t.step();
  const size_t frames = t.frames().store().size(), bytes = t.frames().store().bytes();
  REQUIRE(frames >= 2);
  size_t seen = 0;
  t.with_checkpoint("src.png", [&](const Checkpoint& ckpt) {
    seen = ckpt.snapshots.size();
    CHECK(ckpt.source_image == "src.png");
    CHECK(t.frames().store().empty()); // lent, not copied
  });
  CHECK(seen == frames);
  CHECK(t.frames().store().size() == frames);
  CHECK_THROWS_AS(t.with_checkpoint("", [](const Checkpoint&) { throw IoError("disk full"); }), IoError);
  CHECK(t.frames().store().size() == frames);
  CHECK(t.frames().store().bytes() == bytes);
  CHECK(t.checkpoint().snapshots.size() == frames); // the copying form still copies
}

TEST_CASE(
    "frame pictures: frame_picture_size is fit_within the frame side, the longer side scaled, the other rounded") {
  for (int32_t w = 1; w <= 2000; w += 7)
    for (int32_t h = 1; h <= 2000; h += 13) {
      int32_t pw = 0, ph = 0;
      frame_picture_size(w, h, pw, ph);
      const int32_t side = std::max(w, h);
      // Closed form: nothing changes up to the side; above it the longer side becomes the side.
      const int32_t ew = side <= k_frame_picture_side
                             ? w
                             : int32_t(std::max<int64_t>(1, (int64_t(w) * k_frame_picture_side + side / 2) / side));
      const int32_t eh = side <= k_frame_picture_side
                             ? h
                             : int32_t(std::max<int64_t>(1, (int64_t(h) * k_frame_picture_side + side / 2) / side));
      REQUIRE(pw == ew);
      REQUIRE(ph == eh);
    }
}
