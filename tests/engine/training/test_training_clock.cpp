// The training clock (engine/training/training_clock.h) with injected times and SIGCONT counts (never the
// wall clock): elapsed time across pauses and resumes, a stop counted as the interval before it,
// and the time budget against hand-computed positions.
#include "engine/training/training_clock.h"

#include <doctest/doctest.h>

#include <chrono>
#include <cmath>

using namespace redraw;

namespace {
/// `s` seconds after an arbitrary origin.
TrainingClock::TimePoint at(double s) {
  return TrainingClock::TimePoint{} +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(1000.0 + s));
}
} // namespace

TEST_CASE("training clock: runs from the first tick, stops at pause, carries on at the next tick") {
  TrainingClock c;
  CHECK_FALSE(c.running());
  CHECK(c.elapsed(at(5)) == 0.0);
  c.tick(at(10), 0);
  CHECK(c.running());
  CHECK(c.elapsed(at(12.5)) == doctest::Approx(2.5));
  c.tick(at(11), 0);
  c.pause(at(13));
  CHECK_FALSE(c.running());
  CHECK(c.elapsed(at(13)) == doctest::Approx(3.0));
  CHECK(c.elapsed(at(500)) == doctest::Approx(3.0)); // a paused clock stands still
  c.pause(at(600));                                  // pausing again changes nothing
  CHECK(c.elapsed(at(700)) == doctest::Approx(3.0));
  c.tick(at(800), 0);
  CHECK(c.elapsed(at(802)) == doctest::Approx(5.0));
}

TEST_CASE("training clock: a resume starts from the saved time, stopped") {
  TrainingClock c;
  c.tick(at(0), 0);
  c.restart_at(42.25);
  CHECK_FALSE(c.running());
  CHECK(c.elapsed(at(100)) == doctest::Approx(42.25));
  c.tick(at(100), 0);
  CHECK(c.elapsed(at(101.5)) == doctest::Approx(43.75));
}

TEST_CASE("training clock: an interval holding a SIGCONT counts as long as the interval before it") {
  TrainingClock c;
  c.tick(at(0), 7);
  c.tick(at(1), 7);
  c.tick(at(2), 7);  // intervals of 1 s
  c.tick(at(62), 8); // a stop: 60 s between ticks, counted as 1 s
  CHECK(c.elapsed(at(62)) == doctest::Approx(3.0));
  c.tick(at(63), 8);
  CHECK(c.elapsed(at(63)) == doctest::Approx(4.0));
  // A stopped interval shorter than the one before it keeps its own length.
  TrainingClock d;
  d.tick(at(0), 0);
  d.tick(at(5), 0);
  d.tick(at(5.5), 1);
  CHECK(d.elapsed(at(5.5)) == doctest::Approx(5.5));
  // The interval right after the clock started has no interval before it: counted as 0.
  TrainingClock e;
  e.tick(at(0), 0);
  e.tick(at(30), 1);
  CHECK(e.elapsed(at(31)) == doctest::Approx(1.0));
  // A SIGCONT while paused is no training time either way: the clock restarts where it stood.
  TrainingClock f;
  f.tick(at(0), 0);
  f.pause(at(2));
  f.tick(at(50), 3);
  CHECK(f.elapsed(at(51)) == doctest::Approx(3.0));
}

TEST_CASE("training clock: the budget's time left and the schedule's position") {
  TrainingClock c;
  CHECK(c.budget() == 0);
  CHECK(std::isinf(c.budget_left(at(0))));
  CHECK(c.schedule_step(10, 1000, at(0)) == 10);
  c.tick(at(0), 0);
  c.set_budget(60, 0, at(0));
  CHECK(c.budget() == 60);
  CHECK(c.budget_left(at(15)) == doctest::Approx(45.0));
  // Half the budget used, 10 of 1000 steps done: the schedule is read at step 1000 * 30 / 60.
  CHECK(c.schedule_step(10, 1000, at(30)) == 500);
  CHECK(c.schedule_step(700, 1000, at(30)) == 700); // the steps ahead of the time
  CHECK(c.schedule_step(10, 1000, at(90)) == 1000); // past the deadline: the end
  CHECK(c.budget_left(at(90)) == doctest::Approx(-30.0));
  // Paused time does not spend the budget.
  c.pause(at(20));
  CHECK(c.budget_left(at(500)) == doctest::Approx(40.0));
  // Set again at a resume (20 s in, step 400): the rest of the schedule is spread over the budget.
  c.set_budget(60, 400, at(500));
  c.tick(at(500), 0);
  CHECK(c.schedule_step(410, 1000, at(530)) == 700); // 400 + 600 * 30 / 60
  CHECK(c.budget_left(at(530)) == doctest::Approx(30.0));
  // None, or a negative one: the step itself.
  c.set_budget(-5, 410, at(530));
  CHECK(c.budget() == 0);
  CHECK(std::isinf(c.budget_left(at(530))));
  CHECK(c.schedule_step(410, 1000, at(560)) == 410);
}

TEST_CASE("training clock: the plain readings follow the steady clock") {
  TrainingClock c;
  c.tick();
  CHECK(c.running());
  const double a = c.elapsed();
  CHECK(a >= 0);
  CHECK(c.elapsed() >= a);
  c.pause();
  const double b = c.elapsed();
  CHECK(c.elapsed() == b);
}
