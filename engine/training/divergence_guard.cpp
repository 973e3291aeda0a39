#include "engine/training/divergence_guard.h"

#include "engine/errors.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace redraw {

DivergenceGuard::DivergenceGuard(const TrainingSpec& training)
    : m_good_every(std::max<int64_t>(1, training.good_state_every)), m_max_recoveries(training.max_recoveries),
      m_lr_factor(training.recovery_lr_factor) {}

void DivergenceGuard::reset() {
  m_nonfinite_seen = false;
  m_initial_psnr = std::numeric_limits<double>::quiet_NaN();
  m_lr_scale = 1;
  m_recoveries.clear();
  m_recoveries_taken = 0;
}

void DivergenceGuard::note_start(double psnr_db) {
  if (std::isnan(m_initial_psnr)) m_initial_psnr = psnr_db;
}

bool DivergenceGuard::worse_than_start(const MetricsRow& row, int64_t step) const {
  return step >= m_good_every && std::isfinite(m_initial_psnr) && row.psnr_db < m_initial_psnr - k_worse_than_start_db;
}

std::string DivergenceGuard::divergence_reason(const MetricsRow& row, int64_t step) const {
  if (m_nonfinite_seen || !std::isfinite(row.loss)) {
    if (std::isinf(row.loss)) return row.loss > 0 ? "the loss became inf" : "the loss became -inf";
    return "the loss became nan";
  }
  // psnr_db is +inf for an exact fit (MSE 0), which is no divergence; NaN means the prediction is not finite.
  if (std::isnan(row.psnr_db)) return "the prediction became nan";
  if (worse_than_start(row, step)) {
    char b[96];
    std::snprintf(b, sizeof b,
                  "the picture became worse than the untrained network's: PSNR %.2f dB, %.2f dB at the start",
                  row.psnr_db, m_initial_psnr);
    return b;
  }
  return {};
}

std::string DivergenceGuard::unsound_reason(std::span<const float> params, const OptimizerState& opt) const {
  const int64_t nonfinite = count_nonfinite(params) + count_nonfinite(opt.first) + count_nonfinite(opt.second);
  const int64_t bad = count_unsound(params, k_max_model_weight) + count_unsound(opt.first, k_max_optimizer_value) +
                      count_unsound(opt.second, k_max_optimizer_value);
  if (bad == 0 && !m_nonfinite_seen) return {};
  if (nonfinite > 0) return std::to_string(nonfinite) + " weights or optimizer values became non-finite";
  if (bad == 0) return "the loss became nan";
  char past[96];
  std::snprintf(past, sizeof past, " weights or optimizer values grew past what a model may hold (%g, %g)",
                double(k_max_model_weight), double(k_max_optimizer_value));
  return std::to_string(bad) + past;
}

std::string DivergenceGuard::check(Backend& backend) const {
  if (!m_nonfinite_seen && backend.parameters_sound(true)) return {};
  const std::vector<float> params = backend.parameters();
  const OptimizerState opt = backend.optimizer_state();
  return unsound_reason(params, opt);
}

bool DivergenceGuard::refresh(Backend& backend, int64_t step, int64_t optimizer_step, double loss) {
  // Into the kept state's own buffers; a state that is not sound leaves the good one as it was.
  if (!backend.copy_state_if_sound(m_good.params, m_good.optimizer)) return false;
  m_good.step = step;
  m_good.optimizer_step = optimizer_step;
  m_good.loss = loss;
  return true;
}

void DivergenceGuard::maybe_refresh(Backend& backend, int64_t step, int64_t optimizer_step, double loss) {
  if (step - m_good.step >= m_good_every) (void)refresh(backend, step, optimizer_step, loss);
}

void DivergenceGuard::record_recovery(const std::string& reason, int64_t found_at, double seconds) {
  const int32_t limit = m_max_recoveries;
  if (int32_t(m_recoveries.size()) >= limit)
    throw DivergedError("training diverged at step " + std::to_string(found_at) + " (" + reason + ")" +
                        (limit > 0 ? " after " + std::to_string(limit) + " recoveries with a lower learning rate"
                                   : std::string(" and recovery is off (training.max_recoveries 0)")) +
                        "; the weights are back at step " + std::to_string(m_good.step) +
                        ", the last good state. Try a lower learning rate");
  m_lr_scale *= m_lr_factor;
  RecoveryEvent e;
  e.step = found_at;
  e.rolled_back_to = m_good.step;
  e.lr_scale = m_lr_scale;
  e.seconds = seconds;
  e.attempt = int32_t(m_recoveries.size()) + 1;
  e.reason = reason;
  m_recoveries.push_back(std::move(e));
}

std::vector<RecoveryEvent> DivergenceGuard::take_new() {
  const size_t from = std::min(m_recoveries_taken, m_recoveries.size());
  std::vector<RecoveryEvent> out(m_recoveries.begin() + std::ptrdiff_t(from), m_recoveries.end());
  m_recoveries_taken = m_recoveries.size();
  return out;
}

void DivergenceGuard::branch_at(int64_t step, std::optional<double> lr_scale) {
  while (!m_recoveries.empty() && m_recoveries.back().step > step)
    m_recoveries.pop_back();
  m_recoveries_taken = std::min(m_recoveries_taken, m_recoveries.size());
  m_lr_scale = lr_scale ? *lr_scale : m_recoveries.empty() ? 1.0 : m_recoveries.back().lr_scale;
}

void DivergenceGuard::save_into(Checkpoint& c) const {
  c.lr_scale = m_lr_scale;
  c.initial_psnr_db = m_initial_psnr;
  c.recoveries = m_recoveries;
}

void DivergenceGuard::restore(const Checkpoint& c) {
  m_nonfinite_seen = false;
  m_lr_scale = c.lr_scale;
  m_initial_psnr = c.initial_psnr_db;
  m_recoveries = c.recoveries;
  m_recoveries_taken = m_recoveries.size(); // already reported by the run that wrote them
}

void DivergenceGuard::apply_injected_nan(Backend& backend, int64_t step) {
  if (step != m_inject_nan_at) return;
  m_inject_nan_at = -1;
  std::vector<float> p = backend.parameters();
  p[p.size() / 2] = std::numeric_limits<float>::quiet_NaN();
  backend.set_parameters(p);
}

} // namespace redraw
