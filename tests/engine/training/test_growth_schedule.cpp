// When a growing run relocates (training.grow, engine/growth.h: grow_due_at): `every` counts the
// schedule's steps, so a run under a time budget, whose schedule position is its elapsed share of
// the budget (schedule.h: budget_schedule_step), relocates as often in its budget as a run of
// training.steps steps, spread over the first `until` of the budget, whatever the step rate.
// Checked with injected times (never the clock) against the closed form of the positions; without
// a budget, the same steps as the step rule (grow_due) and growth_events_until.
#include "primitive_fixtures.h"
#include "test_support.h"

#include "engine/growth.h"
#include "engine/training/schedule.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <tuple>
#include <vector>

using namespace redraw;

namespace {

RunConfig schedule_config(int64_t steps, int64_t every, double until) {
  RunConfig c = load_preset("gaussians-grow");
  c.training.steps = steps;
  c.training.grow.every = every;
  c.training.grow.until = until;
  return c;
}

struct TimedEvent {
  int64_t step = 0;
  double seconds = 0;
};

/// The relocations of a run of `c` under a budget of `budget` seconds whose steps take `step_seconds`
/// each, as the trainer makes them: after each step, at the schedule's position then.
std::vector<TimedEvent> budget_relocations(const RunConfig& c, double budget, double step_seconds) {
  std::vector<TimedEvent> out;
  for (int64_t step = 1; step <= c.training.steps; ++step) {
    const double seconds = double(step) * step_seconds;
    if (seconds > budget) break;
    const int64_t progress = budget_schedule_step(step, c.training.steps, 0, seconds, budget);
    if (grow_due_at(c, progress, int64_t(out.size()))) out.push_back({step, seconds});
  }
  return out;
}

} // namespace

TEST_CASE("grow_due_at: without a time budget the same steps as the step rule and growth_events_until") {
  for (const auto& [steps, every, until] :
       std::vector<std::tuple<int64_t, int64_t, double>>{{2000, 50, 0.5}, {200, 5, 0.5}, {60, 20, 0.8}, {101, 7, 1.0}}) {
    const RunConfig c = schedule_config(steps, every, until);
    std::vector<GrowthEvent> by_progress;
    int64_t by_step = 0;
    for (int64_t s = 1; s <= steps; ++s) {
      const bool due = grow_due_at(c, s, int64_t(by_progress.size()));
      CHECK(due == grow_due(c, s, s));
      if (due) by_progress.push_back({s, grow_count(30000, c.training.grow.fraction)});
      by_step += grow_due(c, s, s) ? 1 : 0;
    }
    CHECK(by_progress == growth_events_until(c, steps));
    // The closed form: the multiples of every below until * steps.
    CHECK(int64_t(by_progress.size()) == int64_t(std::ceil(until * double(steps)) - 1) / every);
    CHECK(by_step == int64_t(by_progress.size()));
  }
  CHECK(grow_events_reached(schedule_config(2000, 50, 0.5), 999) == 19);
  CHECK(grow_events_reached(schedule_config(2000, 50, 0.5), 5000) == 19); // none at or past until
  CHECK(grow_events_reached(schedule_config(2000, 50, 0.5), 49) == 0);
  RunConfig off = schedule_config(2000, 50, 0.5);
  off.training.grow = GrowSpec{};
  CHECK_FALSE(grow_due_at(off, 100, 0));
  CHECK(grow_events_reached(off, 100) == 0);
}

TEST_CASE("grow_due_at: a time-budgeted run relocates until * steps / every times in the first until of its budget") {
  // kodak-minute: the preset's 2000 steps, every 50, until 0.5, 60 s. A minute makes a few hundred
  // to 3000 steps on a CPU (and the schedule ends at 2000); the relocations stay 19 at every rate,
  // the k-th as the schedule's position (the larger of the step and the budget's share of 2000)
  // reaches 50 k (at most a step late), and none after 30 s.
  const RunConfig c = schedule_config(2000, 50, 0.5);
  for (const double step_seconds : {0.7, 0.2, 0.08, 0.02}) {
    CAPTURE(step_seconds);
    const std::vector<TimedEvent> events = budget_relocations(c, 60.0, step_seconds);
    REQUIRE(events.size() == 19);
    for (size_t k = 0; k < events.size(); ++k) {
      // The position runs at the larger of 1 / step_seconds and 2000 / 60 a second.
      const double due_at = double(50 * int64_t(k + 1)) / std::max(1.0 / step_seconds, 2000.0 / 60.0);
      CHECK(events[k].seconds >= due_at - step_seconds);
      CHECK(events[k].seconds <= due_at + 2 * step_seconds); // a missed one made up at the next step
      CHECK(events[k].seconds < 30.0);
      if (k > 0) CHECK(events[k].step > events[k - 1].step); // at most one a step
    }
  }
  // The step rule counted steps: at 0.7 s a step, step 50 comes at 35 s, past the first half of the
  // budget, so that rule relocated never; at 0.08 s a step it relocated 7 times (steps 50..350).
  for (const auto& [step_seconds, expected] : std::vector<std::pair<double, int64_t>>{{0.7, 0}, {0.08, 7}}) {
    int64_t by_step = 0;
    for (int64_t s = 1; double(s) * step_seconds <= 60.0 && s <= 2000; ++s)
      by_step += grow_due(c, s, budget_schedule_step(s, 2000, 0, double(s) * step_seconds, 60.0)) ? 1 : 0;
    CHECK(by_step == expected);
  }
}

TEST_CASE("grow_due_at: steps slower than the relocations make them up one a step, never past until") {
  // 10 steps in a 60 s budget of a 2000-step schedule, every 50: the positions run 200 apart, so
  // each step (until 30 s) finds more relocations owed than made, and makes one.
  const RunConfig c = schedule_config(2000, 50, 0.5);
  const std::vector<TimedEvent> events = budget_relocations(c, 60.0, 6.0);
  REQUIRE(events.size() == 4); // steps 1-4 (6-24 s); step 5 stands at 30 s, the end of growth
  for (size_t k = 0; k < events.size(); ++k)
    CHECK(events[k].step == int64_t(k + 1));
}

TEST_CASE("a trainer under a time budget relocates by its schedule's position, not its step count") {
  // A schedule of 10^6 steps no small run reaches: without a budget this run would relocate never
  // (every 50,000 steps); under a budget its position is the time's share, so it relocates as the
  // budget passes 5%, 10%, ... 45%: 9 times.
  RunConfig c = test::growth_run(load_preset("gaussians-grow"), 1000000, true);
  c.model.encoding.gaussians = 40;
  c.training.grow = GrowSpec{.every = 50000, .fraction = 0.1, .until = 0.5};
  Trainer t = test::small_trainer(c, test::detail_picture(16));
  // The clock moves 0.01 s a step (injected): the run's relocations follow what it did, not the
  // machine's load.
  TrainingClock::TimePoint now{};
  t.set_time_source([&now] { return now; });
  (void)t.step(), (void)t.step(); // the clock runs from the first step's start
  CHECK(t.record().growth().empty());
  t.set_time_budget(3.0);
  int64_t steps = 0;
  while (t.clock().budget_left() > 0 && steps < 1000) // the schedule's 10^6 steps never reached
    (void)t.step(), ++steps, now += std::chrono::milliseconds(10);
  CHECK(steps == 300);
  CHECK(t.record().growth().size() == 9);
  for (const GrowthEvent& e : t.record().growth())
    CHECK(e.moved == 4);
}
