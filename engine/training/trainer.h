#pragma once
/// The Trainer drives one run, for the CLI and the GUI alike: it owns a Backend, the run's config,
/// the schedule and the step counts, and coordinates its parts, each with its own contract: the
/// clock and time budget (training_clock.h); the rows' measurements (metric_sampler.h; on a
/// StepMetrics backend, the GPU, rows measured inside the next step: lagged_rows.h) and their
/// history (metrics_history.h); the divergence guard with its good state (divergence_guard.h); the
/// timelapse and what a checkpoint borrows (snapshot_keeper.h).
/// - The parts are read through const accessors (clock(), record(), sampler(), guard(), frames());
///   whatever changes them is a Trainer verb, so the run's invariants stay the Trainer's.
/// - Threading: one thread (the GUI's training thread); not locked. Other threads read copies.
/// - A metrics row every training.metrics_every steps is the only wait for the device.
/// - Determinism: same seed, config and backend -> same parameters (bit-exact on the CPU), and a
///   checkpoint resumes exactly where it left off.
/// - Divergence: the loss is checked at each row and frame, the weights before anything is saved or
///   rendered; a divergence rolls back to the good state, so no non-finite weight is handed out.
#include "engine/training/divergence_guard.h"
#include "engine/training/lagged_rows.h"
#include "engine/training/metric_sampler.h"
#include "engine/training/metrics_history.h"
#include "engine/frames/renderer.h"
#include "engine/training/schedule.h"
#include "engine/training/snapshot_keeper.h"
#include "engine/training/step_plan.h"
#include "engine/training/training_clock.h"

#include <atomic>
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
  /// Re-initialises parameters and optimizer state: step 0, empty history, no frames.
  void reset();
  /// Runs one step; returns the row when a metrics row arrived (on a StepMetrics backend a step or
  /// two late). With the stop flag set the step is not run, or is abandoned: nothing counted.
  std::optional<MetricsRow> step();
  /// A flag (a signal handler's, say) that stops training within a chunk of a step: once true,
  /// step() begins no step and a CPU step in progress is abandoned between its chunks, leaving the
  /// state of the last finished step. `flag` must outlive the trainer; null: none.
  void set_stop_flag(const std::atomic<bool>* flag) { m_stop = flag; }
  bool stop_requested() const { return m_stop && m_stop->load(std::memory_order_relaxed); }
  /// Up to n steps, stopping early when should_stop() returns true (checked before each step); then
  /// the late rows are settled (flush_metrics) and the clock paused. The run loop's slice and
  /// settle (run_loop.h), for tests and benchmarks that train a fixed number of steps.
  void run(int64_t n, const std::function<bool()>& should_stop = {});
  /// The loss and exact PSNR over every pixel now (blocks), appended to the history and returned.
  MetricsRow measure();
  /// Waits for a row in flight and measures a due one now (StepMetrics backends); returns the
  /// history rows it added, oldest first. For when a run pauses or ends.
  std::vector<MetricsRow> flush_metrics();

  int64_t current_step() const { return m_step; }
  int64_t total_steps() const { return m_config.training.steps; }
  /// The learning rate step `step` uses: the schedule's, times guard().lr_scale().
  double learning_rate_at(int64_t step) const { return m_schedule->learning_rate(step) * m_guard.lr_scale(); }
  /// Changes the schedule from the next step on (shape changes need a new Trainer).
  void set_schedule(const ScheduleSpec& spec);
  /// Changes the step count (a cosine of period 0 and the default snapshot policy follow).
  void set_total_steps(int64_t steps);

  // ---- the parts, read-only: each says what it holds (a change goes through a Trainer verb) -----
  /// Training time across resumes, the time budget and what is left of it (training_clock.h).
  const TrainingClock& clock() const { return m_clock; }
  /// The metrics rows and every step's loss, where the backend reports it (metrics_history.h).
  const MetricsHistory& record() const { return m_record; }
  /// What this session's sampled rows cost: their wall time and count (metric_sampler.h).
  const MetricSampler& sampler() const { return m_sampler; }
  /// Every recovery from a divergence (across resumes) and the learning-rate factor they left
  /// (divergence_guard.h).
  const DivergenceGuard& guard() const { return m_guard; }
  /// The timelapse: its store (frames oldest first), policy and frames (snapshot_keeper.h). A
  /// frame reference stays valid until the next step(), restore(), reset(), branch or cap change:
  /// copy what another thread needs.
  const SnapshotKeeper& frames() const { return m_frames; }

  // ---- time: seconds of training time (training_clock.h) -----------------------------------
  /// Stops the clock once the device is idle (on a pause, at run()'s end); the next step restarts it.
  void pause_clock() {
    if (m_clock.running()) m_backend->synchronize();
    m_clock.pause();
  }
  /// A deadline `seconds` of training time from now the schedule anneals to; 0 or less: none.
  void set_time_budget(double seconds) { m_clock.set_budget(seconds, m_step); }
  /// Test hook: the training clock reads its time from `source` (TrainingClock::set_time_source).
  void set_time_source(TrainingClock::TimeSource source) { m_clock.set_time_source(std::move(source)); }
  /// The step the next step reads the schedule at: the step count, or further on under a budget.
  int64_t schedule_step() const { return m_clock.schedule_step(m_step, m_config.training.steps); }

  // ---- divergence (divergence_guard.h) ------------------------------------------------------
  /// The recoveries since the last call, oldest first (guard().recoveries() holds them all).
  std::vector<RecoveryEvent> take_new_recoveries() { return m_guard.take_new(); }
  /// Blocks until the device is idle and checks the weights, optimizer state and divergence flag;
  /// recovers when they are not sound and returns true. DivergedError when no recovery is left.
  bool ensure_finite();
  /// Test hook: after step `step` completes, one weight is set to NaN (-1: never).
  void inject_nan_after_step(int64_t step) { m_guard.inject_nan_after_step(step); }

  const RunConfig& config() const { return m_config; }
  const Dataset& dataset() const { return m_data; }
  /// The same dataset for a reader that may outlive the Trainer (held once, not copied).
  std::shared_ptr<const Dataset> shared_dataset() const { return m_data_owner; }
  Backend& backend() { return *m_backend; }
  const std::vector<float>& fourier_b() const { return m_fourier_b; }
  std::vector<float> parameters() { return m_backend->parameters(); }

  // ---- rendering: never a diverged network (renderer.h) -------------------------------------
  Image render(int32_t w, int32_t h, const RenderOptions& opts = {}) {
    return render_image(*m_backend, finite_live_view(), w, h, opts);
  }
  /// An 8-bit PNG, rendered and encoded band by band: in memory, or handed to `sink` as encoded.
  std::vector<uint8_t> render_png(int32_t w, int32_t h);
  void render_png(int32_t w, int32_t h, const ByteSink& sink) {
    render_png_tiles(*m_backend, finite_live_view(), w, h, m_data.channels(), sink);
  }
  /// The PNG at the training size into `sink`, and the exact row measured from the same
  /// predictions (one pass instead of two); the row joins the history as measure()'s does.
  MetricsRow render_png_measured(const ByteSink& sink);

  // ---- checkpoints (snapshot_keeper.h) ------------------------------------------------------
  /// Everything needed to resume, with finite weights (ensure_finite first); source_image as given.
  Checkpoint checkpoint(const std::string& source_image = {});
  /// checkpoint() handed to use(const Checkpoint&) with the frames lent, not copied, and the weights
  /// and optimizer state lent through the good state when the current state can become it; all
  /// come back after, also when use() throws (CheckpointLoan).
  template <class Use> void with_checkpoint(const std::string& source_image, Use&& use) {
    Checkpoint c = checkpoint_base(source_image);
    CheckpointLoan loan(c, m_frames.store());
    lend_state(loan, c);
    use(std::as_const(c));
  }
  /// Restores parameters, optimizer state, steps, time, history and frames. CheckpointError when
  /// the model cannot take it (check_restorable).
  void restore(const Checkpoint& ckpt);

  // ---- timelapse (snapshot_keeper.h; frames() reads it) -------------------------------------
  Image render_snapshot(size_t i, int32_t w, int32_t h, const RenderOptions& opts = {}) {
    return m_frames.render(i, w, h, opts);
  }
  /// The frames' memory cap in bytes (default 256 MiB); lowering it thins at once.
  void set_snapshot_cap_bytes(size_t bytes) { m_frames.store().set_cap_bytes(bytes); }
  void set_large_frame_bytes(size_t bytes) { m_frames.set_large_frame_bytes(bytes); } ///< tests
  /// Which steps keep a frame from the next step on (default: SnapshotPolicy::for_run of the config).
  void set_snapshot_policy(const SnapshotPolicy& policy) { m_frames.set_policy(policy); }
  /// Training resumes from frame i: its weights and step, later rows and frames dropped, the clock
  /// at its time. A resumable frame brings back the optimizer state, update count and lr factor
  /// (the run continues bit for bit on the CPU; returns true); else the optimizer starts from
  /// zero. std::out_of_range for a bad index; ConfigError for a picture-only frame.
  bool branch_from_snapshot(size_t i);

private:
  std::optional<MetricsRow> step_lagged();
  bool train_step_now(StepArgs args);    ///< false when the step was abandoned
  void grow_if_due();                    ///< training.grow's relocation after this step, when due
  std::optional<LossSample> poll_loss(); ///< noted by the sampler and the guard
  void measure_untrained();              ///< at step 0, off the clock: the start's PSNR and frame
  MetricsRow measure_row(bool exact = false, const ErrorMeans* given = nullptr);
  MetricsRow record_exact(const ErrorMeans* given); ///< an exact row of the current step, into the history
  /// A measured row: divergence check (and recovery), history, frame, good state. The row when
  /// it is a metrics row and no recovery happened.
  std::optional<MetricsRow> accept_row(const MetricsRow& row, bool metrics, bool snap, std::optional<Snapshot> taken);
  std::optional<MetricsRow> finish_awaited(bool wait);
  void recover(const std::string& reason);
  /// The backend, step counts and latest loss set to `s` (a reset, rollback, branch or resume), the
  /// rows in flight dropped.
  void set_state(const TrainingState& s);
  NetworkView finite_live_view(); ///< the live network, recovered first when a weight is not finite
  ResumePoint resume_point() const { return {m_optimizer_step, m_guard.lr_scale()}; }
  Checkpoint checkpoint_base(const std::string& source_image);
  void lend_state(CheckpointLoan& loan, Checkpoint& c);

  std::unique_ptr<Backend> m_backend;
  std::shared_ptr<const Dataset> m_data_owner; ///< never null, never changed
  const Dataset& m_data;                       ///< *m_data_owner
  RunConfig m_config;
  bool m_step_metrics; ///< the backend measures rows inside a step (lagged rows)
  std::vector<float> m_fourier_b;
  std::unique_ptr<Schedule> m_schedule;
  TrainingClock m_clock;
  MetricSampler m_sampler;
  LaggedRows m_lagged;
  DivergenceGuard m_guard;
  SnapshotKeeper m_frames;
  MetricsHistory m_record;
  int64_t m_step = 0;
  int64_t m_optimizer_step = 0; ///< updates since the optimizer state was zeroed (Adam's bias correction)
  const std::atomic<bool>* m_stop = nullptr;
};

/// PSNR in dB for a mean squared error of values in [0, 1].
double psnr_from_mse(double mse);

} // namespace redraw
