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
#include "ui/session/live_run.h"
#include "ui/session/run_command_queue.h"
#include "ui/session/run_commands.h"
#include "ui/session/run_limits.h"
#include "ui/session/session_mailbox.h"

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

namespace redraw {

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
  /// A run is open and training: the thread takes slices instead of waiting for commands.
  bool trains() const { return m_running && m_run; }
  /// The stop-at step and the time budget every run of the session gets (a new budget reaches
  /// the current run through its loop: LiveRun::loop().set_time_budget).
  RunLimits& limits() { return m_limits; }
  PreviewPacing& pacing() { return m_pacing; }
  AutosaveRecord& autosave() { return m_autosave; }
  const AutosaveRecord& autosave() const { return m_autosave; }
  SessionMailbox& mailbox() { return m_mailbox; }
  /// Counts every run opened (Load): an autosave is due again for a new trainer.
  uint64_t trainer_id() const { return m_trainer_id; }

  // ---- any thread -------------------------------------------------------------------------------
  /// The part of `command` that takes effect at once, on the posting thread (a command whose
  /// traits say `immediate`, ui/session/run_commands.h); false when nothing is left to queue.
  bool take_at_once(const RunCommand& command);
  void cancel_export() { m_cancel = true; }
  /// Device preview frames (a GPU backend with interop); null otherwise.
  std::shared_ptr<DeviceFrameRing> device_frames() const;
  void enable_device_preview(bool on);

  // ---- the training thread's verbs, one per command that needs more than a part ----------------------
  /// Opens what `request` names (open_run) and makes it the run, paused, its history, preview and
  /// frames published; the "using the CPU backend" notice is said once per session. A failure
  /// keeps the current run and is reported (a budget offer for an image over the memory budget).
  void load(const LoadRequest& request);
  /// Train (when the run's limits allow it: otherwise their notice is said) or pause.
  void set_running(bool on);
  /// One step while paused (StepOnce), then paused again.
  void step_once();
  /// The network re-initialised (Reset): a new line, its history and preview published.
  void reset();
  /// "Resume training from here" at the frame at or before `step`: the rows still measuring are
  /// kept, the new line published, and training goes on when it has steps left.
  void branch(int64_t step);
  /// Makes run-tree line `line` current, paused (SwitchLine).
  void switch_line(int32_t line);
  /// The frame memory cap for every run of the session (SetSnapshotCap; the Trainer's default until
  /// set); the current run is thinned to it at once.
  void set_snapshot_cap(size_t bytes);
  /// Runs an export of the run with busy/progress/cancel reporting (LiveRun::export_to); it stops
  /// when cancel_export() is called or `quitting` says so.
  void export_run(const RunExport& request, const std::function<bool()>& quitting);
  /// The newest RenderZoom posted is `generation`.
  bool zoom_current(uint64_t generation) const { return m_zoom_generation == generation; }

  // ---- the thread's loop --------------------------------------------------------------------------------
  /// One turn of the training thread: `commands` (taken from `queue`) run in order and cleared, a
  /// run or pause they made published at once, the asked-for timelapse frame served, one slice
  /// trained (~30 ms, or until `queue` has work), then the status, rows, frames, loss trace and
  /// profile published.
  void turn(RunCommandQueue& queue, std::deque<RunCommand>& commands);

private:
  std::unique_ptr<LiveRun> open(const LoadRequest& request); ///< open_run's run, its notices said
  void adopt(std::unique_ptr<LiveRun> run); ///< replaces the current run, paused; publishes it
  /// Trains one slice of the run loop, pausing at the limits (end_run); `commands_waiting` ends it.
  void train_slice(const std::function<bool()>& commands_waiting);
  /// The loop ended at the run's limit (Limit, TimeUp): finish() it; a recovery there trains on,
  /// else the run pauses with the limit's notice.
  void end_run(LoopEnd end);
  /// Training stops: the rows still measuring are settled, the clock paused, a preview made.
  void pause();
  /// The rows still measuring kept and the clock paused before the line changes; false when that
  /// found a divergence with no recovery left (said, and the run stops).
  bool settle();
  /// The run's loop with its limits for this stretch: up to `end_step`, at most `count` steps (< 0: no count).
  RunLoop& loop_to(int64_t end_step, int64_t count);
  void stopped_by_divergence(); ///< the loop's DivergedError said; the run stops, a preview made
  /// After a reset, a branch or a line switch: its history replaces the published one, with a new
  /// run id, the budget counts from now, and its preview and frames are posted.
  void show_new_line();
  /// A preview of the current step (when due by the pacing, unless `force`), at the pacing's size.
  void make_preview(bool force);
  void serve_frame(int64_t step); ///< the timelapse frame at or before `step` (< 0: none asked for)
  void publish();                 ///< the status, the new rows, the frame list, the loss trace, the profile
  void say(const std::vector<std::string>& notices);
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
  uint64_t m_commands_run = 0;         ///< the newest ticket handled (RunCommandQueue::handed())
};

/// Runs one command on the training thread (ui/session/run_commands.cpp); what it throws is reported.
/// `quitting`: the session is closing (an export stops).
void handle_run_command(RunContext& context, const RunCommand& command, const std::function<bool()>& quitting);

} // namespace redraw
