#include "engine/training/snapshot_keeper.h"

#include "engine/errors.h"
#include "engine/images/resample.h"

#include <limits>

namespace redraw {

SnapshotKeeper::SnapshotKeeper(Backend& backend, const RunConfig& config, std::span<const float> fourier_b,
                               int32_t width, int32_t height)
    : m_backend(backend), m_model(config.model), m_fourier_b(fourier_b.begin(), fourier_b.end()),
      m_optimizer(config.optimizer), m_optimizer_arrays(optimizer_state_arrays(config.optimizer)),
      m_metrics_every(config.training.metrics_every), m_width(width), m_height(height),
      m_policy(SnapshotPolicy::for_run(config.training.steps, config.training.metrics_every)) {}

void SnapshotKeeper::set_policy(const SnapshotPolicy& policy) {
  m_policy = policy;
  m_policy_custom = true;
}

void SnapshotKeeper::set_total_steps(int64_t steps) {
  if (!m_policy_custom) m_policy = SnapshotPolicy::for_run(steps, m_metrics_every);
}

bool SnapshotKeeper::big_frames() const {
  const auto arrays = size_t(1 + m_optimizer_arrays);
  return size_t(m_backend.parameter_count()) * sizeof(float) * arrays > m_large_frame_bytes;
}

bool SnapshotKeeper::keeps_weights(int64_t step) const {
  return step <= 0 || (step & (step - 1)) == 0 || !big_frames();
}

bool SnapshotKeeper::needs_optimizer(const ResumePoint& at) const {
  // A state zeroed since (reset, a restart) is all zeros: empty arrays say so for free.
  return at.optimizer_step > 0 && m_optimizer_arrays > 0;
}

FramePicture SnapshotKeeper::picture(const NetworkView& view) {
  int32_t w = 0, h = 0;
  frame_picture_size(m_width, m_height, w, h);
  return to_frame_picture(render_image(m_backend, view, w, h));
}

void SnapshotKeeper::record(int64_t step, const MetricsRow& row, const ResumePoint& at) {
  const bool weights = keeps_weights(step);
  Snapshot s;
  s.metrics = row;
  if (weights) s.params = m_backend.parameters();
  // The picture of the live weights, drawn from the backend's in place (the same chunks, so the
  // same bits as from a copy), without a workspace of its own each frame.
  s.picture = picture(bound_network(m_model));
  if (!weights) {
    m_store.add(std::move(s));
    return;
  }
  if (big_frames() && step > 0) {
    make_keyframe(s);
  } else {
    s.resumable = true;
    s.optimizer_step = at.optimizer_step;
    s.lr_scale = at.lr_scale;
    if (needs_optimizer(at)) s.optimizer = m_backend.optimizer_state();
  }
  m_store.add(std::move(s));
}

void SnapshotKeeper::begin_frame(PendingRow& row, int64_t step, const ResumePoint& at) {
  Snapshot frame;
  if (!keeps_weights(step)) { // a large network's picture-only frame, drawn now
    frame.picture = picture(bound_network(m_model));
  } else {
    frame.resumable = true;
    frame.optimizer_step = at.optimizer_step;
    frame.lr_scale = at.lr_scale;
    row.copy_ticket = m_backend.begin_parameter_copy(needs_optimizer(at) && !big_frames());
  }
  row.snapshot = std::move(frame);
}

void SnapshotKeeper::add_begun(Snapshot frame, const MetricsRow& row) {
  frame.metrics = row;
  if (!frame.params.empty()) // a picture-only frame came drawn
    frame.picture = picture(NetworkView{&m_model, frame.params, m_fourier_b});
  if (big_frames() && row.step > 0) make_keyframe(frame);
  m_store.add(std::move(frame));
}

Image SnapshotKeeper::render(size_t i, int32_t w, int32_t h, const RenderOptions& opts) {
  const Snapshot& s = frame(i);
  if (!has_weights(s)) // a picture only: its picture, enlarged (or shrunk) smoothly
    return resample(from_frame_picture(s.picture), w, h, ResampleFilter::Mitchell);
  const std::vector<float> weights = frame_weights(s);
  return render_image(m_backend, NetworkView{&m_model, weights, m_fourier_b}, w, h, opts);
}

BranchPoint SnapshotKeeper::branch_point(size_t i) const {
  const Snapshot& s = frame(i);
  if (!has_weights(s))
    throw ConfigError("the frame at step " + std::to_string(s.metrics.step) +
                      " is a picture only (its weights were not kept): branch from a keyframe");
  BranchPoint b;
  b.state = {s.metrics.step, s.resumable ? s.optimizer_step : 0, s.metrics.loss, frame_weights(s),
             s.resumable ? s.optimizer : OptimizerState{}};
  zero_fill(b.state.optimizer);
  b.seconds = s.metrics.seconds;
  if (s.resumable) b.lr_scale = s.lr_scale;
  return b;
}

TrainingState SnapshotKeeper::resume_state(const Checkpoint& ckpt) const {
  check_restorable(ckpt, m_model);
  TrainingState st{ckpt.step, ckpt.optimizer_step >= 0 ? ckpt.optimizer_step : ckpt.step,
                   ckpt.history.empty() ? std::numeric_limits<double>::quiet_NaN() : ckpt.history.back().loss,
                   ckpt.params, ckpt.optimizer};
  if (zero_fill(st.optimizer)) st.optimizer_step = 0; // no optimizer state (or another's): a fresh one
  return st;
}

bool SnapshotKeeper::zero_fill(OptimizerState& st) const {
  return zero_fill_optimizer_state(st, m_optimizer, size_t(m_backend.parameter_count()));
}

CheckpointLoan::CheckpointLoan(Checkpoint& c, SnapshotStore& frames) : m_c(c), m_frames(frames) {
  m_c.snapshots = m_frames.lend();
}

void CheckpointLoan::lend_state(std::vector<float>& params, OptimizerState& optimizer) {
  m_c.params = std::move(params);
  m_c.optimizer = std::move(optimizer);
  m_params = &params;
  m_optimizer = &optimizer;
}

CheckpointLoan::~CheckpointLoan() {
  m_frames.give_back(std::move(m_c.snapshots));
  if (m_params) *m_params = std::move(m_c.params);
  if (m_optimizer) *m_optimizer = std::move(m_c.optimizer);
}

void check_restorable(const Checkpoint& ckpt, const ModelSpec& model) {
  // A colour model on a grey image (or the reverse) is a colour-mode difference, not a shape one.
  if (ckpt.config.model.output_channels != model.output_channels) {
    const auto mode = [](int32_t channels) { return channels == 1 ? "grey (1 channel)" : "colour (3 channels)"; };
    throw CheckpointError(std::string("colour mode differs: the model draws ") +
                          mode(ckpt.config.model.output_channels) + " but this image is trained as " +
                          mode(model.output_channels) + "; use an image of the model's colour mode");
  }
  const auto mine = dense_layers(model);
  ModelSpec theirs_spec = ckpt.config.model;
  theirs_spec.output_channels = model.output_channels;
  const auto theirs = dense_layers(theirs_spec);
  bool same = mine.size() == theirs.size() && model.encoding.kind == ckpt.config.model.encoding.kind &&
              ckpt.config.model.output_channels == model.output_channels &&
              parameter_count(theirs_spec) == parameter_count(model);
  for (size_t i = 0; same && i < mine.size(); ++i)
    same = mine[i].in == theirs[i].in && mine[i].out == theirs[i].out && mine[i].activation == theirs[i].activation;
  if (!same)
    throw CheckpointError("the model's network shape (" + std::to_string(ckpt.params.size()) +
                          " parameters) differs from the current configuration");
  if (const int64_t bad = count_unsound(ckpt); bad > 0)
    throw CheckpointError("the model holds " + std::to_string(bad) +
                          " weights or optimizer values that are not finite or past the bounds a model may hold (the "
                          "run that wrote it diverged); it cannot be resumed");
  for (const auto& s : ckpt.snapshots)
    if (has_weights(s) && frame_weight_count(s) != ckpt.params.size())
      throw CheckpointError("a timelapse snapshot has " + std::to_string(frame_weight_count(s)) +
                            " weights; the model has " + std::to_string(ckpt.params.size()));
}

} // namespace redraw
