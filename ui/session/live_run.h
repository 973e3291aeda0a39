#pragma once
/// One loaded run of a TrainingSession, used by the session's training thread only: the Trainer,
/// what it was opened from, and the bookkeeping behind what the session publishes about it.
/// - Rows measured since the last publish wait in the run until take_rows().
/// - preview() renders the current picture into the device frame ring and/or a host image;
///   post_frames() posts the timelapse's frame list when it changed; status() and take_profile()
///   are this run's part of each publish.
/// - write_model() and the export_*() write it to files.
#include "engine/device_interop.h"
#include "engine/training/open_run.h"
#include "engine/training/run_tree.h"
#include "engine/export/timelapse_export.h"
#include "engine/training/trainer.h"
#include "ui/session/run_changes.h"
#include "ui/session/session_mailbox.h"

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace redraw {

using Clock = std::chrono::steady_clock;

/// Seconds from `t` to now.
inline double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

/// What the user reads when opening `source` failed with the exception being handled (call it in
/// a catch block); `kept`: a run is open and stays open.
std::string load_failure_text(const std::string& source, bool kept);

/// The run itself: every change to it goes through a verb here, so what it holds (the Trainer, its
/// run tree, its unsaved-change count, the rows and previews owed to the GUI) stays consistent.
/// Readers see the Trainer read-only (trainer()).
class LiveRun {
public:
  /// Takes over an opened run; `source` is the image or model it was opened from, `model_path` the
  /// model ("" for an image: nothing unsaved yet either way). The run's frames are held to
  /// `cap_bytes` (after the model's own frames came back, so they are thinned to it too).
  LiveRun(OpenedRun opened, std::string source, std::string model_path, size_t cap_bytes);

  /// The Trainer, to read (steps, config, frames, history).
  const Trainer& trainer() const { return *m_trainer; }
  /// The run was opened with an image whose original can be read again (exports need it).
  bool has_original() const { return !m_image.empty(); }
  /// The backend has a device renderer (GPU previews through a frame ring).
  bool has_device() const { return m_device != nullptr; }
  /// A preview of the current step was already made.
  bool previewed_current() const { return m_trainer->current_step() == m_last_preview_step; }
  /// Wall seconds since the last preview.
  double seconds_since_preview() const { return seconds_since(m_last_preview); }

  // ---- training --------------------------------------------------------------------------------
  /// One Trainer::step(), its row kept for the next publish and its time in the profile.
  void step();
  /// One step while paused (StepOnce): the run counts as changed; a long step is left when `stop`
  /// is set. Throws DivergedError.
  void step_once(const std::atomic<bool>* stop);
  /// The network re-initialised and the run tree cleared, the frames held to `cap_bytes`; the
  /// notices say what the cap dropped.
  std::vector<std::string> reset(size_t cap_bytes);
  /// A new schedule and step count mid-run.
  void set_schedule(const ScheduleSpec& schedule, int64_t total_steps);
  /// The frame memory cap; the notices say what it dropped.
  std::vector<std::string> set_cap(size_t cap_bytes);
  /// Makes run-tree line `line` current (RunTree::switch_to); false when there is no such line.
  bool switch_line(int32_t line, std::vector<std::string>& notices);
  void pause_clock() { m_trainer->pause_clock(); }
  void set_time_budget(double seconds) { m_trainer->set_time_budget(seconds); }
  /// The flag that leaves a step in progress between its chunks (Trainer::set_stop_flag).
  void set_stop_flag(const std::atomic<bool>* stop) { m_trainer->set_stop_flag(stop); }
  /// Something changed the run (RunChanges::changed).
  void changed() { m_changes.changed(); }
  /// The run was saved to `path` (RunChanges::saved).
  void saved(const std::string& path) { m_changes.saved(path); }
  /// The current network at w x h.
  std::shared_ptr<Image> render(int32_t w, int32_t h) { return std::make_shared<Image>(m_trainer->render(w, h)); }
  /// The rows measured since the last call.
  std::vector<MetricsRow> take_rows() {
    std::vector<MetricsRow> out;
    out.swap(m_pending_rows);
    return out;
  }

  /// "Resume training from here" at the frame at or before `step` (see RunTree::branch); the
  /// notices say what was kept and whether the optimizer state came back. `trains_on`: the branch
  /// has steps left to train.
  std::vector<std::string> branch(int64_t step, bool& trains_on);
  /// One notice per recovery from divergence since the last call; when there are any, the rows
  /// sent so far no longer hold (restart_rows).
  std::vector<std::string> recovery_notices();
  /// Takes the rows still measuring (Trainer::flush_metrics) into pending_rows and posts the
  /// recoveries; false when training diverged for good (the error is posted).
  bool settle_metrics(SessionMailbox& box);
  /// Posts one notice per recovery from divergence since the last call and, when there are any,
  /// the history again (the rows after the good state were dropped).
  void post_recoveries(SessionMailbox& box);
  /// Posts the timelapse frame at or before `step`, rendered at the training size fit within
  /// max_w x max_h (fit_within), or the error that kept it from being drawn.
  void post_frame(SessionMailbox& box, int64_t step, int32_t max_w, int32_t max_h);
  /// Posts the network's picture of `window` at w x h (the zoomed canvas), rendered in small
  /// bands while current() holds: the current weights, or with frame_step >= 0 the weights of the
  /// timelapse frame of exactly that step. A newer request, weights that cannot be drawn, or a
  /// frame that is gone or a picture only post nothing (the enlarged picture stays).
  void post_window(SessionMailbox& box, const RenderWindow& window, int32_t w, int32_t h, uint64_t generation,
                   const std::function<bool()>& current, int64_t frame_step = -1);

  /// The rows sent so far no longer hold (a reset, a rollback, a branch): nothing pending, and
  /// the next preview is due whatever the step.
  void restart_rows();
  /// This run's part of the status (the session adds its own fields): what it trains, where it
  /// stands, its run-tree lines, whether it is unsaved, and steps/s over the last ~2 s of training
  /// time while `running`.
  SessionStatus status(bool running);
  /// The profile since the last call, with the backend's own split; starts the next.
  SessionProfile take_profile();
  /// Renders the current picture at the training size into `ring` (when given) and as a host
  /// image when `host`, or when the ring's frame failed, fit within max_w x max_h (fit_within);
  /// posts what it made to `box`. Returns false when the ring's frame failed (the error is
  /// posted; the caller stops using the ring).
  bool preview(SessionMailbox& box, DeviceFrameRing* ring, bool host, int32_t max_w = 0, int32_t max_h = 0);
  /// Posts the per-step losses recorded since the last post (the whole trace after restart_rows()
  /// or resend_loss_trace()).
  void post_loss_trace(SessionMailbox& box);
  /// The next post_loss_trace() sends the whole trace (after a recovery rewrote its end).
  void resend_loss_trace() { m_posted_loss_end = -1; }
  /// Posts the timelapse's frame list when it changed since the last post, or when `force`.
  void post_frames(SessionMailbox& box, bool force);
  /// A copy of the running network's parameters (one device read on a GPU).
  std::shared_ptr<const NetworkSnapshot> network();
  /// Writes the model to `path`, its folder created first when `make_folder`.
  void write_model(const std::string& path, bool make_folder);

  // ---- exports: `what` names them for the status bar; `progress` may cancel (CancelledError) --
  /// Runs `work` as an export to `path`: busy and progress in `box` (`go_on` false cancels it),
  /// then a notice (done, cancelled) or an error (failed; nothing was written).
  void run_export(SessionMailbox& box, const std::string& what, const std::string& path,
                  const std::function<void(const std::function<bool(double)>&)>& work,
                  const std::function<bool()>& go_on);
  /// The network, or the timelapse frame at or before `snapshot_step` (>= 0), as a w x h PNG.
  void export_image(const std::string& path, int32_t w, int32_t h, int bit_depth, int64_t snapshot_step,
                    const std::function<bool(double)>& progress);
  std::string export_image_what(int32_t w, int32_t h, int64_t snapshot_step) const;
  /// The original upscaled bicubically beside the network's redraw (2w x h).
  void export_comparison(const std::string& path, int32_t w, int32_t h, int bit_depth,
                         const std::function<bool(double)>& progress);
  /// Every timelapse frame as GIF, MP4 or PNG frames (by the destination).
  void export_timelapse(const std::string& path, TimelapseOptions opts, const std::function<bool(double)>& progress);

private:
  std::unique_ptr<Trainer> m_trainer;
  std::string m_source;
  std::string m_image;                           ///< "" when the model's own picture stands in
  std::string m_source_image;                    ///< what a saved model records as its source (absolute when known)
  int32_t m_image_width = 0, m_image_height = 0; ///< the image file's own size (0: not read)
  DeviceRenderer* m_device = nullptr;            ///< the backend's device renderer, when it has one
  std::vector<MetricsRow> m_pending_rows;        ///< measured since the last publish
  Clock::time_point m_last_preview = Clock::now() - std::chrono::seconds(10);
  int64_t m_last_preview_step = -1;
  SessionProfile m_profile; ///< the training thread's time since the last publish (steps, previews)
  RunTree m_tree;           ///< the run's lines (branches)
  RunChanges m_changes;     ///< whether it holds training no model file has, and its model file
  std::deque<std::pair<double, int64_t>> m_rate_window; ///< (training seconds, step) for steps/s
  Clock::time_point m_profile_since = Clock::now();
  size_t m_posted_frames = 0, m_posted_thinned = 0, m_posted_bytes = 0; ///< the frame list last posted
  int64_t m_posted_newest = -1;
  int64_t m_posted_loss_end = -1; ///< the loss trace's end_count() last posted (-1: post it whole)
};

} // namespace redraw
