#pragma once
/// The training clock and the time budget of one run.
/// - Training time is the wall time between step starts while the clock runs, in seconds, carried
///   across pauses and resumes (restart_at). It starts at the first tick() and stops at pause().
/// - A process stop (SIGSTOP ... SIGCONT, counted by engine/stop_signals.h) is no training time:
///   an interval between two ticks during which a SIGCONT arrived counts as long as the interval
///   before it (or less, when it was shorter).
/// - Time budget: set at a training time and step; schedule_step() reads the schedule at
///   budget_schedule_step (schedule.h), so a run stopped by its deadline has annealed by then.
/// - Every reading has a twin that takes the time `now` (and tick() the SIGCONT count): the plain
///   ones read std::chrono::steady_clock (or the time source a test set) and continue_signals();
///   tests inject both.
/// - Threading: one thread (the trainer's); not locked.
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>

namespace redraw {

class TrainingClock {
public:
  using TimePoint = std::chrono::steady_clock::time_point;
  using TimeSource = std::function<TimePoint()>;

  /// Test hook: the plain readings take the time from `source` instead of steady_clock (null: it
  /// again), so a test moves time by what it does, not by waiting.
  void set_time_source(TimeSource source) { m_time_source = std::move(source); }

  /// Starts the clock, or keeps it running: called at each step's start. `continues`: the SIGCONT
  /// count (continue_signals()) at `now`.
  void tick();
  void tick(TimePoint now, uint64_t continues);
  /// Stops the clock, keeping the time so far; nothing when it is stopped.
  void pause();
  void pause(TimePoint now);
  bool running() const { return m_start.has_value(); }
  /// Stops the clock at `seconds` of training time (a reset, a resume, a branch). The budget stays.
  void restart_at(double seconds);
  /// Training seconds so far.
  double elapsed() const;
  double elapsed(TimePoint now) const;

  /// A budget of `seconds` of training time from now, the run at step `step`; 0 or less: none.
  void set_budget(double seconds, int64_t step);
  void set_budget(double seconds, int64_t step, TimePoint now);
  double budget() const { return m_budget; } ///< seconds; 0: none
  /// Training seconds left of the budget (<= 0 once spent); +infinity without one.
  double budget_left() const;
  double budget_left(TimePoint now) const;
  /// The step to read the schedule at for a run at `step` of `total_steps`: `step` without a
  /// budget, else budget_schedule_step's position for the time used since the budget was set.
  int64_t schedule_step(int64_t step, int64_t total_steps) const;
  int64_t schedule_step(int64_t step, int64_t total_steps, TimePoint now) const;

private:
  TimePoint now_point() const; ///< the time source's now, or steady_clock's

  TimeSource m_time_source;         ///< null: steady_clock
  double m_before = 0;              ///< training time accumulated before the current run of the clock
  std::optional<TimePoint> m_start; ///< when the current run began (counted from m_before)
  TimePoint m_last_tick{};          ///< the previous tick (clock running)
  double m_last_interval = 0;       ///< seconds between the two ticks before it
  uint64_t m_continues_seen = 0;    ///< the SIGCONT count at the last tick
  double m_budget = 0;              ///< seconds; 0: none
  double m_budget_start_seconds = 0;
  int64_t m_budget_start_step = 0;
};

} // namespace redraw
