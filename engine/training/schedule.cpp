#include "engine/training/schedule.h"

#include "engine/hd_common.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace redraw {

namespace {
double cosine(double lr_max, double lr_min, double t, double period) {
  return lr_min + (lr_max - lr_min) * 0.5 * (1.0 + std::cos(k_pi * t / period));
}
} // namespace

CosineSchedule::CosineSchedule(double lr_max, double lr_min, int64_t period)
    : m_max(lr_max), m_min(lr_min), m_period(std::max<int64_t>(1, period)) {}

double CosineSchedule::learning_rate(int64_t t) const {
  if (t >= m_period) return m_min;
  return cosine(m_max, m_min, double(t), double(m_period));
}

WarmRestartSchedule::WarmRestartSchedule(double lr_max, double lr_min, int64_t first_period, double period_mult)
    : m_max(lr_max), m_min(lr_min), m_mult(std::max(1.0, period_mult)), m_first(std::max<int64_t>(1, first_period)) {}

void WarmRestartSchedule::cycle_of(int64_t t, int64_t& start, int64_t& length) const {
  if (m_mult == 1.0) {
    start = (t / m_first) * m_first;
    length = m_first;
    return;
  }
  // Cycle k lasts round(T0 * mult^k) steps. The loop tests and advances by that same integer, so
  // each cycle begins exactly where the last one ended. Cycles grow geometrically: O(log t) turns.
  start = 0;
  length = m_first;
  double exact = double(m_first);
  while (t - start >= length) {
    start += length;
    exact *= m_mult;
    const int64_t room = std::numeric_limits<int64_t>::max() - start; // the last cycle never ends
    length = exact >= double(room) ? room : std::max<int64_t>(1, std::llround(exact));
  }
}

double WarmRestartSchedule::learning_rate(int64_t t) const {
  int64_t start = 0, length = 1;
  cycle_of(t, start, length);
  return cosine(m_max, m_min, double(t - start), double(length));
}

WarmupSchedule::WarmupSchedule(int64_t warmup_steps, std::unique_ptr<Schedule> nested)
    : m_warmup(std::max<int64_t>(0, warmup_steps)), m_nested(std::move(nested)) {}

double WarmupSchedule::learning_rate(int64_t t) const {
  if (t < m_warmup) return m_nested->learning_rate(0) * double(t + 1) / double(m_warmup);
  return m_nested->learning_rate(t - m_warmup);
}

std::unique_ptr<Schedule> make_schedule(const ScheduleSpec& s, int64_t total_steps) {
  const int64_t period = s.period > 0 ? s.period : std::max<int64_t>(1, total_steps - s.warmup_steps);
  std::unique_ptr<Schedule> base;
  switch (s.kind) {
  case ScheduleKind::Constant:
    base = std::make_unique<ConstantSchedule>(s.lr_max);
    break;
  case ScheduleKind::Cosine:
    base = std::make_unique<CosineSchedule>(s.lr_max, s.lr_min, period);
    break;
  case ScheduleKind::WarmRestarts:
    base = std::make_unique<WarmRestartSchedule>(s.lr_max, s.lr_min, period, s.period_mult);
    break;
  }
  if (s.warmup_steps > 0) return std::make_unique<WarmupSchedule>(s.warmup_steps, std::move(base));
  return base;
}

int64_t budget_schedule_step(int64_t step, int64_t total_steps, int64_t start_step, double seconds_used,
                             double budget_seconds) {
  if (!(budget_seconds > 0) || total_steps <= start_step) return step;
  const double fraction = std::clamp(seconds_used / budget_seconds, 0.0, 1.0);
  const int64_t by_time = start_step + int64_t(std::floor(double(total_steps - start_step) * fraction));
  return std::max(step, by_time);
}

} // namespace redraw
