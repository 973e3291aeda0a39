// Trainer::step() on a backend that measures the dataset's error inside a step
// (BackendFeature::StepMetrics, the GPU): the row for step count k is recorded by the step that
// starts from count k and arrives with that step's loss, so the host never waits for the device
// and no extra forward pass runs. Rows come out a step or two late; flush_metrics() settles them.
#include "engine/trainer.h"

#include <cmath>
#include <limits>

namespace redraw {

std::optional<MetricsRow> Trainer::step_lagged() {
  if (m_awaited.count < 0) measure_untrained(); // off the clock, as in step()
  tick_clock();
  std::optional<MetricsRow> out;
  // A row is due now but the previous one has not arrived (the device is more than a metrics
  // interval behind): wait for that one first, so at most one row is in flight. This may recover,
  // which moves m_step back: everything below reads the step afterwards.
  if (m_due.count == m_step && m_awaited.count >= 0) out = finish_awaited(true);

  measure_untrained();
  const StepPlan plan = next_step_plan();
  const bool metrics = plan.measure, snap = plan.snapshot;

  StepArgs args;
  if (m_due.count == m_step) { // this step measures the row due at its starting count
    args.record_loss = args.record_mse = true;
    m_awaited = std::move(m_due);
    m_due = {};
  }
  train_step_now(args);
  if (metrics || snap) {
    m_due.count = m_step;
    m_due.metrics = metrics;
    m_due.seconds = elapsed_seconds();
    m_due.lr = m_last_lr;
    if (snap) {
      // A frame's weights are those of its step: a copy started now, which neither the host nor
      // the next steps wait for; it joins the frame when the row's loss arrives (collect_frame).
      if (!frame_keeps_weights(m_step)) { // a large network's picture-only frame, drawn now
        m_due.snapshot = live_picture_frame();
      } else {
        Snapshot frame;
        mark_resumable(frame);
        m_due.copy_ticket = m_backend->begin_parameter_copy(resume_needs_optimizer() && !big_frames());
        m_due.snapshot = std::move(frame);
      }
    }
  }
  if (!out && m_awaited.count >= 0) out = finish_awaited(false);
  return out;
}

std::optional<MetricsRow> Trainer::finish_awaited(bool wait) {
  if (m_awaited.count < 0) return std::nullopt;
  if (!collect_frame(m_awaited, wait)) return std::nullopt; // its frame's weights are on their way
  if (wait) m_backend->synchronize();
  const std::optional<LossSample> sample = m_backend->poll_loss();
  if (!sample) {
    if (!wait) return std::nullopt; // still on its way
    m_awaited = {};                 // cannot happen after a synchronize; never block on it again
    return std::nullopt;
  }
  PendingRow pending = std::move(m_awaited);
  m_awaited = {};
  m_nonfinite_seen = m_nonfinite_seen || sample->nonfinite;
  m_last_loss = sample->loss;
  m_last_loss_step = sample->step + 1;
  MetricsRow row;
  row.step = pending.count;
  row.loss = sample->loss;
  double mse = sample->mse;
  row.psnr_exact = !sample->mse_sampled; // every pixel, or the run's metric sample
  // A backend that could not measure this step (it never should) still gets an honest row: the
  // current network's error, a step later than the row's count.
  if (std::isnan(mse) && std::isfinite(sample->loss) && !sample->nonfinite) {
    mse = m_backend->dataset_mse();
    row.psnr_exact = true;
  }
  row.psnr_db = psnr_from_mse(mse);
  row.lr = pending.lr;
  row.seconds = pending.seconds;
  return accept_row(row, pending.metrics, false, std::move(pending.snapshot));
}

std::vector<MetricsRow> Trainer::flush_metrics() {
  std::vector<MetricsRow> rows;
  if (auto r = finish_awaited(true)) rows.push_back(*r);
  if (m_due.count >= 0 && m_due.count == m_step) {
    PendingRow due = std::move(m_due);
    m_due = {};
    collect_frame(due, true);
    MetricsRow row = measure_row();
    row.seconds = due.seconds;
    if (auto r = accept_row(row, due.metrics, false, std::move(due.snapshot))) rows.push_back(*r);
  }
  m_backend->drop_parameter_copy(m_due.copy_ticket);
  m_due = {};
  return rows;
}

void Trainer::drop_pending_rows() {
  m_backend->drop_parameter_copy(m_due.copy_ticket);
  m_backend->drop_parameter_copy(m_awaited.copy_ticket);
  m_due = {};
  m_awaited = {};
}

bool Trainer::collect_frame(PendingRow& r, bool wait) {
  if (r.copy_ticket < 0) return true;
  ParameterCopy copy;
  if (!m_backend->finish_parameter_copy(r.copy_ticket, copy, wait)) return false;
  r.copy_ticket = -1;
  if (r.snapshot) {
    r.snapshot->params = std::move(copy.params);
    r.snapshot->optimizer = std::move(copy.optimizer);
  }
  return true;
}

} // namespace redraw
