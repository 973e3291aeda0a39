#include "engine/training/training_clock.h"

#include "engine/training/schedule.h"
#include "engine/stop_signals.h"

#include <algorithm>
#include <limits>

namespace redraw {

namespace {
double seconds_between(TrainingClock::TimePoint a, TrainingClock::TimePoint b) {
  return std::chrono::duration<double>(b - a).count();
}
} // namespace

TrainingClock::TimePoint TrainingClock::now_point() const {
  return m_time_source ? m_time_source() : std::chrono::steady_clock::now();
}

void TrainingClock::tick() { tick(now_point(), continue_signals()); }

void TrainingClock::tick(TimePoint now, uint64_t continues) {
  if (!m_start) {
    m_start = now;
    m_last_interval = 0;
  } else {
    const double interval = seconds_between(m_last_tick, now);
    if (continues != m_continues_seen) {
      // Stopped since the last tick: this interval counts as long as the one before it.
      m_before = elapsed(now) - interval + std::min(interval, m_last_interval);
      m_start = now;
    } else {
      m_last_interval = interval;
    }
  }
  m_continues_seen = continues;
  m_last_tick = now;
}

void TrainingClock::pause() { pause(now_point()); }

void TrainingClock::pause(TimePoint now) {
  if (!m_start) return;
  m_before = elapsed(now);
  m_start.reset();
}

void TrainingClock::restart_at(double seconds) {
  m_before = seconds;
  m_start.reset();
}

double TrainingClock::elapsed() const { return elapsed(now_point()); }

double TrainingClock::elapsed(TimePoint now) const {
  return m_start ? m_before + seconds_between(*m_start, now) : m_before;
}

void TrainingClock::set_budget(double seconds, int64_t step) { set_budget(seconds, step, now_point()); }

void TrainingClock::set_budget(double seconds, int64_t step, TimePoint now) {
  m_budget = seconds > 0 ? seconds : 0;
  m_budget_start_seconds = elapsed(now);
  m_budget_start_step = step;
}

double TrainingClock::budget_left() const { return budget_left(now_point()); }

double TrainingClock::budget_left(TimePoint now) const {
  if (m_budget <= 0) return std::numeric_limits<double>::infinity();
  return m_budget - (elapsed(now) - m_budget_start_seconds);
}

int64_t TrainingClock::schedule_step(int64_t step, int64_t total_steps) const {
  return schedule_step(step, total_steps, now_point());
}

int64_t TrainingClock::schedule_step(int64_t step, int64_t total_steps, TimePoint now) const {
  if (m_budget <= 0) return step;
  return budget_schedule_step(step, total_steps, m_budget_start_step, elapsed(now) - m_budget_start_seconds, m_budget);
}

} // namespace redraw
