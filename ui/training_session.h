#pragma once
/// The training thread and the snapshot the GUI reads (docs/contributing.md, 8).
/// - The training thread owns the run (LiveRun: the Trainer and its Backend): it builds it, steps
///   it, renders previews, saves and exports. The GUI thread only posts commands and takes snapshots.
/// - Commands (ui/run_commands.h) are typed structs in one std::variant, queued by post() and run
///   in order on the training thread, each by its handler in ui/run_commands.cpp. A command that
///   fails (unreadable image, bad model file, out of memory) reports an error message and leaves
///   the current run as it was.
/// - Snapshot: the thread posts typed updates (new metrics rows, status, the newest preview) into
///   its SessionMailbox; the GUI takes them once per frame (SessionSnapshot::take_from). Neither
///   side holds a lock for longer than a few moves, so 30+ fps holds while the CPU trains.
/// - The rules the session follows live in their own parts: when training pauses by itself
///   (RunLimits), when and how large previews come (PreviewPacing, ui/frame_pacing.h), whether the
///   run holds unsaved training (RunChanges, kept by the LiveRun), and which autosave to skip
///   (AutosaveRecord, ui/autosave.h). The session is the thread and the queue that call them.
/// - Previews: on a GPU backend (one with a DeviceRenderer) the frame goes into a DeviceFrameRing
///   for the GUI's GL interop; a host copy follows only when asked for.
/// - Backends come from the BackendFactory and the device frames from the DeviceInterop that
///   app/ hands over, so ui/ never includes app/ or cuda/.
#include "engine/backend.h"
#include "engine/device_interop.h"
#include "engine/images/image.h"
#include "engine/insight/compare_runs.h"
#include "engine/insight/neuron_maps.h"
#include "engine/metrics.h"
#include "engine/model_files/checkpoint.h"
#include "engine/training/run_tree.h"
#include "ui/autosave.h"
#include "ui/frame_pacing.h"
#include "ui/run_command_queue.h"
#include "ui/run_commands.h"
#include "ui/run_limits.h"
#include "ui/session_mailbox.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace redraw {

struct LiveRun;

class TrainingSession {
public:
  /// `make_backend` builds every run's backend (app/ passes its registry); `interop` is the GPU
  /// module's preview path, or null (then previews go through host memory).
  /// `turns`, when given, is shared by every session training on the same device (compare runs):
  /// each training slice waits for its turn, so the runs alternate, and the session reports its
  /// step there under `turn_slot` (0: run A, 1: run B) for the pace between them.
  explicit TrainingSession(BackendFactory make_backend, std::shared_ptr<DeviceInterop> interop = nullptr,
                           std::shared_ptr<SliceTurns> turns = nullptr, int32_t turn_slot = 0);
  ~TrainingSession(); ///< stops and joins the thread
  TrainingSession(const TrainingSession&) = delete;
  TrainingSession& operator=(const TrainingSession&) = delete;

  /// Queues `command` (ui/run_commands.h); it runs after those posted before it, on the training
  /// thread. GUI thread (or any one thread at a time). A few take part of their effect at once:
  /// SetRunning{false} leaves a step in progress between its chunks (for a quit, before its
  /// autosave), SetPreviewLimit sets the limit a load in progress renders at, and RenderZoom
  /// cancels an older zoom still rendering (generation 0 only cancels: nothing is queued).
  void post(RunCommand command);
  /// Waits until every command posted before this call has run (at most `timeout_s`); false on
  /// timeout. For the autosave on quit.
  bool flush(double timeout_s);
  /// Cancels a running export (any thread); it removes what it wrote.
  void cancel_export() { m_cancel = true; }
  /// Asks for the timelapse frame at or before `step`, rendered at the training size. Requests
  /// coalesce: only the newest is served, so dragging a slider never queues work.
  void request_frame(int64_t step) { m_queue.request_frame(step); }
  /// Why the last autosave failed, or "" when it worked (or none ran). Any thread; after flush()
  /// it tells the outcome of an autosave posted before it.
  std::string autosave_error() const { return m_autosave.error(); }

  /// Where the training thread publishes; the GUI takes from it (SessionSnapshot::take_from).
  SessionMailbox& mailbox() { return m_mailbox; }
  /// A snapshot of what was published since the last take (one-off reads: tests, closing run B).
  SessionSnapshot take();
  /// Device preview frames (a GPU backend with interop); null otherwise.
  std::shared_ptr<DeviceFrameRing> device_frames() const;
  /// Lets the training thread publish device frames (the GUI sets it when interop works).
  void enable_device_preview(bool on);

private:
  struct Handler; ///< one handler per command (ui/run_commands.cpp)
  /// Runs one command on the training thread (ui/run_commands.cpp).
  void handle(const RunCommand& command);

  void thread_main();
  void train_slice();
  void make_preview(bool force);
  /// Moves the metrics rows a GPU run measures a step late into the snapshot (pause, end, one step).
  void settle_metrics();
  /// After a reset, a branch or a line switch (training thread): the run changed; its history
  /// replaces the published one, with a new run id, and its preview and frames are posted.
  void show_new_line();
  /// Gives the current trainer the session's time budget, counting from now.
  void apply_time_budget();
  void publish_status();
  /// The frame memory cap every trainer of this session gets.
  size_t snapshot_cap() const { return m_snapshot_cap > 0 ? m_snapshot_cap : k_default_snapshot_cap_bytes; }
  void report_error(const std::string& what) { m_mailbox.error(what); }
  void report_notice(const std::string& what) { m_mailbox.notice(what); }
  void serve_frame_request();
  /// Reports the trainer's new recoveries from divergence and republishes the rolled-back history.
  void report_recoveries();
  /// Training stops: the rows still measuring are settled, the clock paused, a preview made.
  void pause_run();
  /// A GPU run's device frame ring, made once when device previews are on (training thread).
  void ensure_frame_ring();

  SessionMailbox m_mailbox;
  RunCommandQueue m_queue;
  // Shared with the GUI thread, under m_mutex.
  mutable std::mutex m_mutex;
  std::shared_ptr<DeviceFrameRing> m_frames;
  bool m_device_preview_enabled = false;
  std::atomic<bool> m_cancel{false};
  std::atomic<uint64_t> m_zoom_generation{0}; ///< the newest RenderZoom posted
  /// The trainer's stop flag (Trainer::set_stop_flag): set from any thread by a pause or a quit,
  /// so a long full-batch step is left between its chunks instead of holding them up; cleared on
  /// the session thread when training or a single step is asked for again.
  std::atomic<bool> m_stop_step{false};

  // Set once before the thread starts.
  BackendFactory m_make_backend;
  std::shared_ptr<DeviceInterop> m_interop;
  std::shared_ptr<SliceTurns> m_turns;
  int32_t m_turn_slot = 0;

  // Training thread only (except where their types say otherwise).
  std::unique_ptr<LiveRun> m_run;
  bool m_running = false;
  RunLimits m_limits;         ///< stop-at step and time budget, for every run of the session
  PreviewPacing m_pacing;     ///< preview cadence and size (its limit is set from the GUI thread)
  AutosaveRecord m_autosave;  ///< the last autosave (its error is read from the GUI thread)
  uint64_t m_run_id = 0;
  uint64_t m_trainer_id = 0;
  bool m_backend_notice_shown = false; ///< "using the CPU backend" is said once per session
  size_t m_snapshot_cap = 0;           ///< SetSnapshotCap's bytes; 0 = the Trainer's default

  std::thread m_thread; // last: starts after every member above exists
};

} // namespace redraw
