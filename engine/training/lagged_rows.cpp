#include "engine/training/lagged_rows.h"

#include "engine/training/measured_row.h"

#include <cmath>

namespace redraw {

StepArgs LaggedRows::begin_step(int64_t step) {
  StepArgs args;
  if (!due_at(step)) return args;
  args.record_loss = args.record_mse = true;
  m_awaited = std::move(m_due);
  m_due = {};
  return args;
}

PendingRow& LaggedRows::expect(int64_t count, bool metrics, double seconds, double lr) {
  m_due.count = count;
  m_due.metrics = metrics;
  m_due.seconds = seconds;
  m_due.lr = lr;
  return m_due;
}

std::optional<ArrivedRow> LaggedRows::finish_awaited(bool wait) {
  if (m_awaited.count < 0) return std::nullopt;
  if (!collect_frame(m_awaited, wait)) return std::nullopt; // its frame's weights are on their way
  if (wait) m_backend.synchronize();
  const std::optional<LossSample> sample = m_backend.poll_loss();
  if (!sample) {
    if (wait) m_awaited = {}; // cannot happen after a synchronize; never block on it again
    return std::nullopt;      // (without waiting: still on its way)
  }
  PendingRow pending = std::move(m_awaited);
  m_awaited = {};
  ArrivedRow out;
  out.sample = *sample;
  out.metrics = pending.metrics;
  out.snapshot = std::move(pending.snapshot);
  double mse = sample->mse;
  bool exact = !sample->mse_sampled; // every pixel, or the run's metric sample
  // A backend that could not measure this step (it never should) still gets an honest row: the
  // current network's error, a step later than the row's count.
  if (std::isnan(mse) && std::isfinite(sample->loss) && !sample->nonfinite) {
    mse = m_backend.dataset_mse();
    exact = true;
  }
  MetricsRow& row = out.row;
  row = measured_row(pending.count, sample->loss, mse, exact);
  row.lr = pending.lr;
  row.seconds = pending.seconds;
  return out;
}

std::optional<PendingRow> LaggedRows::take_due(int64_t step) {
  if (!due_at(step)) return std::nullopt;
  PendingRow due = std::move(m_due);
  m_due = {};
  collect_frame(due, true);
  return due;
}

void LaggedRows::drop_due() {
  m_backend.drop_parameter_copy(m_due.copy_ticket);
  m_due = {};
}

void LaggedRows::drop() {
  m_backend.drop_parameter_copy(m_due.copy_ticket);
  m_backend.drop_parameter_copy(m_awaited.copy_ticket);
  m_due = {};
  m_awaited = {};
}

bool LaggedRows::collect_frame(PendingRow& r, bool wait) {
  if (r.copy_ticket < 0) return true;
  ParameterCopy copy;
  if (!m_backend.finish_parameter_copy(r.copy_ticket, copy, wait)) return false;
  r.copy_ticket = -1;
  if (r.snapshot) {
    r.snapshot->params = std::move(copy.params);
    r.snapshot->optimizer = std::move(copy.optimizer);
  }
  return true;
}

} // namespace redraw
