#include "engine/training/run_loop.h"

#include "engine/errors.h"

#include <cstdio>

namespace redraw {

void RunLoop::set_time_source(TrainingClock::TimeSource source) {
  m_time_source = source;
  m_trainer.set_time_source(std::move(source));
}

TrainingClock::TimePoint RunLoop::now() const {
  return m_time_source ? m_time_source() : std::chrono::steady_clock::now();
}

double RunLoop::wall_seconds_since(TrainingClock::TimePoint start) const {
  return std::chrono::duration<double>(now() - start).count();
}

std::optional<LoopEnd> RunLoop::limit_reached() const {
  if (m_trainer.stop_requested()) return LoopEnd::Stopped;
  if (m_steps_left == 0 || m_trainer.current_step() >= end_step()) return LoopEnd::Limit;
  const TrainingClock& clock = m_trainer.clock();
  if (clock.budget() > 0 && clock.budget_left() <= 0) return LoopEnd::TimeUp;
  return std::nullopt;
}

void RunLoop::report(const LoopEvents& events) {
  if (!events.recovered) return;
  const std::vector<RecoveryEvent> found = m_trainer.take_new_recoveries();
  if (!found.empty()) events.recovered(found);
}

void RunLoop::stop_diverged(const DivergedError& e, const LoopEvents& events) {
  m_diverged = e.what();
  m_trainer.pause_clock();
  report(events); // the recoveries before the last one, not yet said
}

LoopEnd RunLoop::slice(const LoopEvents& events) {
  m_diverged.clear();
  const TrainingClock::TimePoint start = now();
  try {
    for (;;) {
      if (const std::optional<LoopEnd> end = limit_reached()) return *end;
      if (events.may_step && !events.may_step()) return LoopEnd::Held;
      const TrainingClock::TimePoint step_start = now();
      const std::optional<MetricsRow> row = m_trainer.step();
      if (m_steps_left > 0) --m_steps_left;
      if (m_trainer.stop_requested()) return LoopEnd::Stopped; // the step may be unfinished: nothing follows it
      report(events);
      const bool ended = events.stepped && events.stepped(row, wall_seconds_since(step_start));
      report(events); // what followed the step (a checkpoint, a preview) checked the weights too
      if (const std::optional<LoopEnd> end = limit_reached()) return *end;
      if (ended || (m_slice_seconds > 0 && wall_seconds_since(start) >= m_slice_seconds)) return LoopEnd::Slice;
    }
  } catch (const DivergedError& e) {
    stop_diverged(e, events);
    return LoopEnd::Diverged;
  }
}

bool RunLoop::settle(const LoopEvents& events) {
  m_diverged.clear();
  try {
    for (const MetricsRow& row : m_trainer.flush_metrics())
      if (events.settled) events.settled(row);
    m_trainer.pause_clock();
    report(events);
    return true;
  } catch (const DivergedError& e) {
    stop_diverged(e, events);
    return false;
  }
}

bool RunLoop::finish(const LoopEvents& events) {
  const size_t before = m_trainer.guard().recoveries().size();
  if (!settle(events)) return false;
  try {
    m_trainer.ensure_finite(); // a divergence since the last row is found here, before anything is saved
  } catch (const DivergedError& e) {
    stop_diverged(e, events);
    return false;
  }
  report(events);
  return m_trainer.guard().recoveries().size() != before && !limit_reached();
}

LoopEnd RunLoop::run(const LoopEvents& events) {
  for (;;) {
    const LoopEnd end = slice(events);
    if (end == LoopEnd::Slice) continue;
    if (end == LoopEnd::Diverged) return end;
    if (!finish(events)) return m_diverged.empty() ? end : LoopEnd::Diverged;
  }
}

std::string recovery_text(const RecoveryEvent& e, int32_t max_recoveries) {
  char tail[96];
  std::snprintf(tail, sizeof tail, "; learning rate x%g from now on (recovery %d of %d)", e.lr_scale, e.attempt,
                max_recoveries);
  return "training diverged at step " + std::to_string(e.step) + " (" + e.reason + "): went back to step " +
         std::to_string(e.rolled_back_to) + ", the last good state" + tail;
}

} // namespace redraw
