#include "engine/trainer.h"

#include "engine/errors.h"
#include "engine/stop_signals.h"
#include "engine/loss_math.h"
#include "engine/resample.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace redraw {

double psnr_from_mse(double mse) { return psnr_db(mse); }

Trainer::Trainer(std::unique_ptr<Backend> backend, RunConfig config, Dataset data)
    : m_backend(std::move(backend)), m_config(std::move(config)),
      m_data_owner(std::make_shared<const Dataset>(std::move(data))), m_data(*m_data_owner) {
  if (!m_backend) throw BackendError("trainer: no backend");
  m_config.model.output_channels = m_data.channels();
  // Keep the stored config consistent with the data; Auto stays Auto (it resolves the same way
  // from the same image on resume, and a UI comparing configs sees the mode the user chose).
  if (m_config.data.color_mode != ColorMode::Auto && channels_of(m_config.data.color_mode) != m_data.channels())
    m_config.data.color_mode = m_data.channels() == 3 ? ColorMode::Rgb : ColorMode::Gray;
  TrainSetup setup;
  setup.model = m_config.model;
  setup.loss = m_config.loss;
  setup.optimizer = m_config.optimizer;
  setup.batch_size = m_config.training.batch_for(m_backend->name());
  setup.seed = m_config.training.seed;
  setup.metric_sample_pixels = metric_sample_pixels(setup.batch_size);
  m_sample_pixels = setup.metric_sample_pixels;
  m_backend->configure(setup, m_data);
  m_step_metrics = m_backend->supports(BackendFeature::StepMetrics);
  m_fourier_b = fourier_matrix(m_config.model.encoding, m_config.training.seed);
  m_schedule = make_schedule(m_config.schedule, m_config.training.steps);
  m_policy = SnapshotPolicy::for_run(m_config.training.steps, m_config.training.metrics_every);
  m_trace_losses = !m_step_metrics;
  prepare_metric_sample();
  reset();
}

void Trainer::reset() {
  std::vector<float> initial = initial_parameters(m_config.model, m_config.training.seed);
  m_backend->set_parameters(initial);
  OptimizerState zero;
  const size_t count = size_t(m_backend->parameter_count());
  const int arrays = optimizer_state_arrays(m_config.optimizer);
  if (arrays >= 1) zero.first.assign(count, 0.0f);
  if (arrays >= 2) zero.second.assign(count, 0.0f);
  m_backend->set_optimizer_state(zero);
  (void)m_backend->poll_loss();
  m_step = 0;
  m_optimizer_step = 0;
  m_seconds_before = 0;
  m_clock_start.reset();
  m_history.clear();
  m_loss_trace.clear();
  m_last_lr_step = -1;
  m_snapshots.clear();
  m_last_loss = std::numeric_limits<double>::quiet_NaN();
  m_last_loss_step = -1;
  m_nonfinite_seen = false;
  m_initial_psnr = std::numeric_limits<double>::quiet_NaN();
  m_lr_scale = 1;
  m_recoveries.clear();
  m_recoveries_taken = 0;
  drop_pending_rows();
  // The state just set is the first good state: its own arrays, not a second copy read back.
  keep_good_state(std::move(initial), std::move(zero));
}

std::optional<MetricsRow> Trainer::step() {
  if (stop_requested()) return std::nullopt;
  if (m_step_metrics) return step_lagged();
  measure_untrained();
  tick_clock();
  const StepPlan plan = next_step_plan();
  const bool metrics = plan.measure, snap = plan.snapshot;
  StepArgs args;
  args.record_loss = metrics || snap || m_trace_losses;
  args.stop = m_stop; // a CPU step may be left between its chunks
  if (!train_step_now(args)) return std::nullopt;
  if (m_trace_losses) take_step_loss();
  if (!metrics && !snap) return std::nullopt;
  // The only points where the step's device work is waited on (as before recovery existed).
  return accept_row(measure_row(), metrics, snap, std::nullopt);
}

bool Trainer::train_step_now(StepArgs args) {
  args.step = m_step;
  args.optimizer_step = m_optimizer_step;
  args.learning_rate = float(learning_rate_at(schedule_step()));
  if (!m_backend->train_step(args)) return false;
  ++m_step;
  m_last_lr = args.learning_rate;
  m_last_lr_step = m_step;
  ++m_optimizer_step;
  inject_test_nan();
  return true;
}

StepPlan Trainer::next_step_plan() const {
  return plan_step(m_step, m_config.training.steps, m_config.training.metrics_every, m_policy);
}

std::optional<MetricsRow> Trainer::accept_row(const MetricsRow& row, bool metrics, bool snap,
                                              std::optional<Snapshot> taken) {
  if (const std::string why = divergence_reason(row); !why.empty()) {
    recover(why);
    return std::nullopt;
  }
  if (metrics) {
    if (!m_history.empty() && m_history.back().step == row.step)
      m_history.back() = row;
    else
      m_history.push_back(row);
  }
  if (taken) {
    taken->metrics = row;
    if (!taken->params.empty()) attach_picture(*taken); // a picture-only frame came drawn
    if (big_frames() && row.step > 0) make_keyframe(*taken);
    m_snapshots.add(std::move(*taken));
  } else if (snap) {
    record_snapshot(row);
  }
  if (metrics && !worse_than_start(row)) maybe_keep_good_state();
  if (!metrics) return std::nullopt;
  return row;
}

void Trainer::inject_test_nan() {
  if (m_step != m_inject_nan_at) return;
  m_inject_nan_at = -1; // once: the rerun after the rollback must not meet it again
  std::vector<float> p = m_backend->parameters();
  p[p.size() / 2] = std::numeric_limits<float>::quiet_NaN();
  m_backend->set_parameters(p);
}

std::string Trainer::divergence_reason(const MetricsRow& row) const {
  char b[96];
  if (m_nonfinite_seen || !std::isfinite(row.loss)) {
    if (std::isinf(row.loss)) return row.loss > 0 ? "the loss became inf" : "the loss became -inf";
    return "the loss became nan";
  }
  // psnr_db is +inf for an exact fit (MSE 0), which is no divergence; NaN means the prediction is not finite.
  if (std::isnan(row.psnr_db)) return "the prediction became nan";
  if (worse_than_start(row)) {
    std::snprintf(b, sizeof b, "the picture became worse than the untrained network's: PSNR %.2f dB, %.2f dB at the start",
                  row.psnr_db, m_initial_psnr);
    return b;
  }
  return {};
}

bool Trainer::worse_than_start(const MetricsRow& row) const {
  return m_step >= std::max<int64_t>(1, m_config.training.good_state_every) && std::isfinite(m_initial_psnr) &&
         row.psnr_db < m_initial_psnr - k_worse_than_start_db;
}

void Trainer::keep_good_state(std::vector<float> params, OptimizerState optimizer) {
  m_good.step = m_step;
  m_good.optimizer_step = m_optimizer_step;
  m_good.loss = m_last_loss;
  m_good.params = std::move(params);
  m_good.optimizer = std::move(optimizer);
}

void Trainer::maybe_keep_good_state() {
  if (m_step - m_good.step < std::max<int64_t>(1, m_config.training.good_state_every)) return;
  (void)refresh_good_state();
}

bool Trainer::refresh_good_state() {
  // Into the kept state's own buffers; a non-finite state leaves the good one as it was.
  if (!m_backend->copy_state_if_sound(m_good.params, m_good.optimizer)) return false;
  keep_good_state(std::move(m_good.params), std::move(m_good.optimizer)); // the same buffers, restamped
  return true;
}

void Trainer::recover(const std::string& reason) {
  const int64_t found_at = m_step;
  drop_pending_rows();
  // Back to the good state first, so even a run that stops here holds finite weights.
  m_backend->synchronize();
  m_backend->set_parameters(m_good.params);
  m_backend->set_optimizer_state(m_good.optimizer);
  (void)m_backend->poll_loss();
  m_nonfinite_seen = false;
  m_step = m_good.step;
  m_last_lr_step = -1;
  m_optimizer_step = m_good.optimizer_step;
  m_last_loss = m_good.loss;
  m_last_loss_step = std::isnan(m_good.loss) ? -1 : m_step;
  while (!m_history.empty() && m_history.back().step > m_step) m_history.pop_back();
  m_loss_trace.truncate_after(m_step);
  m_snapshots.truncate_after(m_step);
  const int32_t limit = m_config.training.max_recoveries;
  if (int32_t(m_recoveries.size()) >= limit)
    throw DivergedError("training diverged at step " + std::to_string(found_at) + " (" + reason + ")" +
                        (limit > 0 ? " after " + std::to_string(limit) + " recoveries with a lower learning rate"
                                   : std::string(" and recovery is off (training.max_recoveries 0)")) +
                        "; the weights are back at step " + std::to_string(m_step) +
                        ", the last good state. Try a lower learning rate");
  m_lr_scale *= m_config.training.recovery_lr_factor;
  RecoveryEvent e;
  e.step = found_at;
  e.rolled_back_to = m_step;
  e.lr_scale = m_lr_scale;
  e.seconds = elapsed_seconds();
  e.attempt = int32_t(m_recoveries.size()) + 1;
  e.reason = reason;
  m_recoveries.push_back(std::move(e));
}

std::vector<RecoveryEvent> Trainer::take_new_recoveries() {
  std::vector<RecoveryEvent> out(m_recoveries.begin() + std::ptrdiff_t(std::min(m_recoveries_taken, m_recoveries.size())),
                                 m_recoveries.end());
  m_recoveries_taken = m_recoveries.size();
  return out;
}

bool Trainer::ensure_finite() {
  m_backend->synchronize();
  if (auto sample = m_backend->poll_loss()) {
    m_last_loss = sample->loss;
    m_last_loss_step = sample->step + 1;
    m_nonfinite_seen = m_nonfinite_seen || sample->nonfinite;
  }
  // Looked at in place first (the CPU backend copies nothing): the copies below only count what
  // went wrong, for the message.
  if (!m_nonfinite_seen && m_backend->parameters_sound(true)) return false;
  const std::vector<float> params = m_backend->parameters();
  const OptimizerState opt = m_backend->optimizer_state();
  const int64_t nonfinite = count_nonfinite(params) + count_nonfinite(opt.first) + count_nonfinite(opt.second);
  const int64_t bad = count_unsound(params, k_max_model_weight) + count_unsound(opt.first, k_max_optimizer_value) +
                      count_unsound(opt.second, k_max_optimizer_value);
  if (bad == 0 && !m_nonfinite_seen) return false;
  char past[96];
  std::snprintf(past, sizeof past, " weights or optimizer values grew past what a model may hold (%g, %g)",
                double(k_max_model_weight), double(k_max_optimizer_value));
  recover(nonfinite > 0 ? std::to_string(nonfinite) + " weights or optimizer values became non-finite"
          : bad > 0     ? std::to_string(bad) + past
                        : "the loss became nan");
  return true;
}

void Trainer::measure_untrained() {
  if (m_step != 0) return;
  const bool frame = m_snapshots.empty() && m_policy.should_snapshot(0);
  if (!frame && !std::isnan(m_initial_psnr)) return;
  // Measurements, not training: they run before the clock starts, so the first step's time is a
  // step's (it used to carry two dataset passes and the frame's copy, 1.7x a normal step).
  MetricsRow row = measure_row(); // the loss of the untrained network over the whole image
  if (std::isnan(m_initial_psnr)) m_initial_psnr = row.psnr_db;
  if (frame) record_snapshot(row);
}

void Trainer::record_snapshot(const std::optional<MetricsRow>& measured) {
  const MetricsRow row = measured ? *measured : measure_row();
  if (!frame_keeps_weights(m_step)) {
    Snapshot s = live_picture_frame();
    s.metrics = row;
    m_snapshots.add(std::move(s));
    return;
  }
  Snapshot s;
  s.metrics = row;
  s.params = m_backend->parameters();
  // The frame's weights are the live ones: its picture is drawn from the backend's weights in
  // place (the same chunks, so the same bits), without a workspace of its own each frame.
  s.picture = live_picture();
  if (big_frames() && m_step > 0)
    make_keyframe(s);
  else
    keep_resume_state(s);
  m_snapshots.add(std::move(s));
}

bool Trainer::big_frames() const {
  const auto arrays = size_t(1 + optimizer_state_arrays(m_config.optimizer));
  return size_t(m_backend->parameter_count()) * sizeof(float) * arrays > m_large_frame_bytes;
}

bool Trainer::frame_keeps_weights(int64_t step) const {
  return step <= 0 || (step & (step - 1)) == 0 || !big_frames();
}

Snapshot Trainer::live_picture_frame() {
  Snapshot s;
  s.picture = live_picture();
  return s;
}

FramePicture Trainer::live_picture() {
  int32_t w = 0, h = 0;
  frame_picture_size(m_data.image.width, m_data.image.height, w, h);
  return to_frame_picture(render_image(*m_backend, bound_network(m_config.model), w, h)); // weights in place
}

void Trainer::attach_picture(Snapshot& s) {
  int32_t w = 0, h = 0;
  frame_picture_size(m_data.image.width, m_data.image.height, w, h);
  const NetworkView view{&m_config.model, s.params, m_fourier_b};
  s.picture = to_frame_picture(render_image(*m_backend, view, w, h));
}

void Trainer::keep_resume_state(Snapshot& s) {
  mark_resumable(s);
  if (resume_needs_optimizer()) s.optimizer = m_backend->optimizer_state();
}

void Trainer::mark_resumable(Snapshot& s) const {
  s.resumable = true;
  s.optimizer_step = m_optimizer_step;
  s.lr_scale = m_lr_scale;
}

bool Trainer::resume_needs_optimizer() const {
  // A state zeroed since (reset, a restart) is all zeros: empty arrays say so for free.
  return m_optimizer_step > 0 && optimizer_state_arrays(m_config.optimizer) > 0;
}

Image Trainer::render_snapshot(size_t i, int32_t w, int32_t h, const RenderOptions& opts) {
  const Snapshot& s = snapshot(i);
  if (!has_weights(s)) // a picture only: its picture, enlarged (or shrunk) smoothly
    return resample(from_frame_picture(s.picture), w, h, ResampleFilter::Mitchell);
  const std::vector<float> weights = frame_weights(s);
  const NetworkView view{&m_config.model, weights, m_fourier_b};
  return render_image(*m_backend, view, w, h, opts);
}

bool Trainer::branch_from_snapshot(size_t i) {
  const Snapshot s = snapshot(i); // a copy: the truncation below changes the store
  if (!has_weights(s))
    throw ConfigError("the frame at step " + std::to_string(s.metrics.step) +
                      " is a picture only (its weights were not kept): branch from a keyframe");
  const std::vector<float> weights = frame_weights(s);
  drop_pending_rows();
  m_backend->synchronize();
  m_backend->set_parameters(weights);
  OptimizerState state = s.resumable ? s.optimizer : OptimizerState{};
  const size_t count = size_t(m_backend->parameter_count());
  const int arrays = optimizer_state_arrays(m_config.optimizer);
  if (arrays >= 1 && state.first.size() != count) state.first.assign(count, 0.0f);
  if (arrays >= 2 && state.second.size() != count) state.second.assign(count, 0.0f);
  m_backend->set_optimizer_state(state);
  (void)m_backend->poll_loss();
  m_nonfinite_seen = false;
  m_step = s.metrics.step;
  m_last_lr_step = -1;
  // A frame without its optimizer state restarts Adam from zero moments, so its bias correction
  // must restart too: with the old count (1 - beta^t close to 1) the first updates of the branch
  // would be many times the learning rate.
  m_optimizer_step = s.resumable ? s.optimizer_step : 0;
  m_seconds_before = s.metrics.seconds;
  m_clock_start.reset();
  while (!m_history.empty() && m_history.back().step > m_step) m_history.pop_back();
  m_loss_trace.truncate_after(m_step);
  m_snapshots.truncate_after(m_step);
  m_last_loss = s.metrics.loss;
  m_last_loss_step = std::isnan(s.metrics.loss) ? -1 : m_step;
  // The branch is a new line of training: recoveries after its step did not happen on it.
  while (!m_recoveries.empty() && m_recoveries.back().step > m_step) m_recoveries.pop_back();
  m_recoveries_taken = std::min(m_recoveries_taken, m_recoveries.size());
  m_lr_scale = s.resumable ? s.lr_scale : m_recoveries.empty() ? 1.0 : m_recoveries.back().lr_scale;
  keep_good_state(weights, std::move(state));
  return s.resumable;
}

MetricsRow Trainer::measure() {
  (void)flush_metrics();
  ensure_finite();
  const MetricsRow row = measure_row(true);
  record_measured(row);
  return row;
}

void Trainer::record_measured(const MetricsRow& row) {
  if (!m_history.empty() && m_history.back().step == row.step) {
    m_history.back() = row;
  } else {
    m_history.push_back(row);
  }
}

void Trainer::run(int64_t n, const std::function<bool()>& should_stop) {
  for (int64_t i = 0; i < n; ++i) {
    if (should_stop && should_stop()) break;
    step();
  }
  (void)flush_metrics(); // rows the GPU measured inside its last steps join the history now
  pause_clock();
}

double Trainer::elapsed_seconds() const {
  double s = m_seconds_before;
  if (m_clock_start) s += std::chrono::duration<double>(std::chrono::steady_clock::now() - *m_clock_start).count();
  return s;
}

void Trainer::tick_clock() {
  const auto now = std::chrono::steady_clock::now();
  const uint64_t continues = continue_signals();
  if (!m_clock_start) {
    m_clock_start = now;
    m_last_interval = 0;
  } else {
    const double interval = std::chrono::duration<double>(now - m_last_tick).count();
    if (continues != m_continues_seen) {
      // Stopped since the last step: this interval is counted as long as the one before it.
      m_seconds_before = elapsed_seconds() - interval + std::min(interval, m_last_interval);
      m_clock_start = now;
    } else {
      m_last_interval = interval;
    }
  }
  m_continues_seen = continues;
  m_last_tick = now;
}

void Trainer::pause_clock() {
  if (!m_clock_start) return;
  m_backend->synchronize();
  m_seconds_before = elapsed_seconds();
  m_clock_start.reset();
}

void Trainer::set_schedule(const ScheduleSpec& spec) {
  auto schedule = make_schedule(spec, m_config.training.steps);
  m_config.schedule = spec;
  m_schedule = std::move(schedule);
}

void Trainer::set_total_steps(int64_t steps) {
  if (steps < 0) throw ConfigError("training.steps: must not be negative");
  m_config.training.steps = steps;
  m_schedule = make_schedule(m_config.schedule, steps);
  if (!m_policy_custom) m_policy = SnapshotPolicy::for_run(steps, m_config.training.metrics_every);
}

NetworkView Trainer::finite_live_view() {
  if (!m_backend->parameters_sound()) ensure_finite(); // back to the last good state
  return bound_network(m_config.model); // the training weights where they are: no copy of a photo-sized table
}

Image Trainer::render(int32_t w, int32_t h, const RenderOptions& opts) {
  return render_image(*m_backend, finite_live_view(), w, h, opts);
}

std::vector<uint8_t> Trainer::render_png(int32_t w, int32_t h) {
  std::vector<uint8_t> out;
  render_png(w, h, [&](const uint8_t* d, size_t n) { out.insert(out.end(), d, d + n); });
  return out;
}

void Trainer::render_png(int32_t w, int32_t h, const ByteSink& sink) { render_png_bands(w, h, sink, {}); }

void Trainer::render_png_bands(int32_t w, int32_t h, const ByteSink& sink,
                               const std::function<void(int32_t, int32_t, const float*)>& band) {
  const NetworkView view = finite_live_view();
  encode_png_rows(sink, w, h, m_data.channels(), 8, [&](const auto& write) {
    render_tiles(*m_backend, view, w, h, RenderOptions{}, [&](int32_t y0, int32_t y1, const float* values) {
      if (band) band(y0, y1, values);
      write(values, y1 - y0);
    });
  });
}

MetricsRow Trainer::render_png_measured(const ByteSink& sink) {
  (void)flush_metrics();
  const int32_t w = m_data.image.width, h = m_data.image.height, C = m_data.channels();
  // Summed in float64 in pixel order, band by band: the same bits at any thread count.
  ErrorSums sums;
  render_png_bands(w, h, sink, [&](int32_t y0, int32_t y1, const float* values) {
    sums.add(m_config.loss, values, m_data.targets() + int64_t(y0) * w * C, int64_t(y1 - y0) * w * C);
  });
  const double count = double(std::max<int64_t>(int64_t(w) * h * C, 1));
  const WholeImageError whole{sums.loss / count, sums.se / count};
  const MetricsRow row = measure_row(true, &whole);
  record_measured(row);
  return row;
}

Checkpoint Trainer::checkpoint(const std::string& source_image) {
  Checkpoint c = checkpoint_base(source_image);
  copy_state(c);
  c.snapshots = m_snapshots.frames();
  return c;
}

Checkpoint Trainer::checkpoint_base(const std::string& source_image) {
  (void)flush_metrics(); // the history it saves is complete up to the current step
  ensure_finite();
  Checkpoint c;
  c.config = m_config;
  c.image_width = m_data.image.width;
  c.image_height = m_data.image.height;
  c.source_image = source_image;
  c.step = m_step;
  c.optimizer_step = m_optimizer_step;
  c.seconds = elapsed_seconds();
  c.history = m_history;
  c.loss_trace = m_loss_trace;
  c.lr_scale = m_lr_scale;
  c.recoveries = m_recoveries;
  c.initial_psnr_db = m_initial_psnr;
  return c;
}

void Trainer::copy_state(Checkpoint& c) {
  c.params = m_backend->parameters();
  c.optimizer = m_backend->optimizer_state();
}

bool Trainer::lend_state(Checkpoint& c) {
  const bool qualifies = !m_history.empty() && !worse_than_start(m_history.back());
  if (!qualifies || !refresh_good_state()) {
    copy_state(c);
    return false;
  }
  c.params = std::move(m_good.params);
  c.optimizer = std::move(m_good.optimizer);
  return true;
}

void Trainer::take_back_state(Checkpoint& c) {
  m_good.params = std::move(c.params);
  m_good.optimizer = std::move(c.optimizer);
}

void Trainer::restore(const Checkpoint& ckpt) {
  // A colour model on a grey image (or the reverse) is a colour-mode difference, not a shape one.
  if (ckpt.config.model.output_channels != m_config.model.output_channels) {
    const auto mode = [](int32_t channels) { return channels == 1 ? "grey (1 channel)" : "colour (3 channels)"; };
    throw CheckpointError(std::string("colour mode differs: the model draws ") + mode(ckpt.config.model.output_channels) +
                          " but this image is trained as " + mode(m_config.model.output_channels) +
                          "; use an image of the model's colour mode");
  }
  const auto mine = dense_layers(m_config.model);
  ModelSpec theirs_spec = ckpt.config.model;
  theirs_spec.output_channels = m_config.model.output_channels;
  const auto theirs = dense_layers(theirs_spec);
  bool same = mine.size() == theirs.size() && m_config.model.encoding.kind == ckpt.config.model.encoding.kind &&
              ckpt.config.model.output_channels == m_config.model.output_channels &&
              parameter_count(theirs_spec) == parameter_count(m_config.model);
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
  m_backend->set_parameters(ckpt.params);
  const size_t count = size_t(m_backend->parameter_count());
  OptimizerState st = ckpt.optimizer;
  const int arrays = optimizer_state_arrays(m_config.optimizer);
  bool zeroed = false; // a model without optimizer state (or another optimizer's) starts it afresh
  if (arrays >= 1 && st.first.size() != count) st.first.assign(count, 0.0f), zeroed = true;
  if (arrays >= 2 && st.second.size() != count) st.second.assign(count, 0.0f), zeroed = true;
  m_backend->set_optimizer_state(st);
  (void)m_backend->poll_loss();
  drop_pending_rows();
  m_step = ckpt.step;
  m_optimizer_step = zeroed ? 0 : (ckpt.optimizer_step >= 0 ? ckpt.optimizer_step : ckpt.step);
  m_seconds_before = ckpt.seconds;
  m_clock_start.reset();
  m_history = ckpt.history;
  m_loss_trace = ckpt.loss_trace;
  m_loss_trace.truncate_after(m_step);
  m_last_lr_step = -1;
  m_snapshots.assign(ckpt.snapshots);
  m_last_loss = m_history.empty() ? std::numeric_limits<double>::quiet_NaN() : m_history.back().loss;
  m_last_loss_step = m_history.empty() || std::isnan(m_last_loss) ? -1 : m_history.back().step;
  m_nonfinite_seen = false;
  m_lr_scale = ckpt.lr_scale;
  m_initial_psnr = ckpt.initial_psnr_db;
  m_recoveries = ckpt.recoveries;
  m_recoveries_taken = m_recoveries.size(); // already reported by the run that wrote them
  keep_good_state(ckpt.params, st);
}

} // namespace redraw
