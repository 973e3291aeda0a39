#pragma once
/// The Trainer drives one run: it owns a Backend, the run's config, the schedule, the step count
/// and the metrics history. The CLI and the GUI drive the same Trainer.
/// - Threading: a Trainer is used from one thread (the GUI's training thread); it is not locked.
///   Readers on other threads get copies through the GUI's double-buffered snapshot.
/// - Metrics: every training.metrics_every steps the step's loss is recorded and the PSNR is
///   estimated on the run's fixed pixel sample (engine/pixel_sample.h: metric_sample_pixels(batch)
///   pixels, at most 2^14, fewer for small minibatches; an image no larger than the sample is
///   measured whole, exactly), so a row costs the same at any image size; that is the only point
///   where the device is waited on. measure() and checkpoint()'s callers get the exact PSNR over
///   every pixel (MetricsRow::psnr_exact says which a row holds). On a backend that reports each
///   step's loss without waiting (the CPU), every step's loss is kept too (loss_trace()).
/// - Time budget: set_time_budget() reads the schedule at budget_schedule_step() (schedule.h), so
///   a run stopped by its deadline has annealed by then.
/// - Determinism: same seed, same config, same backend -> same parameters (bit-exact on the CPU),
///   and a checkpoint resumes exactly where it left off.
/// - Timelapse: after each step the SnapshotPolicy is asked whether to keep the weights; if so the
///   parameters are copied (one device read; on a StepMetrics backend a copy nothing waits for,
///   Backend::begin_parameter_copy, collected with the row's loss) with that step's metrics
///   (measured when it was not a metrics step, without adding a history row) into a SnapshotStore
///   under a byte cap. The untrained network is kept as step 0 at the first step(). Snapshots
///   travel in checkpoints.
/// - Divergence: every step's loss is checked on the backend (a flag the step sets, read with the
///   loss at the next metrics or snapshot step, so the step never waits for the device), and the
///   weights are checked before anything is saved (checkpoint()) or rendered (render()). On a
///   divergence the trainer goes back to its last good state (kept in memory every
///   training.good_state_every steps, at a metrics step whose loss and weights were finite),
///   multiplies the learning rate by training.recovery_lr_factor for the rest of the run, records a
///   RecoveryEvent and carries on. After training.max_recoveries recoveries the next divergence
///   throws DivergedError, with the trainer left on its last good state. So the trainer never hands
///   out non-finite weights. A finite run counts as diverged too once its picture is clearly worse
///   than the untrained network's (k_worse_than_start_db below it, from good_state_every steps on):
///   what a far too high learning rate does to Adam, saturating every output. A loss of exactly 0 (an exact fit) is no divergence: its PSNR is +inf.
#include "engine/backend.h"
#include "engine/checkpoint.h"
#include "engine/dataset.h"
#include "engine/loss_trace.h"
#include "engine/metrics.h"
#include "engine/renderer.h"
#include "engine/schedule.h"
#include "engine/step_plan.h"
#include "engine/timelapse.h"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

namespace redraw {

class Trainer {
public:
  /// Configures the backend for the config's shape and the dataset, and initialises parameters
  /// from the seed. Throws ConfigError / BackendError.
  Trainer(std::unique_ptr<Backend> backend, RunConfig config, Dataset data);

  /// Re-initialises parameters and optimizer state, step 0, empty history.
  void reset();
  /// Runs one step. Returns the metrics row if this step was a metrics step. With a stop flag
  /// set (set_stop_flag) the step is not run, or is abandoned: nothing returned, no step counted.
  std::optional<MetricsRow> step();
  /// A flag (set by a signal handler, say) that stops training within a chunk of a step: once it
  /// is true, step() begins no step, and a CPU step in progress is abandoned between its chunks,
  /// leaving the state of the last finished step. `flag` must outlive the trainer; null: none.
  void set_stop_flag(const std::atomic<bool>* flag) { m_stop = flag; }
  /// True once the stop flag is set.
  bool stop_requested() const { return m_stop && m_stop->load(std::memory_order_relaxed); }
  /// Runs up to n steps, stopping early when should_stop() returns true (checked each step); on
  /// return the history holds every row up to the current step (the GPU's late rows settled).
  void run(int64_t n, const std::function<bool()>& should_stop = {});
  /// Measures loss and the exact PSNR over every pixel now (blocks), appends to the history and
  /// returns the row.
  MetricsRow measure();

  int64_t current_step() const { return m_step; }
  int64_t total_steps() const { return m_config.training.steps; }
  /// The learning rate step `step` uses: the schedule's, times the recoveries' lr_scale().
  double learning_rate_at(int64_t step) const { return m_schedule->learning_rate(step) * m_lr_scale; }
  /// Anneals the schedule to a deadline `seconds` of training time from now (see
  /// budget_schedule_step in schedule.h); 0 or less removes the budget.
  void set_time_budget(double seconds);
  double time_budget() const { return m_budget_seconds; }
  /// Training seconds left of the time budget (<= 0 once it is spent); +infinity without one.
  double time_budget_left() const;
  /// The step the schedule is read at for the next step: the step count, or further on under a
  /// time budget.
  int64_t schedule_step() const;
  /// The loss of every step on a backend that reports it without waiting (empty otherwise).
  const LossTrace& loss_trace() const { return m_loss_trace; }

  // ---- divergence recovery --------------------------------------------------------------
  /// Every recovery of this run so far (across resumes), oldest first.
  const std::vector<RecoveryEvent>& recoveries() const { return m_recoveries; }
  /// The recoveries since the last call (for logs and messages).
  std::vector<RecoveryEvent> take_new_recoveries();
  /// The learning-rate multiplier the recoveries left (1 when there were none).
  double lr_scale() const { return m_lr_scale; }
  /// Blocks until the device is idle and checks the weights, the optimizer state and the
  /// backend's divergence flag. Recovers (as a step would) when they are not sound (not finite,
  /// or past the bounds a model file may hold: count_unsound): returns true then. DivergedError
  /// when no recovery is left.
  bool ensure_finite();
  /// Test hook: after step `step` completes, one weight is set to NaN (-1: never).
  void inject_nan_after_step(int64_t step) { m_inject_nan_at = step; }
  double elapsed_seconds() const; ///< training time, across resumes
  /// Wall time of this session's sampled metrics rows (part of the training time) and their count.
  double metric_row_seconds() const { return m_metric_row_seconds; }
  int64_t metric_rows() const { return m_metric_rows; }
  const std::vector<MetricsRow>& history() const { return m_history; }
  const RunConfig& config() const { return m_config; }
  const Dataset& dataset() const { return m_data; }
  /// The same dataset, for a reader that may outlive the Trainer (the GUI's ground truth): a
  /// full-resolution photo's floats are then held once, not copied.
  std::shared_ptr<const Dataset> shared_dataset() const { return m_data_owner; }
  Backend& backend() { return *m_backend; }
  const std::vector<float>& fourier_b() const { return m_fourier_b; }

  /// Changes the schedule from the next step on (shape changes need a new Trainer).
  void set_schedule(const ScheduleSpec& spec);
  /// Changes the total step count (the cosine period follows when its period is 0, and so does
  /// the default snapshot policy's spacing).
  void set_total_steps(int64_t steps);

  std::vector<float> parameters() { return m_backend->parameters(); }
  /// The live network (NetworkView::bound) after ensure_finite() when a weight is not finite (a
  /// diverged network recovers first). Valid until the next step.
  NetworkView finite_live_view();
  /// Renders the current network at w x h (after ensure_finite(): never a diverged network).
  Image render(int32_t w, int32_t h, const RenderOptions& opts = {});
  /// The same picture as an 8-bit PNG in memory, rendered and encoded band by band (a full
  /// resolution photo's final.png never exists as floats).
  std::vector<uint8_t> render_png(int32_t w, int32_t h);
  /// The same PNG, its bytes handed to `sink` as they are encoded (final.png straight to its file).
  void render_png(int32_t w, int32_t h, const ByteSink& sink);
  /// The PNG at the training size into `sink`, and the exact row of the current step measured
  /// from the same predictions (every pixel against the image, as measure() does): one pass over
  /// a photo instead of two. The row joins the history as measure()'s does, and is returned.
  MetricsRow render_png_measured(const ByteSink& sink);

  /// Everything needed to resume; source_image is stored as given. Its weights are finite: a
  /// diverged state is recovered first (ensure_finite), DivergedError when that is not possible.
  Checkpoint checkpoint(const std::string& source_image = {});
  /// checkpoint() handed to use(const Checkpoint&) with the timelapse's frames lent, not copied
  /// (the frames can hold hundreds of MB); they come back after, also when use() throws.
  /// The weights and Adam's moments are lent too when they can be: the current state becomes the
  /// good state (the divergence recovery's rollback point, refreshed in its own buffers) and those
  /// buffers go to the checkpoint, so a save holds no second copy of the model and its optimizer.
  template <class Use> void with_checkpoint(const std::string& source_image, Use&& use) {
    Checkpoint c = checkpoint_base(source_image);
    struct GiveBack {
      Trainer& t;
      Checkpoint& c;
      bool frames_lent = false, state_lent = false;
      ~GiveBack() {
        if (frames_lent) t.m_snapshots.give_back(std::move(c.snapshots));
        if (state_lent) t.take_back_state(c);
      }
    } give_back{*this, c};
    c.snapshots = m_snapshots.lend();
    give_back.frames_lent = true;
    give_back.state_lent = lend_state(c);
    use(std::as_const(c));
  }
  /// Restores parameters, optimizer state, step, time and history. The checkpoint's config
  /// must have the same model shape as this trainer's (CheckpointError otherwise).
  void restore(const Checkpoint& ckpt);

  // ---- timelapse ------------------------------------------------------------------------
  /// The frames kept so far, oldest first (index 0 is the first frame). References into the store
  /// stay valid until the next step(), restore(), reset(), branch or cap change (frames get thinned):
  /// copy what another thread needs.
  const SnapshotStore& snapshots() const { return m_snapshots; }
  size_t snapshot_count() const { return m_snapshots.size(); }
  /// Frame i (0 <= i < snapshot_count(); std::out_of_range otherwise): its metrics and parameters.
  const Snapshot& snapshot(size_t i) const { return m_snapshots.frames().at(i); }
  /// Renders frame i at w x h from its weights (fp16 ones widened: within rounding of what
  /// render() drew at that step); a picture-only frame's picture is resampled instead.
  Image render_snapshot(size_t i, int32_t w, int32_t h, const RenderOptions& opts = {});
  /// Memory cap for the frames in bytes (default 256 MiB); lowering it thins at once.
  void set_snapshot_cap_bytes(size_t bytes) { m_snapshots.set_cap_bytes(bytes); }
  /// The exact frame size above which frames between powers of two are pictures only (tests).
  void set_large_frame_bytes(size_t bytes) { m_large_frame_bytes = bytes; }
  size_t snapshot_cap_bytes() const { return m_snapshots.cap_bytes(); }
  /// Which steps are kept from the next step on (default: SnapshotPolicy::for_run of the config).
  void set_snapshot_policy(const SnapshotPolicy& policy) {
    m_policy = policy;
    m_policy_custom = true;
  }
  const SnapshotPolicy& snapshot_policy() const { return m_policy; }
  /// "Resume training from here": parameters of frame i, step = the frame's step, history and
  /// later frames dropped, clock set to the frame's time; the schedule continues from that step.
  /// A resumable frame (Snapshot::resumable) also brings back the optimizer state, its update
  /// count and the learning-rate factor, so the branch continues exactly as the run did from
  /// there (bit for bit on the CPU); otherwise the optimizer state starts from zero. Returns
  /// whether the optimizer state was restored. std::out_of_range for a bad index; ConfigError for
  /// a picture-only frame (no weights to train on).
  bool branch_from_snapshot(size_t i);

  /// Stops the training clock (the GUI calls it on pause; run() calls it when it returns). The
  /// clock restarts with the next step().
  void pause_clock();
  /// Starts the clock, or keeps it running; called at each step. An interval that held a stop
  /// (SIGSTOP ... SIGCONT, engine/stop_signals.h) counts as long as the interval before it.
  void tick_clock();

  /// On a StepMetrics backend (the GPU) a metrics row is measured by the step after it and
  /// arrives with that step's loss, so step() returns it a step or two late and never waits.
  /// This waits for a row still in flight and measures a due one now; it returns the history rows
  /// it added, oldest first. Call it when a run pauses or ends (measure() and checkpoint() do).
  std::vector<MetricsRow> flush_metrics();

private:
  /// checkpoint() without the timelapse's frames, the weights and the optimizer state.
  Checkpoint checkpoint_base(const std::string& source_image);
  /// c's weights and optimizer state copied from the backend.
  void copy_state(Checkpoint& c);
  /// c's weights and optimizer state from the current state. When the current state qualifies as
  /// the good state (finite, and the last row not worse than the start), the good state is
  /// refreshed to it in its own buffers, which are moved into c: returns true, and
  /// take_back_state(c) must return them before training goes on. Otherwise c gets copies.
  bool lend_state(Checkpoint& c);
  void take_back_state(Checkpoint& c);
  /// A copy of a state whose loss and weights were finite, to go back to after a divergence.
  struct GoodState {
    int64_t step = 0, optimizer_step = 0;
    double loss = 0;
    std::vector<float> params;
    OptimizerState optimizer;
  };

  /// A row measured by the step that starts from its step count (StepMetrics backends).
  struct PendingRow {
    int64_t count = -1; ///< the row's step; -1: none
    bool metrics = false; ///< a history row (otherwise a snapshot's metrics only)
    double seconds = 0;   ///< training time when the count was reached
    double lr = 0;        ///< the learning rate of the step that reached it
    std::optional<Snapshot> snapshot; ///< the parameters at `count`, for a timelapse frame
    int64_t copy_ticket = -1; ///< the frame's parameters, still on their way (begin_parameter_copy)
  };

  /// loss/PSNR/lr/time of the current network, without touching the history. Blocks. The PSNR
  /// (and the loss when no step reported it) over every pixel when `exact` or when the sample is
  /// the whole image, else on the sample.
  MetricsRow measure_row(bool exact = false) { return measure_row(exact, nullptr); }
  /// The whole image's mean loss and clamped MSE, measured elsewhere (render_png_measured).
  struct WholeImageError {
    double loss = 0, mse = 0;
  };
  /// measure_row with the whole image's error given: an exact row that runs no pass of its own.
  MetricsRow measure_row(bool exact, const WholeImageError* given);
  /// A measured row into the history (replacing one of the same step) after the GPU's late rows.
  void record_measured(const MetricsRow& row);
  /// Loss and clamped squared error of predictions against targets, summed in float64 in order.
  struct ErrorSums {
    double loss = 0, se = 0;
    void add(const LossParams& p, const float* pred, const float* target, int64_t n);
  };
  /// render_png, each band's values shown to `band` (when set) before they are encoded.
  void render_png_bands(int32_t w, int32_t h, const ByteSink& sink,
                        const std::function<void(int32_t y0, int32_t y1, const float* values)>& band);
  /// Mean loss and clamped MSE of the current weights on the metrics sample (a forward pass over
  /// it, summed in float64 in sample order: the same bits at any thread count). Blocks.
  std::pair<double, double> sample_error();
  /// Fills the metrics sample's coordinates and targets from the dataset (once, at construction).
  void prepare_metric_sample();
  /// Polls the loss the last step reported and keeps it in the loss trace.
  void take_step_loss();
  /// The learning rate the last step used (learning_rate_at(step - 1) when not known).
  double last_step_lr() const;
  /// At step 0, before the clock starts: the untrained network's PSNR and its timelapse frame
  /// (with the loss of the untrained network, never NaN).
  void measure_untrained();
  /// The loss of the current weights over the whole image (a forward pass, in chunks). Blocks.
  double dataset_loss();
  /// What follows the next step (a metrics row, a frame): the same plan for both step paths.
  StepPlan next_step_plan() const;
  /// Runs one step on the backend with `args`' recording flags (its step, update count and
  /// learning rate filled in here), then counts it (and applies the NaN test hook).
  /// False when the stop flag abandoned it (nothing counted).
  bool train_step_now(StepArgs args);
  /// step() on a StepMetrics backend: metrics ride on the next step, nothing waits.
  std::optional<MetricsRow> step_lagged();
  /// The awaited row, once its sample arrived (always when `wait`); runs accept_row.
  std::optional<MetricsRow> finish_awaited(bool wait);
  void drop_pending_rows();
  /// Puts the arrived parameter copy into r's frame; false while it is on its way (never with wait).
  bool collect_frame(PendingRow& r, bool wait);
  /// A measured row: divergence check (and recovery), history, timelapse frame (`taken`, or the
  /// current parameters when `snap`), good state. The row when it is a metrics row and no
  /// recovery happened.
  std::optional<MetricsRow> accept_row(const MetricsRow& row, bool metrics, bool snap, std::optional<Snapshot> taken);
  /// The REDRAW_TEST_NAN_AT_STEP hook.
  void inject_test_nan();
  void record_snapshot(const std::optional<MetricsRow>& measured);
  /// Marks `s` resumable with the current optimizer state, update count and lr factor (one read).
  void keep_resume_state(Snapshot& s);
  /// Renders the frame's picture from its exact weights (frame_picture_size of the training size).
  void attach_picture(Snapshot& s);
  /// keep_resume_state without the optimizer state, which a frame needs when this is true.
  void mark_resumable(Snapshot& s) const;
  bool resume_needs_optimizer() const;
  /// Whether an exact frame (weights and optimizer state) would take more than 1/8 of the default
  /// frame cap (k_large_frame_bytes; set_large_frame_bytes in tests): a hash table sized to a photo (7.5 M weights at 24 MP, 90 MB with Adam's state). Then
  /// a frame keeps weights (fp16, a keyframe) only at steps 0 and powers of two, and the frames
  /// between are pictures only, drawn from one reused copy of the live weights: frames cost about
  /// what they cost a small model, and the cap holds the keyframes.
  bool big_frames() const;
  /// Whether the frame of `step` keeps weights (see big_frames).
  bool frame_keeps_weights(int64_t step) const;
  /// A picture-only frame of the live network (big_frames).
  Snapshot live_picture_frame();
  /// A frame's picture of the live network, drawn from the backend's weights in place.
  FramePicture live_picture();
  /// Why `row` (just measured) shows a diverged run; empty when it does not.
  std::string divergence_reason(const MetricsRow& row) const;
  /// `row` is clearly worse than the untrained network (see k_worse_than_start_db).
  bool worse_than_start(const MetricsRow& row) const;
  /// Goes back to the good state and lowers the learning rate; DivergedError when out of recoveries.
  void recover(const std::string& reason);
  /// Copies the current state as the good state (the caller knows it is finite).
  void keep_good_state(std::vector<float> params, OptimizerState optimizer);
  /// Keeps the current state when good_state_every steps have passed and its weights are finite.
  void maybe_keep_good_state();
  /// The good state refreshed to the current one in its own buffers, when that is finite.
  bool refresh_good_state();

  std::unique_ptr<Backend> m_backend;
  RunConfig m_config;
  std::shared_ptr<const Dataset> m_data_owner; ///< shared_dataset(); never null, never changed
  const Dataset& m_data;                       ///< *m_data_owner
  std::unique_ptr<Schedule> m_schedule;
  std::vector<float> m_fourier_b;
  int64_t m_step = 0;
  int64_t m_optimizer_step = 0; ///< updates since the optimizer state was zeroed (Adam's bias correction)
  double m_seconds_before = 0; ///< time accumulated before the current clock run
  std::optional<std::chrono::steady_clock::time_point> m_clock_start;
  std::chrono::steady_clock::time_point m_last_tick{}; ///< the previous step's start (clock running)
  double m_last_interval = 0;      ///< seconds between the two steps before it
  uint64_t m_continues_seen = 0;   ///< continue_signals() at the last step
  std::vector<MetricsRow> m_history;
  LossTrace m_loss_trace;
  bool m_trace_losses = false;         ///< the backend reports every step's loss without waiting
  int64_t m_sample_pixels = k_metric_sample_pixels; ///< the sample's size: metric_sample_pixels(batch)
  std::vector<float> m_sample_coords;  ///< the metrics sample: coordinates (n x 2) ...
  std::vector<float> m_sample_targets; ///< ... and targets (n x channels)
  bool m_sample_whole = false;         ///< the sample is every pixel: rows measure exactly
  double m_budget_seconds = 0;         ///< the time budget (0: none)
  double m_budget_start_seconds = 0;   ///< training time when it was set
  int64_t m_budget_start_step = 0;     ///< step count when it was set
  double m_last_lr = 0;                ///< the learning rate of the step that reached m_last_lr_step
  int64_t m_last_lr_step = -1;
  double m_last_loss = 0;
  int64_t m_last_loss_step = -1; ///< the step count m_last_loss belongs to (-1: none)
  bool m_nonfinite_seen = false; ///< the backend's divergence flag arrived set
  double m_initial_psnr = 0;       ///< PSNR of the untrained network (NaN: not known, e.g. an old model)
  double m_lr_scale = 1;
  std::vector<RecoveryEvent> m_recoveries;
  size_t m_recoveries_taken = 0;
  GoodState m_good;
  int64_t m_inject_nan_at = -1;
  const std::atomic<bool>* m_stop = nullptr; ///< set_stop_flag
  bool m_step_metrics = false; ///< the backend measures the dataset's error inside a step
  PendingRow m_due;            ///< to be measured by the next step
  PendingRow m_awaited;        ///< measured by a step whose loss has not reached the host yet
  SnapshotPolicy m_policy;
  bool m_policy_custom = false; ///< set_snapshot_policy was called: set_total_steps keeps it
  SnapshotStore m_snapshots;
  double m_metric_row_seconds = 0; ///< sampled rows' wall time (metric_row_seconds())
  int64_t m_metric_rows = 0;
  std::vector<float> m_sample_pred;  ///< the metrics sample's prediction, reused
  size_t m_large_frame_bytes = k_large_frame_bytes;
};

/// How far below the untrained network's PSNR a run may fall before it counts as diverged.
constexpr double k_worse_than_start_db = 1.0;

/// PSNR in dB for a mean squared error of values in [0, 1].
double psnr_from_mse(double mse);

} // namespace redraw
