#pragma once
/// A run's measured history: its metrics rows (metrics.csv) and, where the backend reports it
/// without waiting, the loss of every step (LossTrace). Both travel in checkpoints. A run whose
/// Gaussians grow (training.grow) also lists its relocations, which a checkpoint need not carry:
/// they follow from the config (growth_events_until).
/// - Rows are in increasing step order; a row measured again at the newest row's step (an exact
///   measurement after a sampled one) replaces it.
/// - A rollback or a branch drops what came after its step; a resume takes a checkpoint's.
/// - Threading: the trainer's thread; not locked. Other threads read copies.
#include "engine/growth.h"
#include "engine/model_files/loss_trace.h"
#include "engine/metrics.h"

#include <vector>

namespace redraw {

class MetricsHistory {
public:
  const std::vector<MetricsRow>& rows() const { return m_rows; }
  const LossTrace& losses() const { return m_losses; }
  /// A measured row: replaces the newest row when that is of the same step, else appended (the
  /// caller keeps step order).
  void record(const MetricsRow& row);
  /// The loss of the step that reached `count` completed steps (LossTrace::record).
  void record_loss(int64_t count, float loss) { m_losses.record(count, loss); }
  /// The Gaussians' relocations, oldest first (the loss plot's marks).
  const std::vector<GrowthEvent>& growth() const { return m_growth; }
  /// A relocation after the newest one.
  void record_growth(const GrowthEvent& e) { m_growth.push_back(e); }
  /// The relocations as given (a resume: those its config made up to the resumed step).
  void assign_growth(std::vector<GrowthEvent> events) { m_growth = std::move(events); }
  /// Drops the rows, losses and relocations of steps after `step`.
  void truncate_after(int64_t step);
  void clear();
  /// A resume at step `step`: the rows as they are, the losses up to `step`.
  void assign(std::vector<MetricsRow> rows, LossTrace losses, int64_t step);

private:
  std::vector<MetricsRow> m_rows;
  LossTrace m_losses;
  std::vector<GrowthEvent> m_growth;
};

} // namespace redraw
