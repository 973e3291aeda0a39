#pragma once
/// What a TrainingSession's training thread owns and the command handler (ui/session/run_commands.cpp)
/// works through: the run (LiveRun), its limits (RunLimits), preview pacing (PreviewPacing), the
/// autosave record (AutosaveRecord) and the mailbox the GUI takes from (SessionMailbox), with the
/// verbs that keep them in step (a pause settles the rows and makes a preview, a new line
/// republishes the history, ...).
/// - Training thread only, except where a member says "any thread": the few effects a command
///   takes at once on the posting thread (take_at_once), the export cancel, the device frames.
/// - The session (ui/session/training_session.h) is the thread and the queue around one of these.
#include "engine/backend.h"
#include "engine/device_interop.h"
#include "engine/insight/compare_runs.h"
#include "engine/training/run_tree.h"
#include "ui/session/autosave.h"
#include "ui/session/frame_pacing.h"
#include "ui/session/run_commands.h"
#include "ui/session/run_limits.h"
#include "ui/session/session_mailbox.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

namespace redraw {

class LiveRun;
struct LoadRequest;

class RunContext {
public:
  /// See TrainingSession's constructor for the arguments.
  RunContext(BackendFactory make_backend, std::shared_ptr<DeviceInterop> interop, std::shared_ptr<SliceTurns> turns,
             int32_t turn_slot);
  ~RunContext(); ///< the other run (compare) no longer keeps pace with this one
  RunContext(const RunContext&) = delete;
  RunContext& operator=(const RunContext&) = delete;

  // ---- the parts ------------------------------------------------------------------------------------
  /// The run, or null before one opened.
  LiveRun* run() { return m_run.get(); }
  bool running() const { return m_running; }
  RunLimits& limits() { return m_limits; }
  PreviewPacing& pacing() { return m_pacing; }
  AutosaveRecord& autosave() { return m_autosave; }
  const AutosaveRecord& autosave() const { return m_autosave; }
  SessionMailbox& mailbox() { return m_mailbox; }
  /// Counts every run opened (Load): an autosave is due again for a new trainer.
  uint64_t trainer_id() const { return m_trainer_id; }
  /// The frame memory cap every run of this session gets (SetSnapshotCap; the Trainer's default
  /// until set).
  size_t snapshot_cap() const { return m_snapshot_cap > 0 ? m_snapshot_cap : k_default_snapshot_cap_bytes; }
  void set_snapshot_cap(size_t bytes) { m_snapshot_cap = bytes; }
  /// The newest ticket handled (RunCommandQueue::handed()); every status says it from now on.
  void set_commands_run(uint64_t ticket) { m_commands_run = ticket; }

  // ---- any thread -------------------------------------------------------------------------------
  /// The part of `command` that takes effect at once, on the posting thread (a command whose
  /// traits say `immediate`, ui/session/run_commands.h); false when nothing is left to queue.
  bool take_at_once(const RunCommand& command);
  void cancel_export() { m_cancel = true; }
  /// Device preview frames (a GPU backend with interop); null otherwise.
  std::shared_ptr<DeviceFrameRing> device_frames() const;
  void enable_device_preview(bool on);

  // ---- the training thread's verbs --------------------------------------------------------------------
  void error(const std::string& what) { m_mailbox.error(what); }
  void notice(const std::string& what) { m_mailbox.notice(what); }
  void notices(const std::vector<std::string>& all) {
    for (const auto& n : all)
      notice(n);
  }
  /// Opens what `request` names (open_run); the "using the CPU backend" notice is said once per
  /// session. Throws what open_run throws.
  std::unique_ptr<LiveRun> open(const LoadRequest& request);
  /// `run` replaces the current run, paused: its history, preview and frames are published.
  void adopt(std::unique_ptr<LiveRun> run);
  /// Train (when the run's limits allow it: otherwise their notice is said) or pause.
  void set_running(bool on);
  /// Training stops where it is (the caller settled the rows and paused the clock).
  void stop() { m_running = false; }
  /// Training goes on from the run's current step (a branch with steps left).
  void train_on();
  /// One step while paused (StepOnce), then paused again.
  void step_once();
  /// Training stops: the rows still measuring are settled, the clock paused, a preview made.
  void pause();
  /// Moves the rows a GPU run measures a step late into the snapshot (pause, end, a branch).
  void settle_metrics();
  /// After a reset, a branch or a line switch: the run changed; its history replaces the
  /// published one, with a new run id, and its preview and frames are posted.
  void show_new_line();
  /// Gives the run the limits' time budget, counting from now.
  void apply_time_budget();
  /// Posts the trainer's new recoveries from divergence and the rolled-back history.
  void report_recoveries();
  /// Writes the model (save, autosave, kept copy); recoveries it needed are reported.
  void write_model(const std::string& path, bool make_folder);
  /// Runs an export with busy/progress/cancel reporting (LiveRun::run_export); it stops when
  /// cancel_export() is called or `quitting` says so.
  void run_export(const std::string& what, const std::string& path,
                  const std::function<void(const std::function<bool(double)>&)>& work,
                  const std::function<bool()>& quitting);
  /// The newest RenderZoom posted is `generation`.
  bool zoom_current(uint64_t generation) const { return m_zoom_generation == generation; }

  // ---- the thread's loop --------------------------------------------------------------------------------
  /// A preview of the current step (unless one was made, when not `force`), at the pacing's size.
  void make_preview(bool force);
  /// Serves the timelapse frame at or before `step` (< 0: none asked for).
  void serve_frame(int64_t step);
  /// Trains for one slice (~30 ms, or until `commands_waiting`), pausing at the limits.
  void train_slice(const std::function<bool()>& commands_waiting);
  /// Publishes the status, the new rows, the frame list, the loss trace and the profile.
  void publish_status();
  /// Publishes the status alone: a run or pause the commands just made reaches the GUI before the
  /// next slice, which may first wait for another session's turn (compare: B's slice), so Space
  /// pressed again toggles from what the run now does, not from a status a slice old.
  void publish_command_effects();

private:
  SessionStatus current_status(); ///< the run's status now (empty without a run)
  /// A GPU run's device frame ring, made once when device previews are on.
  void ensure_frame_ring();

  SessionMailbox m_mailbox;
  // Shared with the GUI thread, under m_mutex.
  mutable std::mutex m_mutex;
  std::shared_ptr<DeviceFrameRing> m_frames;
  bool m_device_preview_enabled = false;
  std::atomic<bool> m_cancel{false};
  std::atomic<uint64_t> m_zoom_generation{0}; ///< the newest RenderZoom posted
  /// The trainer's stop flag (Trainer::set_stop_flag): set from any thread by a pause or a quit,
  /// so a long full-batch step is left between its chunks instead of holding them up; cleared on
  /// the training thread when training or a single step is asked for again.
  std::atomic<bool> m_stop_step{false};

  // Set once before the thread starts.
  BackendFactory m_make_backend;
  std::shared_ptr<DeviceInterop> m_interop;
  std::shared_ptr<SliceTurns> m_turns;
  int32_t m_turn_slot = 0;

  // Training thread only (except where their types say otherwise).
  std::unique_ptr<LiveRun> m_run;
  bool m_running = false;
  RunLimits m_limits;        ///< stop-at step and time budget, for every run of the session
  PreviewPacing m_pacing;    ///< preview cadence and size (its limit is set from the GUI thread)
  AutosaveRecord m_autosave; ///< the last autosave (its error is read from the GUI thread)
  uint64_t m_run_id = 0;
  uint64_t m_trainer_id = 0;
  bool m_backend_notice_shown = false; ///< "using the CPU backend" is said once per session
  size_t m_snapshot_cap = 0;           ///< SetSnapshotCap's bytes; 0 = the Trainer's default
  uint64_t m_commands_run = 0;         ///< set_commands_run's ticket
};

/// Runs one command on the training thread (ui/session/run_commands.cpp); what it throws is reported.
/// `quitting`: the session is closing (an export stops).
void handle_run_command(RunContext& context, const RunCommand& command, const std::function<bool()>& quitting);

} // namespace redraw
