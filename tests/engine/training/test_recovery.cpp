// Divergence recovery: NaN found on the backend's flag or in the weights, roll back to the last good
// state, a lower learning rate, the record of it in checkpoints; exact fits are no divergence.
#include "test_support.h"

#include "engine/model_files/checkpoint.h"
#include "engine/model_files/model_check.h"
#include "engine/errors.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

using namespace redraw;

namespace {
RunConfig recovery_config() {
  RunConfig cfg = test::small_config(OptimizerKind::Adam, 0);
  cfg.training.steps = 60;
  cfg.training.metrics_every = 5;
  cfg.training.good_state_every = 10;
  return cfg;
}
/// Steps until `steps` are done (a rollback makes run(n) end short of it).
void run_to(Trainer& t, int64_t steps) {
  while (t.current_step() < steps)
    t.step();
}
bool all_finite(const std::vector<MetricsRow>& rows) {
  for (const auto& r : rows)
    if (!std::isfinite(r.loss) || std::isnan(r.psnr_db)) return false;
  return true;
}
} // namespace

TEST_CASE("an injected NaN is found at the next loss read and rolled back and the run finishes finite") {
  Trainer t = test::small_trainer(recovery_config(), test::gradient_image(12, 10, 3));
  t.inject_nan_after_step(23);
  run_to(t, 60);
  REQUIRE(t.guard().recoveries().size() == 1);
  const RecoveryEvent e = t.guard().recoveries().front();
  CHECK(e.step == 23);           // found at once: 23 is a snapshot step, whose loss is read
  CHECK(e.rolled_back_to == 20); // the last good state (kept every 10 steps)
  CHECK(e.lr_scale == doctest::Approx(0.5));
  CHECK(e.attempt == 1);
  CHECK(t.take_new_recoveries().size() == 1);
  CHECK(t.take_new_recoveries().empty());
  CHECK(t.current_step() == 60);
  CHECK(count_nonfinite(t.parameters()) == 0);
  CHECK(all_finite(t.record().rows()));
  CHECK(t.record().rows().back().step == 60);
  CHECK(t.learning_rate_at(30) == doctest::Approx(0.5 * 1e-2));
  CHECK(t.record().rows().back().lr == doctest::Approx(0.5 * 1e-2));
}

TEST_CASE("a configurable factor brings a far too high learning rate down until the run trains") {
  RunConfig cfg = test::diverging_config();
  cfg.training.recovery_lr_factor = 1e-3;
  cfg.training.max_recoveries = 4;
  Trainer t = test::small_trainer(cfg, test::gradient_image(8, 8, 1));
  run_to(t, 100);
  CHECK(t.current_step() == 100);
  CHECK(!t.guard().recoveries().empty());
  CHECK(t.guard().lr_scale() <= 1e-6);
  CHECK(count_nonfinite(t.parameters()) == 0);
  CHECK(all_finite(t.record().rows()));
}

TEST_CASE("weights are checked before a checkpoint or a render: never NaN out even between metrics steps") {
  RunConfig cfg = recovery_config();
  cfg.training.metrics_every = 1000; // no metrics step finds it: the checkpoint must
  Trainer t = test::small_trainer(cfg, test::gradient_image(12, 10, 3));
  SnapshotPolicy none;
  none.enabled = false;
  t.set_snapshot_policy(none); // nor a snapshot step
  t.inject_nan_after_step(7);
  t.run(9);
  const Checkpoint c = t.checkpoint();
  CHECK(count_nonfinite(c) == 0);
  CHECK(c.recoveries.size() == 1);
  CHECK(c.step == 0); // back to the only good state, the start
  t.inject_nan_after_step(3);
  t.run(4);
  const Image img = t.render(12, 10);
  for (float v : img.pixels)
    REQUIRE(std::isfinite(v));
  CHECK(t.guard().recoveries().size() == 2);
  CHECK(t.guard().lr_scale() == doctest::Approx(0.25));
}

TEST_CASE("a non-finite optimizer moment behind finite weights is found where it is, and recovered") {
  RunConfig cfg = recovery_config();
  cfg.training.metrics_every = 1000;
  Trainer t = test::small_trainer(cfg, test::gradient_image(12, 10, 3));
  t.run(4);
  CHECK(t.backend().parameters_sound(true));
  CHECK_FALSE(t.ensure_finite()); // nothing to recover
  OptimizerState st = t.backend().optimizer_state();
  REQUIRE(!st.second.empty());
  st.second[st.second.size() / 2] = std::numeric_limits<float>::infinity();
  t.backend().set_optimizer_state(st);
  CHECK(t.backend().parameters_sound()); // the weights alone are finite
  CHECK_FALSE(t.backend().parameters_sound(true));
  CHECK(t.ensure_finite()); // recovered to the last good state
  CHECK(t.guard().recoveries().size() == 1);
  CHECK(t.backend().parameters_sound(true));
}

TEST_CASE("max_recoveries 0 turns recovery off: the first divergence stops the run") {
  RunConfig cfg = recovery_config();
  cfg.training.max_recoveries = 0;
  Trainer t = test::small_trainer(cfg, test::gradient_image(8, 8, 1));
  t.inject_nan_after_step(12);
  CHECK_THROWS_WITH_AS(t.run(60), doctest::Contains("recovery is off"), DivergedError);
  CHECK(t.current_step() == 10);
  CHECK(count_nonfinite(t.parameters()) == 0);
}

TEST_CASE("an exact fit (MSE 0) is reported as +inf dB and is no divergence") {
  CHECK(std::isinf(psnr_db(0.0)));
  CHECK(psnr_db(0.0) > 0);
  CHECK(std::isnan(psnr_db(std::nan(""))));
  // All weights zero: the sigmoid outputs exactly 0.5 everywhere, the image is 0.5 everywhere, and
  // every gradient is zero, so the fit stays exact.
  Image flat = test::gradient_image(6, 6, 1);
  std::fill(flat.pixels.begin(), flat.pixels.end(), 0.5f);
  RunConfig cfg = recovery_config();
  Trainer t = test::small_trainer(cfg, flat);
  Checkpoint c = t.checkpoint();
  std::fill(c.params.begin(), c.params.end(), 0.0f);
  t.restore(c);
  t.run(20);
  CHECK(t.guard().recoveries().empty());
  REQUIRE(!t.record().rows().empty());
  CHECK(std::isinf(t.record().rows().back().psnr_db));
  CHECK(t.record().rows().back().loss == 0.0);
}

TEST_CASE("recoveries and the lowered learning rate travel in the checkpoint and a resume keeps them") {
  test::TempDir dir;
  Trainer t = test::small_trainer(recovery_config(), test::gradient_image(12, 10, 3));
  t.inject_nan_after_step(23);
  run_to(t, 40);
  save_checkpoint(dir.path / "m.redraw", t.checkpoint());
  const Checkpoint back = load_checkpoint(dir.path / "m.redraw");
  CHECK(back.lr_scale == doctest::Approx(0.5));
  REQUIRE(back.recoveries.size() == 1);
  CHECK(back.recoveries[0].step == 23);
  CHECK(back.recoveries[0].rolled_back_to == 20);
  CHECK(back.recoveries[0].reason == t.guard().recoveries()[0].reason);
  Trainer r = test::small_trainer(recovery_config(), test::gradient_image(12, 10, 3));
  r.restore(back);
  CHECK(r.guard().lr_scale() == doctest::Approx(0.5));
  CHECK(r.take_new_recoveries().empty()); // reported by the run that wrote them
  t.run(20);
  r.run(20);
  CHECK(r.parameters() == t.parameters()); // the resume is exact, lowered rate included
}

TEST_CASE("a model with non-finite numbers is never written and one from elsewhere is not resumed") {
  test::TempDir dir;
  Trainer t = test::small_trainer(recovery_config(), test::gradient_image(8, 8, 1));
  Checkpoint c = t.checkpoint();
  c.params[3] = std::numeric_limits<float>::infinity();
  CHECK_THROWS_AS(save_checkpoint(dir.path / "bad.redraw", c), CheckpointError);
  CHECK(!std::filesystem::exists(dir.path / "bad.redraw"));
  CHECK(test::files_in(dir.path) == 0);
  CHECK_THROWS_WITH_AS(t.restore(c), doctest::Contains("not finite"), CheckpointError);
}

TEST_CASE("SGD without momentum (no optimizer arrays) round-trips: empty arrays are read without memcpy") {
  RunConfig cfg = test::small_config(OptimizerKind::Sgd, 0);
  cfg.optimizer.sgd.momentum = 0.0f;
  Trainer t = test::small_trainer(cfg, test::gradient_image(8, 8, 1));
  t.run(5);
  const Checkpoint c = t.checkpoint();
  CHECK(c.optimizer.first.empty());
  const auto bytes = serialize_checkpoint(c);
  const Checkpoint back = deserialize_checkpoint(bytes.data(), bytes.size(), "sgd");
  CHECK(back.optimizer.first.empty());
  CHECK(back.params == c.params);
}

TEST_CASE("Adam at a far too high learning rate is flagged: finite garbage counts as divergence") {
  RunConfig cfg = parse_run_config(nlohmann::json::parse(R"({
      "model": {"hidden": [64, 64], "activation": "ReLU", "output_activation": "Sigmoid"},
      "optimizer": {"otype": "Adam"}, "schedule": {"otype": "Constant", "lr_max": 100},
      "training": {"steps": 400, "metrics_every": 10, "good_state_every": 50},
      "data": {"color_mode": "gray", "width": 32, "height": 32}})"),
                                   "adam.json");
  const Image img = prepare_training_image(test::sample("horse.png"), cfg.data);
  Trainer t = test::small_trainer(cfg, img);
  CHECK_THROWS_WITH_AS(run_to(t, 400), doctest::Contains("worse than the untrained network"), DivergedError);
  CHECK(count_nonfinite(t.parameters()) == 0);
  // The same network at a sane rate trains without a single recovery.
  cfg.schedule.lr_max = 1e-2;
  Trainer ok = test::small_trainer(cfg, img);
  run_to(ok, 400);
  CHECK(ok.guard().recoveries().empty());
}

TEST_CASE("a save lends the weights and moments through the good state: the same bytes as a copy, and the "
          "rollback point moves to the saved step") {
  Trainer t = test::small_trainer(recovery_config(), test::gradient_image(12, 10, 3));
  run_to(t, 23); // the good state was kept at step 20
  const Checkpoint copied = t.checkpoint();
  bool seen = false;
  t.with_checkpoint("src.png", [&](const Checkpoint& c) {
    seen = true;
    CHECK(c.step == 23);
    CHECK(c.params == copied.params);
    CHECK(c.optimizer.first == copied.optimizer.first);
    CHECK(c.optimizer.second == copied.optimizer.second);
  });
  REQUIRE(seen);
  // A failed save gives them back too.
  CHECK_THROWS_AS(t.with_checkpoint("", [](const Checkpoint&) { throw IoError("disk full"); }), IoError);
  // The buffers came back as the good state of step 23: a divergence now rolls back there (not to
  // step 20), to exactly the saved weights, and the run finishes finite.
  t.inject_nan_after_step(27);
  while (t.guard().recoveries().empty() && t.current_step() < 40)
    t.step();
  REQUIRE(t.guard().recoveries().size() == 1);
  CHECK(t.guard().recoveries().front().rolled_back_to == 23);
  CHECK(t.current_step() == 23);
  CHECK(t.parameters() == copied.params);
  run_to(t, 60);
  CHECK(count_nonfinite(t.parameters()) == 0);
  CHECK(all_finite(t.record().rows()));
}

TEST_CASE("recovery: weights that grow past what a model may hold are a divergence, so what is kept opens") {
  // SGD at a learning rate of 30 on ReLU layers: the weights pass 1e6 in a few steps, still finite.
  RunConfig cfg = test::small_config(OptimizerKind::Sgd, 0);
  cfg.model.hidden_activations = {Activation::Relu, Activation::Relu};
  cfg.model.output_activation = Activation::Identity;
  cfg.optimizer.sgd.momentum = 0.0f;
  cfg.schedule.lr_max = 30;
  cfg.training.metrics_every = 1;
  cfg.training.max_recoveries = 0;
  Trainer t = test::small_trainer(cfg, test::gradient_image(12, 9, 1));
  bool diverged = false;
  for (int i = 0; i < 12 && !diverged; ++i) {
    t.step();
    try {
      t.ensure_finite();
    } catch (const DivergedError& e) {
      diverged = true;
      CHECK(std::string(e.what()).find("grew past what a model may hold") != std::string::npos);
    }
    CHECK(count_unsound(t.parameters(), k_max_model_weight) == 0); // never handed out
  }
  CHECK(diverged);
  const Checkpoint c = t.checkpoint("x.png");
  const auto bytes = serialize_checkpoint(c);
  require_sane_model(deserialize_checkpoint(bytes.data(), bytes.size(), "kept.redraw"), "kept.redraw");
  // The writer refuses weights past the bound, and a frame's such weights leave it a picture.
  Checkpoint big = c;
  big.params[0] = 2e6f;
  CHECK_THROWS_WITH_AS(serialize_checkpoint(big), doctest::Contains("past the bounds a model may hold"), CheckpointError);
  Checkpoint frame = c;
  REQUIRE(!frame.snapshots.empty());
  Snapshot& s = frame.snapshots.back();
  s.params = c.params;
  s.half_params.clear();
  s.params[1] = -3e6f;
  s.picture = {2, 2, 1, {1, 2, 3, 4}};
  const auto frame_bytes = serialize_checkpoint(frame);
  const Checkpoint back = deserialize_checkpoint(frame_bytes.data(), frame_bytes.size(), "frames.redraw");
  CHECK_FALSE(has_weights(back.snapshots.back()));
  CHECK(back.snapshots.back().picture.pixels == s.picture.pixels);
  require_sane_model(back, "frames.redraw");
}
