#pragma once
/// The training thread and the snapshot the GUI reads (docs/contributing.md, 8).
/// - The training thread owns the Trainer and its Backend: it builds them, steps them, renders
///   previews, saves and exports. The GUI thread only posts commands and takes snapshots.
/// - Commands run in order on the training thread. A command that fails (unreadable image, bad
///   model file, out of memory) reports an error message and leaves the current run as it was.
/// - Snapshot: the thread posts typed updates (new metrics rows, status, the newest preview) into
///   its SessionMailbox; the GUI takes them once per frame (SessionSnapshot::take_from). Neither
///   side holds a lock for longer than a few moves, so 30+ fps holds while the CPU trains.
/// - Previews: every `preview_every` steps (and at most ~30 per second, or as set_min_preview_interval
///   says, and no more than k_preview_share of the time by their own cost: preview_cost_gap; plus
///   on pause and at the end) the network is rendered at the size of the pane that shows it. On a GPU
///   backend (one with a DeviceRenderer) the frame goes into a DeviceFrameRing for the GUI's GL
///   interop; a host copy follows only when asked for.
/// - Backends come from the BackendFactory and the device frames from the DeviceInterop that
///   app/ hands over, so ui/ never includes app/ or cuda/.
#include "engine/backend.h"
#include "engine/model_files/checkpoint.h"
#include "engine/insight/compare_runs.h"
#include "engine/device_interop.h"
#include "engine/images/image.h"
#include "engine/metrics.h"
#include "engine/insight/neuron_maps.h"
#include "engine/export/renderer.h"
#include "engine/run_config.h"
#include "engine/training/run_tree.h"
#include "engine/export/timelapse_export.h"
#include "ui/frame_pacing.h"
#include "ui/load_request.h"
#include "ui/session_mailbox.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace redraw {


struct LiveRun;

class TrainingSession {
public:
  /// `make_backend` builds every run's backend (app/ passes its registry); `interop` is the GPU
  /// module's preview path, or null (then previews go through host memory).
  /// `turns`, when given, is shared by every session training on the same device (compare runs):
  /// each training slice waits for its turn, so the runs alternate.
  explicit TrainingSession(BackendFactory make_backend, std::shared_ptr<DeviceInterop> interop = nullptr,
                           std::shared_ptr<SliceTurns> turns = nullptr);
  ~TrainingSession(); ///< stops and joins the thread
  TrainingSession(const TrainingSession&) = delete;
  TrainingSession& operator=(const TrainingSession&) = delete;

  // ---- commands (GUI thread; they run in order on the training thread) ---------------------
  void load(LoadRequest req);
  void set_running(bool run);
  void step_once();
  void reset();
  /// Applies a schedule and step count mid-run (Trainer::set_schedule / set_total_steps).
  void set_schedule(const ScheduleSpec& spec, int64_t total_steps);
  void set_preview_every(int32_t n);
  /// Previews are rendered no larger than max_w x max_h (the pane that shows them, in the
  /// screen's pixels: a preview is only shown, so a full-resolution run does not render
  /// megapixels nobody sees); 0: no limit. Takes effect at once, even while a load runs.
  void set_preview_limit(int32_t max_w, int32_t max_h);
  /// Previews while training come at least this many seconds apart (default 1/30; the GUI passes
  /// its frame interval, 1/10 on software GL: a preview nobody can see costs the trainer a render).
  void set_min_preview_interval(double seconds);
  /// The share of the training thread's time previews may take while training (default
  /// k_preview_share; 1 or more: no limit from their cost).
  void set_preview_share(double share);
  /// Pause when this step is reached (the screenshot mode); -1 clears.
  void set_stop_at(int64_t step);
  /// A time budget in training seconds (0: none), as `redraw train --time-limit`: the schedule is
  /// annealed to it (Trainer::set_time_budget) and training pauses when it is spent. Counts from
  /// now for the current run, and from the start of each run opened, reset, branched or switched
  /// to afterwards.
  void set_time_budget(double seconds);
  void save_model(const std::string& path);
  /// Saves the running model to `path` quietly (no notice on success; an error is reported once
  /// until a save works again). Skipped when nothing changed since the last autosave there.
  void autosave(const std::string& path);
  /// Why the last autosave failed, or "" when it worked (or none ran). Any thread; after flush()
  /// it tells the outcome of an autosave posted before it.
  std::string autosave_error() const;
  /// Stops training at once: a step in progress is left between its chunks (the run stays at its
  /// last finished step) and training pauses. Any thread; for a quit, before its autosave.
  void stop_training_now();
  /// Writes a copy of the running model to `path` without marking the run saved (the copy kept
  /// when the user discards a run); a notice names it, an error says when it failed.
  void keep_copy(const std::string& path);
  /// Waits until every command posted before this call has run (at most `timeout_s`); false on
  /// timeout. For the autosave on quit.
  bool flush(double timeout_s);
  /// Exports the current network, or the timelapse frame at `snapshot_step` (>= 0), as a PNG.
  void export_image(const std::string& path, int32_t w, int32_t h, int bit_depth, int64_t snapshot_step = -1);
  /// The original upscaled bicubically beside the network's redraw (2w x h).
  void export_comparison(const std::string& path, int32_t w, int32_t h, int bit_depth);
  /// Renders the current network at w x h into SessionSnapshot::picture (the compare export); an
  /// error message when it fails.
  void render_picture(int32_t w, int32_t h);
  /// Renders `window` of the current network (or, with frame_step >= 0, of the timelapse frame of
  /// that step from its weights) at w x h (the sharp zoom) into the mailbox's `zoom` with
  /// `generation`. A newer request cancels one still rendering; render_window(…, 0) only cancels.
  /// Failures are silent: the enlarged preview stays.
  void render_window(const RenderWindow& window, int32_t w, int32_t h, uint64_t generation, int64_t frame_step = -1);
  /// Every timelapse frame as GIF, MP4 or PNG frames (by the destination); progress is set here.
  void export_timelapse(const std::string& path, TimelapseOptions opts);
  /// Cancels a running export (any thread); it removes what it wrote.
  void cancel_export() { m_cancel = true; }

  // ---- timelapse (GUI thread) ----------------------------------------------------------
  /// Asks for the frame at or before `step`, rendered at the training size. Requests coalesce:
  /// only the newest is served, so dragging a slider never queues work.
  void request_frame(int64_t step);
  /// "Resume training from here": the line the run was on is kept in the run tree and a new line
  /// continues from the frame at or before `step`; training goes on at once (unless the run is
  /// at its last step). A notice says whether the optimizer state came back with the frame.
  void branch_from(int64_t step);
  /// Makes run-tree line `id` (RunLine::id) the current one: its weights, curves and frames come
  /// back; the run pauses.
  void switch_line(int32_t id);
  /// Memory cap for the timelapse frames in bytes. The session keeps it: every trainer built
  /// afterwards (a new image, a model, Apply & reset) starts with this cap, not the default.
  void set_snapshot_cap(size_t bytes);
  /// Asks for a host copy of the current picture (for the error map on the CUDA path).
  void request_host_preview();
  /// Asks for a copy of the running network's parameters (the neuron maps; one device read on a
  /// GPU); it arrives as SessionSnapshot::network.
  void request_network();

  /// Where the training thread publishes; the GUI takes from it (SessionSnapshot::take_from).
  SessionMailbox& mailbox() { return m_mailbox; }
  /// A snapshot of what was published since the last take (one-off reads: tests, closing run B).
  SessionSnapshot take();
  /// Device preview frames (a GPU backend with interop); null otherwise.
  std::shared_ptr<DeviceFrameRing> device_frames() const;
  /// Lets the training thread publish device frames (the GUI sets it when interop works).
  void enable_device_preview(bool on);

private:
  using Command = std::function<void()>;
  void post(Command c);
  /// Posts a command on the run: skipped without a run (`no_run`, when given, is reported then);
  /// what it throws is reported as "<what>: <message>", and the run goes on.
  void post_to_run(std::string what, Command c, std::string no_run = {});
  void thread_main();
  void do_load(const LoadRequest& req);
  void train_slice();
  void make_preview(bool force);
  /// Moves the metrics rows a GPU run measures a step late into the snapshot (pause, end, one step).
  void settle_metrics();
  /// After a reset, a branch or a line switch (training thread): the run changed; its history
  /// replaces the published one, with a new run id, and its preview and frames are posted.
  void show_new_line();
  /// Gives the current trainer the session's time budget, counting from now.
  void apply_time_budget();
  /// Whether the current run's time budget is spent.
  bool time_budget_spent() const;
  void publish_status();
  /// The frame memory cap every trainer of this session gets.
  size_t snapshot_cap() const { return m_snapshot_cap > 0 ? m_snapshot_cap : k_default_snapshot_cap_bytes; }
  void report_error(const std::string& what);
  void report_notice(const std::string& what);
  void serve_frame_request();
  /// Reports the trainer's new recoveries from divergence and republishes the rolled-back history.
  void report_recoveries();
  /// Training stops: the rows still measuring are settled, the clock paused, a preview made.
  void pause_run();
  /// Runs an export with busy/progress/cancel reporting; `work` gets the progress callback.
  void run_export(const std::string& what, const std::string& path,
                  const std::function<void(const std::function<bool(double)>&)>& work);
  /// Writes the model (save, autosave, kept copy); recoveries it needed are reported.
  void write_model(const std::string& path, bool make_folder);

  SessionMailbox m_mailbox;
  // Shared with the GUI thread, under m_mutex.
  mutable std::mutex m_mutex;
  std::condition_variable m_cv;
  std::deque<Command> m_commands;
  bool m_quit = false;
  std::shared_ptr<DeviceFrameRing> m_frames;
  bool m_device_preview_enabled = false;
  int64_t m_requested_frame = -1;
  std::atomic<bool> m_cancel{false};
  std::atomic<uint64_t> m_zoom_generation{0}; ///< the newest render_window request

  // Set once before the thread starts.
  BackendFactory m_make_backend;
  std::shared_ptr<DeviceInterop> m_interop;
  std::shared_ptr<SliceTurns> m_turns;

  // Training thread only.
  std::unique_ptr<LiveRun> m_run;
  bool m_running = false;
  int32_t m_preview_every = 10;
  double m_min_preview_interval = 1.0 / 30.0;
  double m_preview_share = k_preview_share;
  double m_preview_cost_gap = 0; ///< the least gap after the last preview for its cost (preview_cost_gap)
  int64_t m_stop_at = -1;
  double m_time_budget = 0; ///< set_time_budget's seconds (0: none)
  uint64_t m_run_id = 0;
  uint64_t m_trainer_id = 0;
  bool m_host_preview_wanted = false;
  /// set_preview_limit's size, set at once (not queued): a load in progress renders its first
  /// preview at the size the screen asked for meanwhile.
  std::atomic<int32_t> m_preview_max_w{0}, m_preview_max_h{0};
  int32_t m_preview_made_w = -1, m_preview_made_h = -1; ///< the limit of the last preview (training thread)
  bool m_backend_notice_shown = false;              ///< "using the CPU backend" is said once per session
  size_t m_snapshot_cap = 0;                        ///< set_snapshot_cap's bytes; 0 = the Trainer's default
  uint64_t m_change = 0;            ///< bumped by anything that changes the run (steps, branch, reset...)
  uint64_t m_saved_change = 0;      ///< m_change when the run was loaded or last saved
  std::string m_model_path;         ///< SessionStatus::model_path
  uint64_t m_autosaved_trainer = 0; ///< trainer id and step of the last autosave (skip if unchanged)
  int64_t m_autosaved_step = -1;
  bool m_autosave_failed = false; ///< the last autosave failed (said once)
  std::string m_autosave_error;   ///< why the last autosave failed ("" when it worked); m_mutex
  /// The trainer's stop flag (Trainer::set_stop_flag): set from any thread by a pause or a quit,
  /// so a long full-batch step is left between its chunks instead of holding them up; cleared on
  /// the session thread when training or a single step is asked for again.
  std::atomic<bool> m_stop_step{false};

  std::thread m_thread; // last: starts after every member above exists
};

} // namespace redraw
