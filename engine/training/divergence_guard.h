#pragma once
/// The divergence guard of one run: when a run has diverged, the good state to go back to, and
/// the record of its recoveries.
/// - Diverged: the backend's non-finite flag arrived set, a row's loss is not finite, its PSNR is
///   NaN (a non-finite prediction), or its PSNR is k_worse_than_start_db below the untrained
///   network's from good_state_every steps on (what a far too high learning rate does to Adam:
///   finite garbage). A loss of exactly 0 (an exact fit, PSNR +inf) is no divergence.
/// - Weights or optimizer values that are not sound (not finite, or past the bounds a model file
///   may hold: engine/soundness.h's count_unsound) are a divergence too.
/// - The good state: a copy of weights, optimizer state, step counts and loss whose weights were
///   finite, refreshed every good_state_every steps (at a metrics step) into its own buffers.
/// - A recovery: the trainer puts the good state back on the backend, then record_recovery()
///   multiplies the learning rate by recovery_lr_factor for the rest of the run and records a
///   RecoveryEvent; after max_recoveries of them it throws DivergedError instead.
/// - Threading: the trainer's thread; not locked.
#include "engine/backend.h"
#include "engine/model_files/checkpoint.h"
#include "engine/metrics.h"
#include "engine/run_config.h"
#include "engine/training/training_state.h"

#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace redraw {

/// How far below the untrained network's PSNR (dB) a run may fall before it counts as diverged.
constexpr double k_worse_than_start_db = 1.0;

class DivergenceGuard {
public:
  /// Takes good_state_every, max_recoveries and recovery_lr_factor from `training`.
  explicit DivergenceGuard(const TrainingSpec& training);

  /// A fresh run: no recoveries, lr_scale 1, the flag clear, the start unknown (the good state stays).
  void reset();
  /// The backend's non-finite flag, as a loss report brought it (it stays set until cleared).
  void note_nonfinite(bool flag) { m_nonfinite_seen = m_nonfinite_seen || flag; }
  bool nonfinite_seen() const { return m_nonfinite_seen; }
  void clear_nonfinite() { m_nonfinite_seen = false; }
  /// The untrained network's PSNR in dB, kept when none is known yet.
  void note_start(double psnr_db);
  bool knows_start() const { return !std::isnan(m_initial_psnr); }
  double initial_psnr() const { return m_initial_psnr; } ///< NaN: not known (e.g. an old model)

  /// `row`, measured with the run at `step`, is clearly worse than the untrained network.
  bool worse_than_start(const MetricsRow& row, int64_t step) const;
  /// Why `row` (just measured, the run at `step`) shows a diverged run; empty when it does not.
  std::string divergence_reason(const MetricsRow& row, int64_t step) const;
  /// Why a state with these weights and optimizer values is diverged (not finite, past the bounds,
  /// or the flag set); empty when it is sound and the flag is clear.
  std::string unsound_reason(std::span<const float> params, const OptimizerState& optimizer) const;
  /// unsound_reason of the backend's current state. Looks in place first (Backend::parameters_sound);
  /// copies the state only to count what went wrong. The caller synchronizes first.
  std::string check(Backend& backend) const;

  /// The good state: one whose loss and weights were finite. Its buffers may be lent (a checkpoint's save) and must be
  /// back before the next step.
  const TrainingState& good() const { return m_good; }
  TrainingState& good() { return m_good; }
  /// Keeps the given state (which the caller knows to be finite) as the good state.
  void keep(TrainingState state) { m_good = std::move(state); }
  /// Copies the backend's state into the good state's own buffers when it is sound (returns true);
  /// otherwise the good state stays as it was.
  bool refresh(Backend& backend, int64_t step, int64_t optimizer_step, double loss);
  /// refresh() once good_state_every steps have passed since the good state's step.
  void maybe_refresh(Backend& backend, int64_t step, int64_t optimizer_step, double loss);

  /// After the trainer went back to good() from a divergence found at step `found_at` (for
  /// `reason`), `seconds` into training: lowers lr_scale and records the recovery. DivergedError
  /// when max_recoveries are used up (the learning rate and the record then stay as they were).
  void record_recovery(const std::string& reason, int64_t found_at, double seconds);
  /// Every recovery of the run so far (across resumes), oldest first.
  const std::vector<RecoveryEvent>& recoveries() const { return m_recoveries; }
  /// The recoveries since the last call.
  std::vector<RecoveryEvent> take_new();
  /// The learning-rate multiplier the recoveries left (1 without any).
  double lr_scale() const { return m_lr_scale; }
  /// A branch from step `step`: recoveries after it are forgotten; the multiplier is `lr_scale`
  /// when the frame knew it, else the last remaining recovery's (1 without any).
  void branch_at(int64_t step, std::optional<double> lr_scale);
  /// What a checkpoint keeps of the guard: the multiplier, the start's PSNR and the recoveries.
  void save_into(Checkpoint& c) const;
  /// A resume: those of `c` (its recoveries count as reported), the flag clear.
  void restore(const Checkpoint& c);

  /// Test hook: once the run completes step `step`, one weight becomes NaN (-1: never).
  void inject_nan_after_step(int64_t step) { m_inject_nan_at = step; }
  /// Applies the hook when `step` steps are complete, once: the rerun after the rollback must not
  /// meet it again.
  void apply_injected_nan(Backend& backend, int64_t step);

private:
  int64_t m_good_every;
  int32_t m_max_recoveries;
  double m_lr_factor;
  bool m_nonfinite_seen = false;
  double m_initial_psnr = std::numeric_limits<double>::quiet_NaN();
  double m_lr_scale = 1;
  std::vector<RecoveryEvent> m_recoveries;
  size_t m_recoveries_taken = 0;
  TrainingState m_good;
  int64_t m_inject_nan_at = -1;
};

} // namespace redraw
