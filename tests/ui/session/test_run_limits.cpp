// When training pauses by itself (ui/session/run_limits.h): the stop-at step, the time budget, and the
// notices that say why. Built when the GUI is (REDRAW_TEST_UI).
#include <doctest/doctest.h>

#if REDRAW_TEST_UI
#include "ui/session/run_limits.h"

#include <limits>

using namespace redraw;

TEST_CASE("run limits: the stop-at step comes before the run's last step, and clears once passed") {
  RunLimits l;
  CHECK(l.pause_step(100) == 100); // none set: the last step
  l.set_stop_at(40);
  CHECK(l.stop_at() == 40);
  CHECK(l.pause_step(100) == 40);
  CHECK(l.pause_step(30) == 30); // a run shorter than the stop step ends first
  l.going_on_at(39);             // training on before it: it still holds
  CHECK(l.stop_at() == 40);
  l.going_on_at(40); // asked to train on at (or past) it: it no longer holds
  CHECK(l.stop_at() == -1);
  CHECK(l.pause_step(100) == 100);
  l.set_stop_at(10);
  l.set_stop_at(-1);
  CHECK(l.pause_step(100) == 100);
}

TEST_CASE("run limits: a time budget is spent when the trainer's clock says so, and only when one is set") {
  const double none = std::numeric_limits<double>::infinity(); // TrainingClock::budget_left without a budget
  RunLimits l;
  CHECK(l.time_budget() == 0);
  CHECK_FALSE(l.budget_spent(0.0)); // no budget: never spent, whatever the clock says
  CHECK_FALSE(l.budget_spent(-1.0));
  l.set_time_budget(-5); // negative: none
  CHECK(l.time_budget() == 0);
  l.set_time_budget(1.5);
  CHECK(l.time_budget() == 1.5);
  CHECK_FALSE(l.budget_spent(none));
  CHECK_FALSE(l.budget_spent(0.25));
  CHECK(l.budget_spent(0.0));
  CHECK(l.budget_spent(-0.01));
  CHECK(l.budget_notice(123) == "time budget of 1.5 s spent at step 123; training paused");
}

TEST_CASE("run limits: why a run cannot train further, the last step first") {
  RunLimits l;
  CHECK(l.refusal(10, 60, 1.0) == "");
  CHECK(l.refusal(60, 60, 1.0) == "training is at its last step; raise Steps to continue");
  CHECK(l.refusal(10, 60, 0.0) == ""); // no budget set
  l.set_time_budget(2);
  CHECK(l.refusal(10, 60, 0.0) == "the time budget is spent; raise it or turn it off to train further");
  CHECK(l.refusal(60, 60, 0.0) == "training is at its last step; raise Steps to continue");
  CHECK(RunLimits::pause_notice(60, 60) == "training finished at step 60");
  CHECK(RunLimits::pause_notice(40, 60) == ""); // a stop-at step pauses silently
}
#endif
