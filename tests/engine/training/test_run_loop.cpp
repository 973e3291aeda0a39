// The run loop the command line, the app and Python drive (engine/training/run_loop.h): its limits,
// the time budget and the slice's time on an injected clock (the tests move time by the steps they
// take, never by waiting), the stop flag, and recovery from a NaN step, reported once and at the
// end of a run, for all three front ends at once. Each result is checked against the Trainer
// stepped by hand, or against a count worked out from the injected time.
#include "test_support.h"

#include "engine/errors.h"
#include "engine/training/run_loop.h"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <vector>

using namespace redraw;

namespace {
RunConfig loop_config(int64_t steps) {
  RunConfig c = test::small_config(OptimizerKind::Adam, 0);
  c.training.steps = steps;
  return c;
}
Trainer loop_trainer(const RunConfig& c) { return test::small_trainer(c, test::gradient_image(12, 10, 3)); }

/// A clock the test moves: each call of advance() is one second of wall and training time.
struct StepClock {
  TrainingClock::TimePoint now{};
  void advance() { now += std::chrono::seconds(1); }
  TrainingClock::TimeSource source() {
    return [this] { return now; };
  }
};

/// Steps `t` by hand, as the reference a loop's run is compared with.
void step_by_hand(Trainer& t, int64_t to) {
  while (t.current_step() < to)
    (void)t.step();
}
bool all_finite(const std::vector<float>& v) {
  for (float x : v)
    if (!std::isfinite(x)) return false;
  return true;
}
} // namespace

TEST_CASE("run loop: an end step, a step count and one slice or many give the trainer's own steps") {
  Trainer by_hand = loop_trainer(loop_config(30));
  step_by_hand(by_hand, 17);

  Trainer ended = loop_trainer(loop_config(30));
  RunLoop to_end(ended);
  to_end.set_end_step(17);
  CHECK(to_end.slice({}) == LoopEnd::Limit);
  CHECK(ended.current_step() == 17);
  CHECK(ended.parameters() == by_hand.parameters());
  CHECK(to_end.limit_reached() == LoopEnd::Limit);

  Trainer counted = loop_trainer(loop_config(30));
  RunLoop count(counted);
  count.set_step_count(17);
  int64_t rows = 0, slices = 0;
  LoopEvents one_at_a_time;
  one_at_a_time.stepped = [&](const std::optional<MetricsRow>& row, double) {
    rows += row.has_value();
    return true; // every step ends its slice
  };
  LoopEnd end = LoopEnd::Slice;
  while (end == LoopEnd::Slice) {
    end = count.slice(one_at_a_time);
    ++slices;
  }
  CHECK(end == LoopEnd::Limit);
  CHECK(slices == 17); // the 17th step meets the count: Limit, not Slice
  CHECK(counted.current_step() == 17);
  CHECK(rows == 4); // the first step's, then every 5 steps: 5, 10, 15
  CHECK(counted.parameters() == by_hand.parameters());

  Trainer to_total = loop_trainer(loop_config(30));
  CHECK(RunLoop(to_total).run() == LoopEnd::Limit); // no end step set: the trainer's total
  CHECK(to_total.current_step() == 30);
  CHECK_FALSE(to_total.clock().running()); // the end of the run paused the clock
}

TEST_CASE("run loop: the time budget ends the run when the injected clock says it is spent, and the schedule has annealed") {
  RunConfig c = loop_config(1000);
  c.schedule.kind = ScheduleKind::Cosine;
  Trainer t = loop_trainer(c);
  StepClock clock;
  RunLoop loop(t);
  loop.set_time_source(clock.source());
  loop.set_time_budget(5);
  LoopEvents events;
  events.stepped = [&](const std::optional<MetricsRow>&, double seconds) {
    CHECK(seconds == 0); // the clock moves after the step, in the caller's work
    clock.advance();
    return false;
  };
  // The clock starts at the first step: after step k, k seconds have passed.
  CHECK(loop.slice(events) == LoopEnd::TimeUp);
  CHECK(t.current_step() == 5);
  CHECK(t.clock().elapsed() == doctest::Approx(5.0));
  CHECK(t.schedule_step() == 1000); // at the deadline the schedule is at its end
  CHECK(loop.slice(events) == LoopEnd::TimeUp); // spent: no step more
  CHECK(t.current_step() == 5);
  loop.set_time_budget(0);
  CHECK_FALSE(loop.limit_reached().has_value());
}

TEST_CASE("run loop: a slice lasts its wall time on the injected clock, taking at least one step") {
  Trainer t = loop_trainer(loop_config(100));
  StepClock clock;
  RunLoop loop(t);
  loop.set_time_source(clock.source());
  loop.set_slice_seconds(2.5);
  LoopEvents events;
  events.stepped = [&](const std::optional<MetricsRow>&, double) {
    clock.advance();
    return false;
  };
  CHECK(loop.slice(events) == LoopEnd::Slice);
  CHECK(t.current_step() == 3); // 1, 2, then 3 s >= 2.5 s
  loop.set_slice_seconds(0.5);
  CHECK(loop.slice(events) == LoopEnd::Slice);
  CHECK(t.current_step() == 4); // one step even when it takes longer than the slice
}

TEST_CASE("run loop: the stop flag and may_step end a slice before the next step, and settle pauses the clock") {
  Trainer t = loop_trainer(loop_config(100));
  std::atomic<bool> stop{false};
  RunLoop loop(t);
  loop.set_stop_flag(&stop);
  LoopEvents events;
  events.stepped = [&](const std::optional<MetricsRow>&, double) {
    if (t.current_step() == 3) stop = true; // as a signal handler or the GUI's pause would
    return false;
  };
  CHECK(loop.slice(events) == LoopEnd::Stopped);
  CHECK(t.current_step() == 3);
  CHECK(loop.slice(events) == LoopEnd::Stopped); // still set: not a step
  CHECK(t.current_step() == 3);
  CHECK(loop.settle(events));
  CHECK_FALSE(t.clock().running());
  stop = false;
  int64_t asked = 0;
  events.may_step = [&] { return ++asked <= 2; };
  CHECK(loop.slice(events) == LoopEnd::Held);
  CHECK(t.current_step() == 5);
  CHECK(asked == 3);
  CHECK_FALSE(loop.finish(events)); // nothing to recover: no reason to train on
}

TEST_CASE("run loop: a NaN step is recovered and reported once, and the run still reaches its end") {
  RunConfig c = loop_config(60);
  c.training.good_state_every = 10;
  Trainer t = loop_trainer(c);
  t.inject_nan_after_step(23);
  std::vector<RecoveryEvent> heard;
  LoopEvents events;
  events.recovered = [&](const std::vector<RecoveryEvent>& found) { heard.insert(heard.end(), found.begin(), found.end()); };
  CHECK(RunLoop(t).run(events) == LoopEnd::Limit);
  Trainer by_hand = loop_trainer(c); // the reference: the same run stepped without the loop
  by_hand.inject_nan_after_step(23);
  step_by_hand(by_hand, 60);
  REQUIRE(by_hand.guard().recoveries().size() == 1);
  REQUIRE(heard.size() == 1);
  CHECK(heard.front().step == by_hand.guard().recoveries().front().step);
  CHECK(heard.front().step >= 23);
  CHECK(heard.front().rolled_back_to == 20); // the good state, kept every 10 steps
  CHECK(t.guard().recoveries().size() == 1);
  CHECK(t.take_new_recoveries().empty()); // the loop took them: none is said twice
  CHECK(t.current_step() == 60);
  CHECK(all_finite(t.parameters()));
  CHECK(t.parameters() == by_hand.parameters());
  const RecoveryEvent& e = heard.front();
  CHECK(recovery_text(e, 3) == "training diverged at step " + std::to_string(e.step) + " (" + e.reason +
                                   "): went back to step 20, the last good state; learning rate x0.5 from now on "
                                   "(recovery 1 of 3)");
}

TEST_CASE("run loop: a NaN after the last metrics row is found at the end of the run, which trains on to its end") {
  RunConfig c = loop_config(40); // the loop ends at 30: the total's own row (step 40) is not reached
  c.training.metrics_every = 1000; // no row finds it
  c.training.good_state_every = 10;
  Trainer t = loop_trainer(c);
  SnapshotPolicy none;
  none.enabled = false;
  t.set_snapshot_policy(none); // nor a frame
  t.inject_nan_after_step(29);
  RunLoop loop(t);
  loop.set_end_step(30);
  std::vector<RecoveryEvent> heard;
  LoopEvents events;
  events.recovered = [&](const std::vector<RecoveryEvent>& found) { heard.insert(heard.end(), found.begin(), found.end()); };
  CHECK(loop.slice(events) == LoopEnd::Limit);
  CHECK(t.current_step() == 30);
  CHECK_FALSE(all_finite(t.parameters())); // nothing looked yet
  CHECK(loop.finish(events));              // found, recovered: the run is below its end again
  REQUIRE(heard.size() == 1);
  CHECK(heard.front().step == 30);
  CHECK(t.current_step() == heard.front().rolled_back_to);
  CHECK(t.current_step() < 30);
  CHECK(all_finite(t.parameters()));
  CHECK(loop.slice(events) == LoopEnd::Limit); // trains on
  CHECK_FALSE(loop.finish(events));            // finite now: done
  CHECK(heard.size() == 1);
  CHECK(t.current_step() == 30);
  CHECK(all_finite(t.parameters()));
}

TEST_CASE("run loop: with no recovery left the slice ends Diverged, says why, and leaves finite weights") {
  RunConfig c = loop_config(60);
  c.training.max_recoveries = 0;
  c.training.good_state_every = 10;
  Trainer t = loop_trainer(c);
  t.inject_nan_after_step(12);
  RunLoop loop(t);
  CHECK(loop.slice({}) == LoopEnd::Diverged);
  CHECK(loop.diverged().find("recovery is off") != std::string::npos);
  CHECK_FALSE(t.clock().running());
  CHECK(t.current_step() == 10);
  CHECK(all_finite(t.parameters()));
  Trainer again = loop_trainer(c); // Trainer::run is the loop too, and throws
  again.inject_nan_after_step(12);
  CHECK_THROWS_WITH_AS(again.run(60), doctest::Contains("recovery is off"), DivergedError);
}
