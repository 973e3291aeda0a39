#pragma once
/// The metrics rows of a backend that measures inside a step (BackendFeature::StepMetrics, the
/// GPU): the row for step count k is measured by the step that starts from count k and arrives
/// with that step's loss (Backend::poll_loss), so the host never waits for the device and no
/// extra forward pass runs. At most two rows are pending: the due one (to be measured by the
/// next step) and the awaited one (measured by a step whose loss has not reached the host yet).
/// A timelapse frame rides with its row: its weights are a copy begun at its step
/// (Backend::begin_parameter_copy) and collected when the row arrives.
/// - Threading: the trainer's thread. Holds a reference to the backend, which must outlive it.
#include "engine/backend.h"
#include "engine/metrics.h"
#include "engine/frames/timelapse.h"

#include <optional>

namespace redraw {

/// A row to be measured by the step that starts from its step count.
struct PendingRow {
  int64_t count = -1;               ///< the row's step; -1: none
  bool metrics = false;             ///< a history row (otherwise a frame's metrics only)
  double seconds = 0;               ///< training time when the count was reached
  double lr = 0;                    ///< the learning rate of the step that reached it
  std::optional<Snapshot> snapshot; ///< the frame of `count`, its weights in the copy below
  int64_t copy_ticket = -1;         ///< the frame's weights on their way (-1: none, or arrived)
};

/// An awaited row that arrived: the row (loss, PSNR, lr, seconds), the loss report it came with,
/// and its frame.
struct ArrivedRow {
  MetricsRow row;
  LossSample sample;
  bool metrics = false;
  std::optional<Snapshot> snapshot;
};

class LaggedRows {
public:
  explicit LaggedRows(Backend& backend) : m_backend(backend) {}

  /// A row is awaited (its step ran; its loss has not been taken yet).
  bool awaiting() const { return m_awaited.count >= 0; }
  /// The due row belongs to step count `step` (the next step measures it).
  bool due_at(int64_t step) const { return m_due.count >= 0 && m_due.count == step; }
  /// The arguments of the step about to run from `step`: when the due row belongs to `step`, that
  /// step records its loss and error (record_loss, record_mse) and the row becomes the awaited one.
  StepArgs begin_step(int64_t step);
  /// Makes the row of step count `count` due (none may be due: the step that ran took it);
  /// returns it, to attach a frame.
  PendingRow& expect(int64_t count, bool metrics, double seconds, double lr);
  /// The awaited row once its loss (and its frame's copy) arrived; with `wait`, after waiting for
  /// the device. Nothing while either is on its way (never with `wait`). The PSNR is the one the
  /// step measured; a step that measured nothing (NaN) with a finite loss gets the backend's
  /// dataset_mse() now, exact.
  std::optional<ArrivedRow> finish_awaited(bool wait);
  /// The due row when it is due at `step`, its frame's copy collected (waiting), no longer due.
  std::optional<PendingRow> take_due(int64_t step);
  /// Forgets the due row (its copy dropped on the backend).
  void drop_due();
  /// Forgets both rows (their copies dropped).
  void drop();
  /// Moves an arrived parameter copy into r's frame; false while it is on its way (never with
  /// `wait`). True at once for a row without a copy.
  bool collect_frame(PendingRow& r, bool wait);

private:
  Backend& m_backend;
  PendingRow m_due;
  PendingRow m_awaited;
};

} // namespace redraw
