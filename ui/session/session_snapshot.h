#pragma once
/// What the GUI sees of a training session (docs/contributing.md, 14: one struct, one producer, one consumer).
/// - The training thread fills a SessionSnapshot through the SessionMailbox (session_mailbox.h);
///   the GUI takes it once per frame with take_from() and reads it.
/// - Latest values (run_id, status, the steps of the last preview and frame, the frame memory)
///   stay from one take to the next; everything else arrived since the previous take.
/// - Adding a field: declare it here, fill it in SessionMailbox, read it in the GUI.
#include "engine/backend.h"
#include "engine/growth.h"
#include "engine/images/image.h"
#include "engine/model_files/loss_trace.h"
#include "engine/metrics.h"
#include "engine/insight/neuron_maps.h"
#include "engine/run_config.h"
#include "engine/training/run_tree.h"
#include "ui/session/load_request.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace redraw {

/// Scalars the status bar and panels show.
struct SessionStatus {
  bool has_run = false; ///< a trainer exists
  bool running = false;
  bool busy = false; ///< loading, saving or exporting
  std::string busy_what;
  double busy_progress = 0; ///< 0..1 for exports
  uint64_t trainer_id = 0;  ///< changes when a new trainer is built (load, Apply & reset)
  std::string image_path;   ///< image the run trains on ("" when a model's picture stands in)
  std::string source_path;  ///< image or model the run was opened from
  std::string backend;      ///< "cpu" / "cuda"
  std::string device;
  int64_t step = 0, total_steps = 0;
  int64_t stop_at_step = -1; ///< pauses when reaching this step (-1: at total_steps)
  double elapsed_s = 0;
  double steps_per_s = 0;
  int64_t parameter_count = 0;
  RunConfig config; ///< the running config (the shape the trainer was built with)
  int32_t width = 0, height = 0;
  int32_t image_width = 0, image_height = 0; ///< the image file's own size (0: unknown, e.g. a model alone)
  /// Training, a branch, a reset or a schedule change since the run was loaded or last saved to a
  /// model file (an untrained run at step 0 with no branches has nothing to lose).
  bool unsaved = false;
  std::string model_path;     ///< the .redraw this run was loaded from or last saved to ("" = none)
  std::vector<RunLine> lines; ///< the run tree (one line until "Resume training from here")
  /// The newest ticket (TrainingSession::post) the session had run when it made this status: a
  /// status with commands_run >= t shows what the command of ticket t did.
  uint64_t commands_run = 0;
};

/// The training thread's time between two publishes (the performance panel, ui/state/perf_monitor.h).
struct SessionProfile {
  double wall_s = 0;    ///< training-thread wall time this sample covers
  int64_t steps = 0;    ///< Trainer::step() calls in it
  double step_s = 0;    ///< wall time inside Trainer::step() (metrics and snapshots included)
  double preview_s = 0; ///< rendering previews
  StepProfile backend;  ///< the backend's own split (zero counts when it has none)
};

class SessionMailbox;

/// What the training thread published since the GUI's last take.
struct SessionSnapshot {
  // ---- latest values, kept from one take to the next -------------------------------------
  uint64_t run_id = 0; ///< changes when a new run or reset starts
  SessionStatus status;
  int64_t preview_step = -1;
  int64_t frame_step = -1;
  size_t snapshot_bytes = 0, snapshot_cap_bytes = 0;

  // ---- arrived since the last take ---------------------------------------------------------
  bool history_replaced = false; ///< `rows` is the whole history, not an append
  std::vector<MetricsRow> rows;
  /// Per-step losses since the last take (appended to the GUI's copy), or the whole trace when
  /// `loss_replaced` (a new line, a recovery).
  LossTrace loss;
  bool loss_replaced = false;
  /// The run's growth events (training.grow: its relocations, oldest first), the whole list, when
  /// `growth_changed` (a new one, or a new run, line, reset or recovery).
  std::vector<GrowthEvent> growth;
  bool growth_changed = false;
  std::shared_ptr<const Image> ground_truth; ///< set when a new run starts
  std::shared_ptr<const Image> preview;      ///< host preview, when a new one is ready
  bool device_preview = false;               ///< a new frame waits in the DeviceFrameRing
  bool snapshots_changed = false;            ///< `snapshots` is the new list of frames
  std::vector<MetricsRow> snapshots;         ///< one row per kept frame, oldest first
  std::vector<uint8_t> snapshot_kinds;       ///< per frame: its FrameKind
  std::shared_ptr<const Image> frame;        ///< a requested timelapse frame at the training size
  std::vector<std::string> errors, notices;
  /// A load refused for the image memory budget, offered again with a larger one (at most one).
  std::optional<BudgetOffer> budget_offer;
  std::vector<std::string> saved_models; ///< paths a save wrote successfully, oldest first
  std::vector<std::string> failed_saves; ///< paths a save could not write (the error is in `errors`)
  std::vector<SessionProfile> profiles;  ///< one per publish while a run exists, oldest first
  std::shared_ptr<const NetworkSnapshot> network; ///< parameters asked for with run_command::RequestNetwork
  std::shared_ptr<const Image> picture;           ///< run_command::RenderPicture's image, when it is ready
  std::shared_ptr<const Image> zoom;              ///< run_command::RenderZoom's image, when it is ready
  uint64_t zoom_generation = 0;                   ///< the request it answers
  int64_t zoom_step = -1;                         ///< the step of the weights it shows

  /// Replaces this with what `box` holds since the last take (GUI thread).
  void take_from(SessionMailbox& box);
  /// Whether the last take_from() brought something the screen must show at once: an image, a
  /// message, a save, a frame or frame list, a replaced history, or a change of run, trainer,
  /// running or busy since the take before. New rows alone are not news (the plots can wait).
  bool has_news() const { return m_news; }

private:
  struct Seen {
    uint64_t run_id = 0, trainer_id = 0;
    bool running = false, busy = false;
    bool operator==(const Seen&) const = default;
  };
  Seen m_seen;
  bool m_news = false;
};

} // namespace redraw
