#pragma once
/// One loaded run of a TrainingSession, used by the session's training thread only: the Trainer,
/// what it was opened from, and the bookkeeping behind what the session publishes about it.
/// - Steps go through its run loop (loop(), events()); rows measured since the last publish wait in
///   the run until news().
/// - preview() renders the current picture into the device frame ring and/or a host image;
///   post_frames() posts the timelapse's frame list when it changed; news() is this run's part of
///   each publish.
/// - write_model() and export_to() write it to files.
#include "engine/device_interop.h"
#include "engine/training/open_run.h"
#include "engine/training/run_tree.h"
#include "engine/export/timelapse_export.h"
#include "engine/training/run_loop.h"
#include "engine/training/trainer.h"
#include "ui/session/frame_pacing.h"
#include "ui/session/run_changes.h"
#include "ui/session/run_commands.h"
#include "ui/session/session_mailbox.h"

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace redraw {

using Clock = std::chrono::steady_clock;

/// Seconds from `t` to now.
inline double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

/// What the user reads when opening `source` failed with the exception being handled (call it in
/// a catch block); `kept`: a run is open and stays open.
std::string load_failure_text(const std::string& source, bool kept);

/// The exports a run writes (the commands as posted).
using RunExport = std::variant<run_command::ExportImage, run_command::ExportComparison, run_command::ExportTimelapse>;

/// This run's part of a publish: its status, the rows measured since the last one and the profile.
struct RunNews {
  SessionStatus status;
  std::vector<MetricsRow> rows;
  SessionProfile profile;
};

/// The run itself: every change to it goes through a verb here or through its run loop (loop():
/// the steps, with events() keeping the books), so what it holds (the Trainer, its run tree, its
/// unsaved-change count, the rows and previews owed to the GUI) stays consistent. Readers see the
/// Trainer read-only (trainer()).
class LiveRun {
public:
  /// Takes over an opened run; `source` is the image or model it was opened from, `model_path` the
  /// model ("" for an image: nothing unsaved yet either way). The run's frames are held to
  /// `cap_bytes` (after the model's own frames came back, so they are thinned to it too).
  LiveRun(OpenedRun opened, std::string source, std::string model_path, size_t cap_bytes);

  /// The Trainer, to read (steps, config, frames, history).
  const Trainer& trainer() const { return *m_trainer; }
  /// The backend has a device renderer (GPU previews through a frame ring).
  bool has_device() const { return m_device != nullptr; }

  // ---- training: the run loop (engine/training/run_loop.h) --------------------------------------
  /// The loop that steps this run: its limits, slices, pause (settle) and end (finish).
  RunLoop& loop() { return m_loop; }
  /// `outer` with this run's books added: each step counts as a change, its row waits for the
  /// next publish and its time goes into the profile; rows settled at a pause wait likewise;
  /// recoveries are posted to `box` as notices, with the history again (the rows after the good
  /// state were dropped). `outer`'s own callbacks run after these.
  LoopEvents events(SessionMailbox& box, LoopEvents outer = {});

  // ---- the run's lines ----------------------------------------------------------------------------
  /// The network re-initialised and the run tree cleared, the frames held to `cap_bytes`; the
  /// notices say what the cap dropped.
  std::vector<std::string> reset(size_t cap_bytes);
  /// A new schedule and step count mid-run.
  void set_schedule(const ScheduleSpec& schedule, int64_t total_steps);
  /// The frame memory cap; the notices say what it dropped.
  std::vector<std::string> set_cap(size_t cap_bytes);
  /// Makes run-tree line `line` current (RunTree::switch_to); false when there is no such line.
  bool switch_line(int32_t line, std::vector<std::string>& notices);
  /// "Resume training from here" at the frame at or before `step` (see RunTree::branch); the
  /// notices say what was kept and whether the optimizer state came back. `trains_on`: the branch
  /// has steps left to train.
  std::vector<std::string> branch(int64_t step, bool& trains_on);

  // ---- files ----------------------------------------------------------------------------------------
  /// Save: the run's own model file from now on (nothing unsaved); Copy: an autosave or a kept
  /// copy, its folder made first.
  enum class WriteKind { Save, Copy };
  /// Writes the model to `path`; the recoveries a diverged state needed first are posted to `box`.
  void write_model(SessionMailbox& box, const std::string& path, WriteKind kind);
  /// Runs `request` with busy and progress in `box` (`go_on` false cancels it), then a notice
  /// (done, cancelled) or an error (failed, or the comparison's original is not available;
  /// nothing was written).
  void export_to(SessionMailbox& box, const RunExport& request, const std::function<bool()>& go_on);

  // ---- what the GUI sees --------------------------------------------------------------------------------
  /// The current network at w x h.
  std::shared_ptr<Image> render(int32_t w, int32_t h) { return std::make_shared<Image>(m_trainer->render(w, h)); }
  /// A copy of the running network's parameters (one device read on a GPU).
  std::shared_ptr<const NetworkSnapshot> network();
  /// Posts the timelapse frame at or before `step`, rendered at the training size fit within
  /// max_w x max_h (fit_within), or the error that kept it from being drawn.
  void post_frame(SessionMailbox& box, int64_t step, int32_t max_w, int32_t max_h);
  /// Posts the network's picture of `window` at w x h (the zoomed canvas), rendered in small
  /// bands while current() holds: the current weights, or with frame_step >= 0 the weights of the
  /// timelapse frame of exactly that step. A newer request, weights that cannot be drawn, or a
  /// frame that is gone or a picture only post nothing (the enlarged picture stays).
  void post_window(SessionMailbox& box, const RenderWindow& window, int32_t w, int32_t h, uint64_t generation,
                   const std::function<bool()>& current, int64_t frame_step = -1);
  /// Posts the timelapse's frame list when it changed since the last post, or when `force`.
  void post_frames(SessionMailbox& box, bool force);
  /// A preview of the current step when `force`, or when `pacing` says one is due and none was
  /// made at this step: rendered at the training size fit within the pacing's limit into `ring`
  /// (when given) and as a host image when forced, asked for, or when the ring's frame failed;
  /// posted to `box`, its cost told to `pacing`. Returns false when the ring's frame failed (the
  /// error is posted; the caller stops using the ring).
  bool preview(SessionMailbox& box, DeviceFrameRing* ring, PreviewPacing& pacing, bool force);
  /// This run's part of a publish (the session adds its own fields to the status): what it trains,
  /// where it stands, its run-tree lines, whether it is unsaved, steps/s over the last ~2 s of
  /// training time while `running`; the rows and profile since the last call. The loss trace and
  /// the frame list (and the growth events) are posted to `box` as they changed.
  RunNews news(SessionMailbox& box, bool running);

private:
  /// The rows sent so far no longer hold (a reset, a rollback, a branch): nothing pending, the
  /// whole loss trace and a preview due whatever the step.
  void restart_rows();
  /// One notice per recovery in `found` and, when there are any, the history again.
  void post_recoveries(SessionMailbox& box, const std::vector<RecoveryEvent>& found);
  SessionStatus status(bool running);        ///< news()'s status
  void post_loss_trace(SessionMailbox& box); ///< the losses since the last post (all after restart_rows)
  void post_growth(SessionMailbox& box);     ///< the growth events, whole, when they changed (always after restart_rows)
  void export_image(const run_command::ExportImage& c, const std::function<bool(double)>& progress);
  void export_comparison(const run_command::ExportComparison& c, const std::function<bool(double)>& progress);
  void export_timelapse(const run_command::ExportTimelapse& c, const std::function<bool(double)>& progress);
  std::string export_what(const RunExport& request) const; ///< the export's name in the status bar

  std::unique_ptr<Trainer> m_trainer;
  RunLoop m_loop{*m_trainer};
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
  std::vector<GrowthEvent> m_posted_growth; ///< the growth events last posted
  bool m_growth_due = true;                 ///< post them at the next news() whatever they are
};

} // namespace redraw
