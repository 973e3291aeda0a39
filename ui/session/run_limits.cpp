#include "ui/session/run_limits.h"

#include <algorithm>
#include <cstdio>

namespace redraw {

int64_t RunLimits::pause_step(int64_t total_steps) const {
  return m_stop_at >= 0 ? std::min(m_stop_at, total_steps) : total_steps;
}

std::string RunLimits::refusal(int64_t step, int64_t total_steps, double budget_left) const {
  if (step >= total_steps) return "training is at its last step; raise Steps to continue";
  if (budget_spent(budget_left)) return "the time budget is spent; raise it or turn it off to train further";
  return {};
}

void RunLimits::going_on_at(int64_t step) {
  if (m_stop_at >= 0 && step >= m_stop_at) m_stop_at = -1;
}

std::string RunLimits::budget_notice(int64_t step) const {
  char what[160];
  std::snprintf(what, sizeof what, "time budget of %g s spent at step %lld; training paused", m_time_budget,
                static_cast<long long>(step));
  return what;
}

std::string RunLimits::pause_notice(int64_t step, int64_t total_steps) {
  return step == total_steps ? "training finished at step " + std::to_string(step) : std::string();
}

} // namespace redraw
