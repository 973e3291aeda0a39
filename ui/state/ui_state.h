#pragma once
/// The desktop app's state, as plain structs (docs/contributing.md, 8).
/// - Owned by run_gui() and passed by reference to every draw_*() panel. Only the GUI thread
///   touches it; the training thread is reached through TrainingSession and UiIntent.
/// - Panels never call the session directly: they push UiIntents, which gui_app.cpp carries out
///   after the frame's widgets are drawn (so one place owns every side effect).
/// - No GL types here (docs/contributing.md, 7): textures are reached through PreviewTexture pointers (RunTextures).
#include "engine/backend_names.h"
#include "engine/metric_columns.h"
#include "engine/run_config.h"
#include "ui/session/autosave.h"
#include "ui/session/frame_pacing.h"
#include "ui/state/insight_state.h"
#include "ui/state/intents.h"
#include "ui/widgets/markdown_blocks.h"
#include "ui/state/perf_monitor.h"
#include "ui/widgets/preview_texture.h"
#include "ui/session/session_snapshot.h"
#include "ui/state/sweep_browser_state.h"
#include "ui/state/zoom_state.h"
#include "ui/widgets/ui_scale.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace redraw {

/// What the canvas shows: the three views side by side, or one of them full size.
enum class CanvasMode : int32_t { SideBySide = 0, GroundTruth, Reconstruction, Error };

/// The Save / Discard / Cancel prompt before an action drops an unsaved run (confirm_prompt.h).
struct ConfirmState {
  bool open_requested = false;            ///< open the popup next frame
  bool holding = false;                   ///< `pending` waits for an answer or for its save
  UiIntent pending{intent::Quit{}};       ///< the action asked for
  std::string save_path;                  ///< Save was answered: the action waits for this save
  std::string keep_folder;                ///< where Discard keeps a copy ("" = autosave off)
  bool dialog_confirmed = false;          ///< the Open dialog was opened after an answered prompt
};

/// The File > Open / Save / Export dialog: a path field and a simple folder browser.
struct FileDialogState {
  bool open_requested = false; ///< set to open the popup next frame
  FileDialogPurpose purpose = FileDialogPurpose::Open;
  std::string path;                 ///< the path field
  std::string folder;               ///< the folder being listed
  std::vector<std::string> entries; ///< names in `folder` (folders end with '/')
  std::string listed_folder;        ///< folder `entries` was read from (re-listed when it changes)
  std::string list_error;
  int32_t export_width = 0, export_height = 0, export_bit_depth = 8;
  bool export_lock_aspect = true;
  int32_t export_kind = 0;            ///< 0 reconstruction, 1 side-by-side comparison, 2 timelapse
  bool export_scrubbed_frame = false; ///< reconstruction of the timelapse frame on screen
  int32_t timelapse_fps = 12;
  bool timelapse_overlay = true;
};

/// The timelapse scrubber (timelapse_panel.cpp) and the frames it has seen.
struct TimelapseState {
  std::vector<MetricsRow> frames; ///< one per kept snapshot, oldest first
  std::vector<uint8_t> kinds; ///< per frame: its FrameKind (picture only, weights, or an exact branch)
  bool tree_open_requested = false; ///< open the run-tree popup next frame
  size_t bytes = 0, cap_bytes = 0;
  bool active = false; ///< the canvas shows frame `index` instead of the live picture
  int32_t index = 0;
  bool playing = false;
  float fps = 8.0f;
  double next_advance = 0;
  int64_t requested_step = -1;        ///< asked of the session, not yet arrived
  int64_t shown_step = -1;            ///< step of the frame in run A's tex.frame
  std::shared_ptr<const Image> frame; ///< host pixels of the shown frame
  /// Frames seen so far at the training size, by step (cleared when the run changes).
  std::vector<std::pair<int64_t, std::shared_ptr<const Image>>> cache;
  size_t cache_bytes = 0;
  int64_t wanted_step() const { return frames.empty() ? -1 : frames[size_t(index)].step; }
  /// What frame i keeps (FrameKind as a number: 0 picture only, 1 weights, 2 an exact branch).
  uint8_t kind(size_t i) const { return i < kinds.size() ? kinds[i] : uint8_t(2); }
  /// The shown frame is a picture only: no weights to branch from or to export at another size.
  bool shown_is_picture() const;
};

/// Zoom and pan of the canvas, shared by all three views so they stay aligned.
struct CanvasView {
  CanvasMode mode = CanvasMode::SideBySide;
  float zoom = 1.0f;                ///< screen pixels per image pixel
  float center_x = 0, center_y = 0; ///< image pixel under the centre of each pane
  bool fit_requested = true;
  bool error_auto = true;        ///< heat-map scale from the current error (auto_error_full_scale)
  float error_gain = 4.0f;       ///< manual heat-map scale: |error| * gain -> colour
  float error_full_scale = 0.0f; ///< |error| of the brightest colour in the map on screen (legend)
  bool error_dirty = false;      ///< recompute the heat map (the scale changed)
};

/// The config being edited in the controls panel; it reaches the trainer on Apply.
struct EditState {
  RunConfig config;
  std::string preset;       ///< preset the edit started from ("" = custom)
  RunConfig preset_config;  ///< that preset as loaded (to tell whether a new run still is it)
  int32_t train_side = 256; ///< longest side of the training image
  bool full_batch = true;
  int32_t batch_size = 16384;
  bool time_budget_on = false;  ///< the controls' time budget (edit_time_budget below)
  double time_budget_s = 300;
  int32_t selected_layer = 0;
  float footer_height = 0; ///< the controls' pinned summary, as measured last frame (pixels)
};

/// The time budget the edited controls ask for, in seconds: 0 when off, else time_budget_s
/// within 1..1e7.
inline double edit_time_budget(const EditState& edit) {
  return edit.time_budget_on ? std::clamp(edit.time_budget_s, 1.0, 1e7) : 0.0;
}

/// Help > About. The text comes from app/ (GuiOptions::about_version, about_licences).
struct AboutState {
  bool open_requested = false;         ///< set to open the popup next frame
  std::string version;                 ///< version, build, backends, data folder (several lines)
  std::vector<MarkdownBlock> licences; ///< assets/ATTRIBUTION.md, parsed once
};

/// Remembered between runs (settings.json in the XDG config folder).
struct Settings {
  std::string preset = "siren";
  std::string backend = k_auto_backend;   ///< a backend_choices() name (engine/backend_names.h)
  std::string precision = k_auto_precision; ///< GPU matrix products: a precision_choices() name (the CPU is always fp32)
  int32_t preview_every = 10;
  int32_t window_width = 1600, window_height = 1000;
  float controls_width = 380.0f; ///< at UI scale 1; the window narrows what is shown, never this
  float plots_height = 230.0f;   ///< at UI scale 1, like controls_width
  float ui_scale = 1.0f;         ///< times the monitor's content scale (ui/widgets/ui_scale.h)
  bool show_perf = false;        ///< the performance panel is open
  int32_t snapshot_cap_mb = 256;
  int32_t autosave_minutes = 3; ///< autosave of the running model (ui/session/autosave.h); 0 = off
  std::string last_folder;
  std::vector<std::string> recent; ///< newest first, at most 10
  bool show_spectrum = false;      ///< View > Spectrum window open (S)
  bool show_neuron_maps = false;   ///< View > Neuron maps window open (N)
  int32_t cpu_threads = 0;         ///< Machine > CPU threads as last set in the window; 0 = measured
  /// Machine > Image memory: the budget in MiB for decoding an image (`train --max-image-memory`).
  int32_t max_image_memory_mb = int32_t(k_default_image_memory_bytes >> 20);
  bool compare_split = false;      ///< compare runs: split view (else side by side)
  bool compare_errors = false;     ///< compare runs side by side: each run's error map under its picture
  /// compare runs: B and A keep the same step (the dearer run sets the pace), else they take equal
  /// turns on the device, so each has trained about as many seconds (engine's ComparePace)
  bool compare_same_step = false;
  bool plots_seconds = false;      ///< View > Curves against time: the plots' x axis is seconds, not steps
};

/// A message shown in the app as a toast (notices fade after seconds, errors later; hovering one
/// keeps it) and kept in the Messages window (View > Messages).
struct UiMessage {
  bool error = false;
  std::string text;
  double shown_at = 0; ///< glfwGetTime() when it appeared (hovering a toast moves it on)
};

/// A value typed into a field that had to be clamped: the red hint under the field and its text.
struct FieldHint {
  std::string field;     ///< label of the field (as the panel draws it)
  std::string text;      ///< e.g. "lr_max must be > 0 and <= 100; -1 was set to 1e-06"
  bool reported = false; ///< also put in the messages (once per edit, when the field is left)
  double at = 0;         ///< ui.now when the value was clamped (the hint fades some seconds later)
};

/// Where the main window's parts were drawn last frame, in pixels (layout tests, screenshot sidecar).
struct LayoutProbe {
  float controls_w = 0, plots_h = 0, canvas_w = 0, canvas_h = 0;
  float status_y = 0, status_h = 0; ///< the status bar's top and height
  float window_w = 0, window_h = 0;
};

/// Where the growth events were drawn last frame, in pixels (the growth-marks test's sidecar):
/// the loss plot's data area and the steps at its edges, the marks drawn in it, and the timelapse
/// slider's track (the grab centre's first and last positions) and the ticks drawn on it.
struct GrowthMarksProbe {
  float plot_area[4] = {0, 0, 0, 0}; ///< x0, y0, x1, y1 (the loss plot's data area; 0s: not drawn)
  double plot_lo = 0, plot_hi = 0;   ///< the steps at x0 and x1
  int32_t plot_marks = 0;            ///< marks drawn in it
  float slider_rect[4] = {0, 0, 0, 0}; ///< x0, y0, x1, y1 of the timelapse slider (0s: not drawn)
  float track[2] = {0, 0};             ///< the grab's centre at the first frame and at the last
  int32_t slider_ticks = 0;            ///< ticks drawn on it
};

/// Everything the GUI thread knows about the run, copied from the session each frame.
/// The textures a run draws with (owned by run_gui's RunTextureSet, ui/widgets/preview_texture.h; null
/// before they are made). Each run has its own: no two runs' pictures share one.
struct RunTextures {
  PreviewTexture* truth = nullptr; ///< the ground truth
  PreviewTexture* recon = nullptr; ///< the latest preview (fed from the device on a GPU with interop)
  PreviewTexture* error = nullptr; ///< the error map |prediction - truth|
  PreviewTexture* frame = nullptr; ///< the timelapse frame shown (scrubbed, or linked to run A's)
};

struct RunView {
  RunTextures tex; ///< what this run draws with; kept by forget()
  /// Forgets everything of the run shown (a new compared run) but the textures it draws with.
  void forget() {
    const RunTextures kept = tex;
    *this = RunView{};
    tex = kept;
  }
  /// A run shown beside run A while comparing (its slot is open); never run A itself.
  bool compared = false;
  std::string label; ///< its name in captions and legends while comparing: "A: siren", "B: fourier"
  /// Linked scrubbing, for a run beside A: while A's timelapse is scrubbed, this run shows its own
  /// frame at or before that step (in tex.frame).
  struct LinkedFrame {
    std::shared_ptr<const Image> image;
    int64_t step = -1;      ///< its step
    int64_t requested = -1; ///< the step last asked of the run's session
  } linked;
  float rect[4] = {0, 0, 0, 0}; ///< its picture on screen last frame while comparing (sidecar), framebuffer pixels
  SessionStatus status;
  std::vector<MetricsRow> history;
  std::shared_ptr<const Image> ground_truth;
  std::shared_ptr<const Image> reconstruction; ///< host copy of the latest preview (may lag on CUDA)
  /// The ground truth at the host preview's size, when the preview is smaller than the training
  /// size (previews fit the screen: run_command::SetPreviewLimit); see truth_for().
  std::shared_ptr<const Image> truth_shown;
  /// The ground truth at the size of `shown` (the training size, or the screen-sized preview's
  /// truth_shown), or null when neither matches (a timelapse frame's smaller picture).
  const Image* truth_for(const Image& shown) const {
    for (const Image* t : {ground_truth.get(), truth_shown.get()})
      if (t && t->width == shown.width && t->height == shown.height) return t;
    return nullptr;
  }
  int64_t preview_step = -1;
  int64_t shown_step = -1; ///< step of the picture in tex.recon
  uint64_t run_id = 0;
  uint64_t trainer_id = 0;
  /// Plot columns, appended as rows arrive: one per metric column (engine/metric_columns.h), in its
  /// order (the x axes are its step and seconds columns).
  std::array<std::vector<float>, k_metric_column_count> plot_columns;
  std::vector<uint8_t> plot_exact; ///< per row: 1 when its PSNR was measured over every pixel
  LossTrace loss_trace;            ///< every step's loss, where the backend keeps it (shaded under the rows)
  /// The run's growth events (training.grow, any family that grows): marks on the loss plot and
  /// ticks on the timelapse slider (run A's).
  std::vector<GrowthEvent> growth;
  int32_t frames_since_preview = 0;
  double last_steps_per_s = 0; ///< the rate while it last trained (shown when paused)
  /// The last Train or Pause asked for (a SetRunning posted) and its ticket (TrainingSession::post).
  struct RunningAsk {
    bool on = false;
    uint64_t ticket = 0;
  } running_ask;
  /// Whether the run trains as far as the GUI knows: what was last asked until a status shows its
  /// command run, then the status. Space toggles from it, so two presses quicker than the session
  /// answers train and pause, not train twice.
  bool running_as_asked() const { return status.commands_run < running_ask.ticket ? running_ask.on : status.running; }
};

/// Compare runs (engine/insight/compare_runs.h, ui/window/compare_runs.h): runs beside the main
/// run A, each made from A's config with one change. The sessions that train them live in run_gui
/// (RunSlots, opened by CompareSessions), what the GUI shows of each in UiState::runs (its label,
/// linked frame and place on screen included); this is the comparison's own state.
struct CompareState {
  bool dialog_requested = false; ///< open Training > Compare with... next frame
  bool close_requested = false;  ///< open the "which run goes on" popup next frame
  int32_t change_kind = 0;       ///< the dialog's choice (CompareChangeKind)
  int32_t preset_index = 0;      ///< into UiState::preset_names
  int32_t activation = 3;        ///< Activation (tanh)
  float omega_0 = 60.0f;
  float lr_max = 1e-3f;
  bool open = false;    ///< a run beside A exists, and the canvas, plots and status bar show them all
  bool split = false;   ///< two runs: one pane split by a draggable divider, else panes side by side
  float divider = 0.5f; ///< the divider, as a fraction of the pane's width
  bool dragging_divider = false;
};

/// How many runs the window holds and shows side by side: run A and the runs compared with it
/// (UiState::runs). Every list of runs (slots, views, textures, turns, legends) follows this.
constexpr size_t k_max_runs = 4;
/// Where run A (the run the user edits, opens and saves) is in UiState::runs: first; the runs
/// compared with it follow, each at its slot's place.
constexpr size_t k_run_a = 0;
/// A run's letter in captions, legends, messages and file names ("A", "B", ...).
inline const char* run_letter(size_t index) {
  static constexpr const char* k_letters[] = {"A", "B", "C", "D", "E", "F", "G", "H"};
  static_assert(k_max_runs <= std::size(k_letters), "a letter for every run");
  return index < std::size(k_letters) ? k_letters[index] : "?";
}

struct UiState {
  Settings settings;
  CompareState compare;
  EditState edit;
  CanvasView view;
  ZoomViewState zoom; ///< the sharp zoom (ui/panels/zoom_view.h)
  FileDialogState dialog;
  AboutState about;
  ConfirmState confirm;
  /// What the GUI shows of each run, one type for all: run A at k_run_a, the runs compared with it
  /// after it (shown while comparing; each forgotten when it closes). The sessions that train them live in
  /// run_gui (ui/window/run_slot.h); open_runs() pairs each open one with its view here.
  std::array<RunView, k_max_runs> runs;
  RunView& run_a() { return runs[k_run_a]; }
  const RunView& run_a() const { return runs[k_run_a]; }
  TimelapseState timelapse;
  std::vector<UiMessage> messages;    ///< toasts on screen, oldest first
  std::vector<UiMessage> message_log; ///< every message this session, oldest first (at most 500)
  bool message_log_open = false;
  bool help_open = false;       ///< Help > Help (F1)
  std::vector<FieldHint> hints; ///< fields whose last edit was clamped
  PerfState perf;
  UiScaleState scale;
  LayoutProbe layout;
  GrowthMarksProbe growth_probe;
  InsightState insight; ///< the Spectrum and Neuron maps windows
  SweepBrowserState sweep; ///< File > Open sweep (ui/panels/sweep_browser.h)
  std::vector<UiIntent> intents;
  std::vector<std::string> preset_names;
  std::string last_image; ///< the image asked for last (Apply & reset retries it when loading failed)
  std::vector<CrashedSession> crashed; ///< sessions that did not quit, offered for restore at launch
  /// `gui --max-image-memory` for this session (MiB; 0: Settings::max_image_memory_mb).
  double image_memory_override_mb = 0;
  /// A load refused for the image memory budget, offered again with a larger one for its file.
  std::optional<BudgetOffer> budget_offer;

  // Each run's textures are its RunView's tex (UiState::runs).
  PreviewTexture* zoom_texture = nullptr; ///< the sharp zoom's render (owned by run_gui; ui/panels/zoom_view.h)

  // Frame timing.
  FramePacing pacing; ///< set once at startup from GL_RENDERER (see frame_pacing.h for the rule)
  double now = 0;
  float fps = 0;
  bool scripted = false;         ///< --screenshot run: no hover tooltips over the picture
  /// A scripted run's pointer (the test script's `pointer FX FY`), as fractions of the window;
  /// negative: none, and no hovering.
  float script_pointer[2] = {-1, -1};
  bool script_mouse_down = false; ///< the script's left button (`mouse down`, `mouse up`), at the pointer
  std::string hover_text; ///< the picture's pixel tooltip drawn last frame ("" when none)
  double last_input = -1;        ///< glfwGetTime() of the last mouse, key or window event
  double frame_ms = 0;           ///< smoothed CPU time to build and draw one frame
  std::vector<int> keys_changed; ///< GLFW keys pressed or released since the last frame (see hold_quick_taps)

  // Canvas layout of the last frame, in framebuffer pixels (for the screenshot sidecar).
  float recon_rect[4] = {0, 0, 0, 0}; ///< x, y, w, h of the reconstruction pane's image
  /// The pane the live picture (or the error map made from it) is drawn in, framebuffer pixels:
  /// previews are rendered no larger (tell_sessions). 0 until a canvas showing it is laid out.
  int32_t preview_pane[2] = {0, 0};

  template <class T> void push(T&& what) { intents.push_back(UiIntent{Intent(std::forward<T>(what))}); }
  void notify(std::string text, bool is_error = false) {
    message_log.push_back(UiMessage{is_error, text, now});
    if (message_log.size() > 500) message_log.erase(message_log.begin());
    messages.push_back(UiMessage{is_error, std::move(text), now});
  }
};

} // namespace redraw
