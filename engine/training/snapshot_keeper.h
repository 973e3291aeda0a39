#pragma once
/// The timelapse of one run, what its checkpoints borrow, and where a branch or a resume starts.
/// - Which steps keep a frame: a SnapshotPolicy (by default SnapshotPolicy::for_run of the run's
///   steps and metrics_every, following set_total_steps until a policy is set explicitly).
/// - What a frame holds: its step's metrics, a picture of the network (frame_picture_size of the
///   training size), and its weights. Exact weights come with what a resume needs (the optimizer
///   state when the optimizer has moved, its update count, the learning-rate factor: resumable).
/// - Big frames: when an exact frame (weights and optimizer state) is over the large-frame size
///   (k_large_frame_bytes, an eighth of the default cap), frames keep weights (fp16: a keyframe)
///   only at steps 0 and powers of two, and the frames between are pictures only, drawn from the
///   live weights in place. Frames then cost about what they cost a small model.
/// - The store: a SnapshotStore under a byte cap (engine/frames/timelapse.h).
/// - A checkpoint borrows the store's frames and the good state's buffers (CheckpointLoan) and
///   gives them back; check_restorable says which checkpoints a trainer's model can take.
/// - A branch from a frame or a resume from a checkpoint starts from a TrainingState with every
///   optimizer array: one the frame or model lacks starts from zeros, from update 0 (so a restarted
///   Adam's bias correction restarts too, instead of making the first updates many times too big).
/// - Threading: the trainer's thread. Holds a reference to the backend, which must outlive it.
#include "engine/backend.h"
#include "engine/model_files/checkpoint.h"
#include "engine/training/lagged_rows.h"
#include "engine/frames/renderer.h"
#include "engine/frames/timelapse.h"
#include "engine/training/training_state.h"

#include <optional>
#include <span>
#include <vector>

namespace redraw {

/// What a resumable frame records of the run at its step.
struct ResumePoint {
  int64_t optimizer_step = 0; ///< updates since the optimizer state was zeroed
  double lr_scale = 1;        ///< the recoveries' learning-rate factor
};

/// Where a branch from a frame starts (SnapshotKeeper::branch_point).
struct BranchPoint {
  TrainingState state;            ///< the frame's weights, step and loss (and optimizer state)
  double seconds = 0;             ///< the frame's training time
  std::optional<double> lr_scale; ///< the recoveries' factor at the frame, when it is resumable
};

class SnapshotKeeper {
public:
  /// For the run `config` (its model, optimizer, steps and metrics_every) on a width x height
  /// image, drawn with `fourier_b` (copied).
  SnapshotKeeper(Backend& backend, const RunConfig& config, std::span<const float> fourier_b, int32_t width,
                 int32_t height);

  const SnapshotPolicy& policy() const { return m_policy; }
  /// Replaces the policy from the next step on; set_total_steps keeps it from then on.
  void set_policy(const SnapshotPolicy& policy);
  /// The run's length changed: the default policy's spacing follows.
  void set_total_steps(int64_t steps);
  bool should_snapshot(int64_t step) const { return m_policy.should_snapshot(step); }

  SnapshotStore& store() { return m_store; }
  const SnapshotStore& store() const { return m_store; }
  /// Frame i (std::out_of_range for a bad index).
  const Snapshot& frame(size_t i) const { return m_store.frames().at(i); }

  /// The exact frame size in bytes above which frames are big (tests set it).
  void set_large_frame_bytes(size_t bytes) { m_large_frame_bytes = bytes; }
  /// An exact frame of this network is over the large-frame size.
  bool big_frames() const;
  /// The frame of `step` keeps weights: always, unless big_frames() and `step` is not 0 or a power of two.
  bool keeps_weights(int64_t step) const;

  /// Keeps a frame of the live network, the run at `step`, with `row` as its metrics (reads the
  /// weights and, when a resume needs it, the optimizer state: blocks).
  void record(int64_t step, const MetricsRow& row, const ResumePoint& at);
  /// Begins the frame of `step` without waiting, into `row`: a picture-only frame drawn now, or a
  /// resumable frame whose weights (and optimizer state, for an exact frame that needs it) are a
  /// copy begun on the backend (row.copy_ticket).
  void begin_frame(PendingRow& row, int64_t step, const ResumePoint& at);
  /// Keeps a frame begun by begin_frame, its copy collected, with `row` as its metrics: its picture
  /// drawn from its weights (a big network's frames after step 0 rounded to keyframes).
  void add_begun(Snapshot frame, const MetricsRow& row);
  /// Renders frame i at w x h from its weights (fp16 ones widened); a picture-only frame's
  /// picture is resampled instead. std::out_of_range for a bad index.
  Image render(size_t i, int32_t w, int32_t h, const RenderOptions& opts);
  /// Where training resumes from frame i: its weights (fp16 ones widened), step and loss; a
  /// resumable frame's optimizer state and update count. std::out_of_range for a bad index,
  /// ConfigError for a picture-only frame (no weights to train on).
  BranchPoint branch_point(size_t i) const;
  /// The state a checkpoint resumes: its weights, optimizer state and counts (its optimizer_step,
  /// or its step when that is unknown), the loss of its last row. CheckpointError when the model
  /// cannot take it (check_restorable).
  TrainingState resume_state(const Checkpoint& ckpt) const;
  /// Completes `st` with zeros for every optimizer array it lacks; true when any was missing.
  bool zero_fill(OptimizerState& st) const;

private:
  bool needs_optimizer(const ResumePoint& at) const;
  FramePicture picture(const NetworkView& view);

  Backend& m_backend;
  ModelSpec m_model;
  std::vector<float> m_fourier_b;
  OptimizerSpec m_optimizer;
  int m_optimizer_arrays;
  int64_t m_metrics_every;
  int32_t m_width, m_height;
  SnapshotPolicy m_policy;
  bool m_policy_custom = false;
  SnapshotStore m_store;
  size_t m_large_frame_bytes = k_large_frame_bytes;
};

/// Lends a trainer's frames, and optionally its good state's buffers, to a checkpoint being saved,
/// so a save holds no second copy of them; the destructor gives them back (also when the save
/// throws). The store and the buffers must not be used while lent.
class CheckpointLoan {
public:
  /// Moves `frames`' frames into c.snapshots.
  CheckpointLoan(Checkpoint& c, SnapshotStore& frames);
  /// Moves `params` and `optimizer` into c.params and c.optimizer.
  void lend_state(std::vector<float>& params, OptimizerState& optimizer);
  ~CheckpointLoan();
  CheckpointLoan(const CheckpointLoan&) = delete;
  CheckpointLoan& operator=(const CheckpointLoan&) = delete;

private:
  Checkpoint& m_c;
  SnapshotStore& m_frames;
  std::vector<float>* m_params = nullptr;
  OptimizerState* m_optimizer = nullptr;
};

/// Throws CheckpointError unless `ckpt` can be restored onto a network of `model`: the same colour
/// mode and shape, sound weights and optimizer values, and frames of the model's weight count.
void check_restorable(const Checkpoint& ckpt, const ModelSpec& model);

} // namespace redraw
