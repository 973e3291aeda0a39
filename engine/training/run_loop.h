#pragma once
/// The run loop: how a run steps, for the command line, the app, Python and the benchmarks alike.
/// It owns the sequence they share: the slice (steps until a limit, the stop flag, the slice's wall
/// time or the caller's wish), the limits (an end step, a step count and the time budget the
/// schedule anneals to), the reports of recoveries from divergence, and the end of a run (the late
/// rows settled, the clock paused, the weights checked: a divergence found there recovers, and a
/// run that went back below its end step trains on). It calls back for what differs: previews,
/// progress lines, checkpoints, Python's callback, what the app publishes.
/// - One thread (the trainer's); only the stop flag is set from other threads.
/// - The loop changes the run only through Trainer verbs: a run's bits are the Trainer's, the same
///   steps in the same order however the slices fall.
/// - Recoveries reach events.recovered; with no listener they stay in the trainer
///   (Trainer::take_new_recoveries) for whoever reports them.
/// - Time: the slices and the training clock read one source (steady_clock, or a test's through
///   set_time_source), so a test moves time by the steps it takes, never by waiting.
#include "engine/training/trainer.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace redraw {

struct DivergedError;

/// Why RunLoop::slice() returned.
enum class LoopEnd : uint8_t {
  Slice,    ///< the slice's time passed or `stepped` ended it: slice() again goes on
  Held,     ///< `may_step` said no before a step (another run's turn, an exiting interpreter)
  Limit,    ///< the end step or the step count was reached
  TimeUp,   ///< the time budget is spent
  Stopped,  ///< the stop flag is set: the last step may have been left between its chunks
  Diverged, ///< diverged with no recovery left (diverged() says it); the clock is paused
};

/// What a front end hears from the loop; each member may be left empty.
struct LoopEvents {
  /// Asked before each step: false holds the loop (LoopEnd::Held).
  std::function<bool()> may_step;
  /// After each finished step: the metrics row it brought, if any, and the step's wall seconds.
  /// True ends the slice there (a command waits; a row goes to Python's callback).
  std::function<bool(const std::optional<MetricsRow>& row, double seconds)> stepped;
  /// A row the end of a run settled (a GPU measures rows a step or two late).
  std::function<void(const MetricsRow& row)> settled;
  /// New recoveries from divergence, oldest first, right after the step or check that found them.
  std::function<void(const std::vector<RecoveryEvent>& recoveries)> recovered;
};

class RunLoop {
public:
  /// No end step of its own: the step count or the time budget ends the run (set_end_step).
  static constexpr int64_t k_no_end_step = std::numeric_limits<int64_t>::max();

  /// `trainer` must outlive the loop.
  explicit RunLoop(Trainer& trainer) : m_trainer(trainer) {}

  // ---- limits, set before slice() ----------------------------------------------------------------
  /// Trains up to step `step`; < 0 (the default): the trainer's total steps, read at each step.
  void set_end_step(int64_t step) { m_end_step = step; }
  /// At most `n` more steps from now (a step the stop flag abandoned counts too); < 0: no count.
  void set_step_count(int64_t n) { m_steps_left = n; }
  /// A budget of `seconds` of training time from now: the schedule anneals to it, and the run ends
  /// when it is spent (LoopEnd::TimeUp); 0 or less: none. The trainer's clock keeps it.
  void set_time_budget(double seconds) { m_trainer.set_time_budget(seconds); }
  /// The wall seconds after which a slice ends (it takes at least one step); <= 0: no end.
  void set_slice_seconds(double seconds) { m_slice_seconds = seconds; }
  /// A flag that stops the run from any thread, within a chunk of a step (Trainer::set_stop_flag);
  /// it must outlive the trainer or be replaced; null: none.
  void set_stop_flag(const std::atomic<bool>* flag) { m_trainer.set_stop_flag(flag); }
  /// Test hook: the slices and the trainer's clock read the time from `source` (null: steady_clock).
  void set_time_source(TrainingClock::TimeSource source);

  /// What keeps the run from taking a step now (Stopped, Limit or TimeUp, in that order); nothing
  /// when it may train.
  std::optional<LoopEnd> limit_reached() const;

  // ---- the loop --------------------------------------------------------------------------------
  /// Steps until a limit, the stop flag, `may_step`, `stepped` or the slice's time ends it. A
  /// DivergedError (no recovery left) is caught: the clock paused, LoopEnd::Diverged returned.
  /// Other exceptions (out of memory, a device error) pass through.
  LoopEnd slice(const LoopEvents& events);
  /// A pause: the late rows settled (events.settled; a GPU measures rows a step or two late) and
  /// the clock paused. False when settling found a divergence with no recovery left (diverged()).
  bool settle(const LoopEvents& events);
  /// The end of a run: settle(), then the weights checked; a divergence found there recovers
  /// (events.recovered). True when the run should train on: a recovery moved it back and no limit
  /// holds it now. False after a DivergedError too (diverged() says it).
  bool finish(const LoopEvents& events);
  /// Slices until the run ends, then finish(), and on again while finish() says so: the command
  /// line's way. Returns why it ended (Diverged when finish() diverged).
  LoopEnd run(const LoopEvents& events = {});
  /// The DivergedError's message after LoopEnd::Diverged (or a settle() or finish() that
  /// diverged); "" once the next slice() or settle() begins.
  const std::string& diverged() const { return m_diverged; }

private:
  int64_t end_step() const { return m_end_step < 0 ? m_trainer.total_steps() : m_end_step; }
  double wall_seconds_since(TrainingClock::TimePoint start) const;
  TrainingClock::TimePoint now() const;
  /// Hands the trainer's new recoveries to events.recovered (left in the trainer when nobody listens).
  void report(const LoopEvents& events);
  void stop_diverged(const DivergedError& e, const LoopEvents& events);

  Trainer& m_trainer;
  int64_t m_end_step = -1;
  int64_t m_steps_left = -1;
  double m_slice_seconds = 0;
  TrainingClock::TimeSource m_time_source;
  std::string m_diverged;
};

/// The line that reports a recovery: "training diverged at step 23 (loss nan): went back to step
/// 20, the last good state; learning rate x0.5 from now on (recovery 1 of 3)".
std::string recovery_text(const RecoveryEvent& e, int32_t max_recoveries);

} // namespace redraw
