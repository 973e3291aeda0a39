#pragma once
/// Learning-rate schedules. A schedule wraps the optimizer: it hands the optimizer a learning rate
/// each step, and Adam and SGD know nothing of it (tiny-cuda-nn's ExponentialDecay with `nested`).
/// - ConstantSchedule: lr.
/// - CosineSchedule: lr_min + (lr_max - lr_min) * 0.5 * (1 + cos(pi * t / T)), held at lr_min after T.
/// - WarmRestartSchedule (SGDR): cosine cycles of T0, T0*mult, T0*mult^2, ... each restarting at lr_max.
/// - WarmupSchedule: linear ramp over W steps to the nested schedule's first value, then nested(t - W).
#include "engine/run_config.h"

#include <memory>

namespace redraw {

class Schedule {
public:
  virtual ~Schedule() = default;
  /// Learning rate for 0-based step t (t >= 0).
  virtual double learning_rate(int64_t t) const = 0;
};

class ConstantSchedule final : public Schedule {
public:
  explicit ConstantSchedule(double lr) : m_lr(lr) {}
  double learning_rate(int64_t) const override { return m_lr; }

private:
  double m_lr;
};

class CosineSchedule final : public Schedule {
public:
  CosineSchedule(double lr_max, double lr_min, int64_t period);
  double learning_rate(int64_t t) const override;

private:
  double m_max, m_min;
  int64_t m_period;
};

class WarmRestartSchedule final : public Schedule {
public:
  WarmRestartSchedule(double lr_max, double lr_min, int64_t first_period, double period_mult);
  double learning_rate(int64_t t) const override;
  /// Step at which the cycle containing t began, and that cycle's length.
  void cycle_of(int64_t t, int64_t& start, int64_t& length) const;

private:
  double m_max, m_min, m_mult;
  int64_t m_first;
};

class WarmupSchedule final : public Schedule {
public:
  WarmupSchedule(int64_t warmup_steps, std::unique_ptr<Schedule> nested);
  double learning_rate(int64_t t) const override;

private:
  int64_t m_warmup;
  std::unique_ptr<Schedule> m_nested;
};

/// The step a schedule is read at when the run has a time budget: the schedule's position is the
/// larger of the step fraction and the time fraction, so a run stopped by its deadline still
/// anneals to lr_min by then instead of stopping mid-cycle. The budget began at step `start_step`
/// (0 for a fresh run, the resume's step otherwise) and `seconds_used` of its `budget_seconds`
/// have passed: the position is max(step, start_step + (total_steps - start_step) * time
/// fraction), the fraction clamped to [0, 1] and rounded down. A budget of 0 or less, or a run
/// already past total_steps, reads the schedule at `step`.
int64_t budget_schedule_step(int64_t step, int64_t total_steps, int64_t start_step, double seconds_used,
                             double budget_seconds);

/// Builds the schedule a config describes; period 0 means `total_steps` (minus warm-up).
std::unique_ptr<Schedule> make_schedule(const ScheduleSpec& spec, int64_t total_steps);

} // namespace redraw
