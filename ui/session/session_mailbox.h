#pragma once
/// The hand-over between a TrainingSession's thread and the GUI (docs/contributing.md, 14): it owns the mutex and
/// the back buffer, a SessionSnapshot. The training thread posts typed updates; the GUI takes
/// what arrived (SessionSnapshot::take_from). Every call holds the lock for a few moves only, so
/// neither side waits on the other's work.
#include "ui/session/session_snapshot.h"

#include <mutex>

namespace redraw {

class SessionMailbox {
public:
  // ---- training thread -----------------------------------------------------------------------
  /// A new run, a reset, a branch or a line switch: `history` replaces the rows, with the run id
  /// (together, so a reader sees both or neither) and, for a new image, its ground truth.
  void new_history(std::vector<MetricsRow> history, uint64_t run_id,
                   std::shared_ptr<const Image> ground_truth = nullptr);
  /// The history after a recovery from divergence (the rows after the good state were dropped).
  void replace_history(std::vector<MetricsRow> history);
  /// The status of this publish, the rows measured since the last one and, while a run exists,
  /// the training thread's time since then. The busy fields of the status stay as set by busy().
  void publish(SessionStatus status, uint64_t run_id, std::vector<MetricsRow> rows, const SessionProfile* profile);
  /// Per-step losses: `part` continues what was posted before, or is the whole trace (`whole`).
  void loss_trace(LossTrace part, bool whole);
  /// The run's growth events, the whole list (it changed since the last post).
  void growth(std::vector<GrowthEvent> events);
  void preview(std::shared_ptr<const Image> image, int64_t step);
  /// A frame for `step` was written into the DeviceFrameRing.
  void device_preview(int64_t step);
  /// The timelapse's frame list changed: one row and one FrameKind per frame.
  void frames(std::vector<MetricsRow> rows, std::vector<uint8_t> kinds, size_t bytes, size_t cap_bytes);
  void frame(std::shared_ptr<const Image> image, int64_t step);
  void network(std::shared_ptr<const NetworkSnapshot> net);
  void picture(std::shared_ptr<const Image> image);
  void zoom(std::shared_ptr<const Image> image, uint64_t generation, int64_t step);
  void error(std::string what);
  void notice(std::string what);
  /// A load refused for the image memory budget (replaces an offer not yet taken).
  void budget_offer(BudgetOffer offer);
  void saved(std::string path);
  void save_failed(std::string path);
  /// Loading, saving or exporting: `what` for the status bar, progress 0.
  void busy(std::string what);
  void progress(double fraction);
  void idle();

  // ---- GUI thread ------------------------------------------------------------------------------
  /// What arrived since the last take; the latest values stay for the next one.
  SessionSnapshot take();

private:
  /// Appends `text` to one of the back buffer's lists of messages or paths.
  void append(std::vector<std::string> SessionSnapshot::*list, std::string text);

  std::mutex m_mutex;
  SessionSnapshot m_back;
};

} // namespace redraw
