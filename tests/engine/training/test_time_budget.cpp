// The schedule under a time budget: its position is the larger of the step and the time
// fraction, checked with injected times (never the clock), against the cosine's closed form.
#include "test_support.h"

#include "engine/training/schedule.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace redraw;

TEST_CASE("budget_schedule_step: the larger of the step and the time fraction") {
  // 1000 steps, a 60 s budget from step 0.
  CHECK(budget_schedule_step(0, 1000, 0, 0.0, 60) == 0);
  CHECK(budget_schedule_step(10, 1000, 0, 30.0, 60) == 500);   // time ahead of the steps
  CHECK(budget_schedule_step(700, 1000, 0, 30.0, 60) == 700);  // steps ahead of the time
  CHECK(budget_schedule_step(10, 1000, 0, 59.999, 60) == 999); // rounded down
  CHECK(budget_schedule_step(10, 1000, 0, 60.0, 60) == 1000);  // at the deadline: the end
  CHECK(budget_schedule_step(10, 1000, 0, 75.0, 60) == 1000);  // past it: clamped
  CHECK(budget_schedule_step(10, 1000, 0, -5.0, 60) == 10);    // a clock before the start
  // No budget, or a run already at its end: the step itself.
  CHECK(budget_schedule_step(10, 1000, 0, 30.0, 0) == 10);
  CHECK(budget_schedule_step(1200, 1000, 0, 30.0, 60) == 1200);
  // A budget set at a resume (step 400): the rest of the schedule is spread over it.
  CHECK(budget_schedule_step(400, 1000, 400, 0.0, 60) == 400);
  CHECK(budget_schedule_step(410, 1000, 400, 30.0, 60) == 700);
  CHECK(budget_schedule_step(410, 1000, 400, 60.0, 60) == 1000);
}

TEST_CASE("budget_schedule_step: a cosine read there anneals to lr_min at the deadline") {
  ScheduleSpec spec;
  spec.kind = ScheduleKind::Cosine;
  spec.lr_max = 1e-2;
  spec.lr_min = 1e-5;
  const int64_t total = 100000; // far more steps than the budget allows
  const auto sched = make_schedule(spec, total);
  const double pi = std::acos(-1.0);
  for (const double used : {0.0, 15.0, 30.0, 45.0, 59.0, 60.0}) {
    const int64_t at = budget_schedule_step(200, total, 0, used, 60); // a slow run: 200 steps so far
    const double f = double(at) / double(total);
    const double expected = spec.lr_min + (spec.lr_max - spec.lr_min) * 0.5 * (1 + std::cos(pi * f));
    CHECK(sched->learning_rate(at) == doctest::Approx(expected).epsilon(1e-12));
  }
  CHECK(sched->learning_rate(budget_schedule_step(200, total, 0, 60.0, 60)) == doctest::Approx(spec.lr_min));
  CHECK(sched->learning_rate(budget_schedule_step(200, total, 0, 30.0, 60)) ==
        doctest::Approx(0.5 * (spec.lr_max + spec.lr_min)));
}

TEST_CASE("trainer: without a budget the schedule follows the step, and rows carry the step's lr") {
  RunConfig cfg = test::small_config(OptimizerKind::Adam, 32);
  cfg.schedule.kind = ScheduleKind::Cosine;
  cfg.training.steps = 50;
  Trainer t = test::small_trainer(cfg, test::gradient_image(16, 16, 1));
  CHECK(t.clock().budget() == 0);
  CHECK(std::isinf(t.clock().budget_left()));
  t.run(20);
  CHECK(t.schedule_step() == 20);
  CHECK(t.record().rows().back().lr == doctest::Approx(t.learning_rate_at(19)));
  // A budget of a year: the time fraction stays ~0, so the position is still the step.
  t.set_time_budget(365.0 * 86400);
  CHECK(t.schedule_step() == 20);
  CHECK(t.clock().budget_left() <= 365.0 * 86400);
  CHECK(t.clock().budget_left() > 364.0 * 86400);
  t.set_time_budget(1e-9); // spent by the next steps' training time
  t.run(2);
  CHECK(t.clock().budget_left() <= 0);
  t.set_time_budget(0);
  CHECK(t.clock().budget() == 0);
}
