#pragma once
/// The training thread and the snapshot the GUI reads (docs/contributing.md, 8).
/// - The training thread owns the run (LiveRun: the Trainer and its Backend): it builds it, steps
///   it, renders previews, saves and exports. The GUI thread only posts commands and takes snapshots.
/// - Commands (ui/session/run_commands.h) are typed structs in one std::variant, queued by post() and run
///   in order on the training thread, each by its handler in ui/session/run_commands.cpp. A command that
///   fails (unreadable image, bad model file, out of memory) reports an error message and leaves
///   the current run as it was.
/// - Snapshot: the thread posts typed updates (new metrics rows, status, the newest preview) into
///   its SessionMailbox; the GUI takes them once per frame (SessionSnapshot::take_from). Neither
///   side holds a lock for longer than a few moves, so 30+ fps holds while the CPU trains.
/// - The session is a thread, a queue (RunCommandQueue) and a context (RunContext,
///   ui/session/run_context.h): the context owns the run and the rules it follows, when training pauses by
///   itself (RunLimits), when and how large previews come (PreviewPacing, ui/session/frame_pacing.h),
///   whether the run holds unsaved training (RunChanges, kept by the LiveRun), and which autosave
///   to skip (AutosaveRecord, ui/session/autosave.h).
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
#include "ui/session/run_command_queue.h"
#include "ui/session/run_commands.h"
#include "ui/session/run_context.h"
#include "ui/session/session_mailbox.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace redraw {

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

  /// Queues `command` (ui/session/run_commands.h); it runs after those posted before it, on the training
  /// thread. GUI thread (or any one thread at a time). A few take part of their effect at once:
  /// SetRunning{false} leaves a step in progress between its chunks (for a quit, before its
  /// autosave), SetPreviewLimit sets the limit a load in progress renders at, and RenderZoom
  /// cancels an older zoom still rendering (generation 0 only cancels: nothing is queued).
  /// Returns the command's ticket: from the first status (SessionStatus::commands_run) that
  /// reaches it, the status shows what the command did (a command not queued gets the last ticket).
  uint64_t post(RunCommand command);
  /// Waits until every command posted before this call has run (at most `timeout_s`); false on
  /// timeout. For the autosave on quit.
  bool flush(double timeout_s);
  /// Cancels a running export (any thread); it removes what it wrote.
  void cancel_export() { m_context.cancel_export(); }
  /// Asks for the timelapse frame at or before `step`, rendered at the training size. Requests
  /// coalesce: only the newest is served, so dragging a slider never queues work.
  void request_frame(int64_t step) { m_queue.request_frame(step); }
  /// Why the last autosave failed, or "" when it worked (or none ran). Any thread; after flush()
  /// it tells the outcome of an autosave posted before it.
  std::string autosave_error() const { return m_context.autosave().error(); }

  /// Where the training thread publishes; the GUI takes from it (SessionSnapshot::take_from).
  SessionMailbox& mailbox() { return m_context.mailbox(); }
  /// A snapshot of what was published since the last take (one-off reads: tests, closing run B).
  SessionSnapshot take();
  /// Device preview frames (a GPU backend with interop); null otherwise.
  std::shared_ptr<DeviceFrameRing> device_frames() const { return m_context.device_frames(); }
  /// Lets the training thread publish device frames (the GUI sets it when interop works).
  void enable_device_preview(bool on) { m_context.enable_device_preview(on); }

private:
  void thread_main();

  RunCommandQueue m_queue;
  RunContext m_context; ///< the training thread's (its "any thread" members aside)
  std::thread m_thread; // last: starts after every member above exists
};

} // namespace redraw
