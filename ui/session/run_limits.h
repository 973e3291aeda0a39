#pragma once
/// When training pauses by itself before its last step: a step to stop at (the screenshot mode)
/// and a time budget in training seconds (`redraw train --time-limit`). The session keeps one for
/// all its runs; the Trainer keeps the budget's clock (Trainer::set_time_budget), and the calls
/// here take what it says (its step, total and clock().budget_left()). Training thread only.
#include <cstdint>
#include <string>

namespace redraw {

class RunLimits {
public:
  /// Pause at `step`; -1 clears.
  void set_stop_at(int64_t step) { m_stop_at = step; }
  int64_t stop_at() const { return m_stop_at; }
  /// Training seconds; 0 or less: none.
  void set_time_budget(double seconds) { m_time_budget = seconds > 0 ? seconds : 0; }
  double time_budget() const { return m_time_budget; }

  /// The step a run of `total_steps` trains up to: the stop-at step when it comes first.
  int64_t pause_step(int64_t total_steps) const;
  /// Whether the budget is spent, given the trainer's clock().budget_left() (<= 0 once spent).
  bool budget_spent(double budget_left) const { return m_time_budget > 0 && budget_left <= 0; }
  /// Why a run at `step` of `total_steps` cannot train further, as the notice to show; "" when it can.
  std::string refusal(int64_t step, int64_t total_steps, double budget_left) const;
  /// Training goes on from `step`: a stop-at step already reached no longer holds it (cleared).
  void going_on_at(int64_t step);
  /// The notice when the budget is spent at `step`.
  std::string budget_notice(int64_t step) const;
  /// The notice when a run paused at `step`, its pause step: the last one finishes it; a
  /// stop-at step pauses silently ("").
  static std::string pause_notice(int64_t step, int64_t total_steps);

private:
  int64_t m_stop_at = -1;
  double m_time_budget = 0;
};

} // namespace redraw
