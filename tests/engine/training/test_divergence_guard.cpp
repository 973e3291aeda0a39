// The divergence guard (engine/training/divergence_guard.h): which rows and states count as diverged, the
// good state it keeps, and the bookkeeping of recoveries, against hand-made rows and states.
#include "test_support.h"

#include "engine/training/divergence_guard.h"
#include "engine/errors.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

using namespace redraw;

namespace {
TrainingSpec settings(int64_t good_every, int32_t max_recoveries, double factor) {
  TrainingSpec t;
  t.good_state_every = good_every;
  t.max_recoveries = max_recoveries;
  t.recovery_lr_factor = factor;
  return t;
}
MetricsRow loss_row(double loss, double psnr) {
  MetricsRow r;
  r.loss = loss;
  r.psnr_db = psnr;
  return r;
}
TrainingState state_at(int64_t step) {
  TrainingState s;
  s.step = step;
  s.optimizer_step = step;
  s.params = {1, 2, 3};
  return s;
}
constexpr double inf = std::numeric_limits<double>::infinity();
} // namespace

TEST_CASE("divergence guard: a non-finite loss or prediction is a divergence, an exact fit is not") {
  DivergenceGuard g(settings(10, 3, 0.5));
  CHECK(g.divergence_reason(loss_row(0.01, 25), 50).empty());
  CHECK(g.divergence_reason(loss_row(inf, 25), 50) == "the loss became inf");
  CHECK(g.divergence_reason(loss_row(-inf, 25), 50) == "the loss became -inf");
  CHECK(g.divergence_reason(loss_row(std::nan(""), 25), 50) == "the loss became nan");
  CHECK(g.divergence_reason(loss_row(0.01, std::nan("")), 50) == "the prediction became nan");
  CHECK(g.divergence_reason(loss_row(0.0, inf), 50).empty()); // MSE 0: +inf dB
  // The backend's flag, however finite the row looks, until it is cleared.
  g.note_nonfinite(true);
  g.note_nonfinite(false);
  CHECK(g.nonfinite_seen());
  CHECK(g.divergence_reason(loss_row(0.01, 25), 50) == "the loss became nan");
  g.clear_nonfinite();
  CHECK(g.divergence_reason(loss_row(0.01, 25), 50).empty());
}

TEST_CASE("divergence guard: worse than the untrained network by more than 1 dB, from good_state_every steps on") {
  DivergenceGuard g(settings(10, 3, 0.5));
  CHECK_FALSE(g.knows_start());
  CHECK_FALSE(g.worse_than_start(loss_row(1, 0), 100)); // no start known: never
  g.note_start(20.0);
  g.note_start(30.0); // the first one stays
  CHECK(g.initial_psnr() == 20.0);
  CHECK_FALSE(g.worse_than_start(loss_row(1, 18.9), 9)); // too early
  CHECK(g.worse_than_start(loss_row(1, 18.9), 10));
  CHECK_FALSE(g.worse_than_start(loss_row(1, 19.0), 10)); // exactly 1 dB below: not yet
  CHECK(g.divergence_reason(loss_row(1, 18.9), 10) ==
        "the picture became worse than the untrained network's: PSNR 18.90 dB, 20.00 dB at the start");
  // good_state_every 0 counts as 1.
  DivergenceGuard h(settings(0, 3, 0.5));
  h.note_start(20.0);
  CHECK_FALSE(h.worse_than_start(loss_row(1, 10), 0));
  CHECK(h.worse_than_start(loss_row(1, 10), 1));
}

TEST_CASE("divergence guard: what is unsound in a state, counted") {
  DivergenceGuard g(settings(10, 3, 0.5));
  OptimizerState opt;
  opt.first = {0, 0};
  opt.second = {1, 1};
  CHECK(g.unsound_reason(std::vector<float>{1, 2, 3}, opt).empty());
  OptimizerState bad = opt;
  bad.first[1] = std::numeric_limits<float>::infinity();
  CHECK(g.unsound_reason(std::vector<float>{1, std::nanf(""), 3}, bad) ==
        "2 weights or optimizer values became non-finite");
  CHECK(g.unsound_reason(std::vector<float>{1, 2e6f, -3e6f}, opt) ==
        "2 weights or optimizer values grew past what a model may hold (1e+06, 1e+12)");
  bad = opt;
  bad.second[0] = 2e12f;
  CHECK(g.unsound_reason(std::vector<float>{1, 2, 3}, bad).rfind("1 weights", 0) == 0);
  g.note_nonfinite(true); // a sound state behind a set flag: the loss went bad
  CHECK(g.unsound_reason(std::vector<float>{1, 2, 3}, opt) == "the loss became nan");
}

TEST_CASE("divergence guard: recoveries lower the learning rate until none is left") {
  DivergenceGuard g(settings(10, 2, 0.5));
  g.keep(state_at(20));
  CHECK(g.lr_scale() == 1);
  g.record_recovery("the loss became nan", 23, 1.5);
  REQUIRE(g.recoveries().size() == 1);
  const RecoveryEvent e = g.recoveries()[0];
  CHECK(e.step == 23);
  CHECK(e.rolled_back_to == 20);
  CHECK(e.lr_scale == 0.5);
  CHECK(e.seconds == 1.5);
  CHECK(e.attempt == 1);
  CHECK(e.reason == "the loss became nan");
  CHECK(g.lr_scale() == 0.5);
  CHECK(g.take_new().size() == 1);
  CHECK(g.take_new().empty());
  g.record_recovery("x", 25, 2.0);
  CHECK(g.lr_scale() == 0.25);
  CHECK(g.recoveries()[1].attempt == 2);
  CHECK_THROWS_WITH_AS(g.record_recovery("y", 30, 3.0),
                       "training diverged at step 30 (y) after 2 recoveries with a lower learning rate; the weights "
                       "are back at step 20, the last good state. Try a lower learning rate",
                       DivergedError);
  CHECK(g.lr_scale() == 0.25); // unchanged by the refusal
  CHECK(g.recoveries().size() == 2);
  DivergenceGuard off(settings(10, 0, 0.5));
  CHECK_THROWS_WITH_AS(off.record_recovery("z", 3, 0), doctest::Contains("recovery is off"), DivergedError);
}

TEST_CASE("divergence guard: a branch forgets the recoveries after its step; a resume reports none") {
  DivergenceGuard g(settings(10, 5, 0.5));
  for (const int64_t at : {10, 30, 50}) {
    g.keep(state_at(at - 5));
    g.record_recovery("r", at, 0);
  }
  CHECK(g.lr_scale() == 0.125);
  g.branch_at(35, std::nullopt);
  CHECK(g.recoveries().size() == 2);
  CHECK(g.lr_scale() == 0.25); // the last remaining recovery's
  CHECK(g.take_new().size() == 2);
  g.branch_at(40, 0.7); // a resumable frame knows its factor
  CHECK(g.lr_scale() == 0.7);
  g.branch_at(5, std::nullopt);
  CHECK(g.recoveries().empty());
  CHECK(g.lr_scale() == 1);
  Checkpoint c;
  c.lr_scale = 0.5;
  c.initial_psnr_db = 17.5;
  c.recoveries.resize(1);
  c.recoveries[0].step = 12;
  g.note_nonfinite(true);
  g.restore(c);
  CHECK_FALSE(g.nonfinite_seen());
  CHECK(g.lr_scale() == 0.5);
  CHECK(g.initial_psnr() == 17.5);
  CHECK(g.recoveries().size() == 1);
  CHECK(g.take_new().empty()); // reported by the run that wrote them
  Checkpoint saved;
  g.save_into(saved);
  CHECK(saved.lr_scale == 0.5);
  CHECK(saved.initial_psnr_db == 17.5);
  REQUIRE(saved.recoveries.size() == 1);
  CHECK(saved.recoveries[0].step == 12);
  g.reset();
  CHECK(g.recoveries().empty());
  CHECK(g.lr_scale() == 1);
  CHECK_FALSE(g.knows_start());
}

TEST_CASE("divergence guard: the good state is refreshed from the backend every good_state_every steps, when sound") {
  const Dataset data{test::gradient_image(6, 5, 1)};
  RunConfig cfg = test::small_config(OptimizerKind::Adam, 0);
  cfg.model.output_channels = 1;
  CpuBackend b;
  b.configure({cfg.model, cfg.loss, cfg.optimizer, 0, 1, k_metric_sample_pixels}, data);
  const std::vector<float> weights(size_t(b.parameter_count()), 0.125f);
  b.set_parameters(weights);
  DivergenceGuard g(settings(10, 3, 0.5));
  g.keep(state_at(0));
  g.maybe_refresh(b, 9, 9, 0.5);
  CHECK(g.good().step == 0); // too soon
  g.maybe_refresh(b, 10, 7, 0.5);
  CHECK(g.good().step == 10);
  CHECK(g.good().optimizer_step == 7);
  CHECK(g.good().loss == 0.5);
  CHECK(g.good().params == weights);
  CHECK(g.check(b).empty());
  // A weight that is not finite: the good state stays, and the check says what is wrong.
  g.inject_nan_after_step(12);
  g.apply_injected_nan(b, 11);
  CHECK(count_nonfinite(b.parameters()) == 0);
  g.apply_injected_nan(b, 12);
  const std::vector<float> now = b.parameters();
  CHECK(count_nonfinite(now) == 1);
  CHECK(std::isnan(now[now.size() / 2]));
  b.set_parameters(weights);
  g.apply_injected_nan(b, 12); // once only
  CHECK(count_nonfinite(b.parameters()) == 0);
  std::vector<float> broken = weights;
  broken[0] = std::numeric_limits<float>::infinity();
  b.set_parameters(broken);
  CHECK_FALSE(g.refresh(b, 20, 20, 0.1));
  CHECK(g.good().step == 10);
  CHECK(g.good().params == weights);
  CHECK(g.check(b) == "1 weights or optimizer values became non-finite");
}
