#include "engine/training/trainer.h"

#include "engine/backend_names.h"
#include "engine/errors.h"
#include "engine/pixel_sample.h"
#include "engine/training/growth_step.h"
#include "engine/training/run_loop.h"

#include <limits>

namespace redraw {

double psnr_from_mse(double mse) { return psnr_db(mse); }

namespace {
constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();
/// The config with the data's channel count. Auto stays Auto (it resolves the same way from the
/// same image on resume, and a UI comparing configs sees the mode the user chose).
RunConfig fitted_to(RunConfig c, const Dataset& data) {
  if (const std::string why = grow_problem(c); !why.empty()) throw ConfigError(why);
  c.model.output_channels = data.channels();
  if (c.data.color_mode != ColorMode::Auto && channels_of(c.data.color_mode) != data.channels())
    c.data.color_mode = data.channels() == 3 ? ColorMode::Rgb : ColorMode::Gray;
  return c;
}
int64_t sample_pixels(const RunConfig& c, const Backend& b) {
  return metric_sample_pixels(backend_batch(c.training, b.name()));
}
/// Configures `b` for the run; true when it measures rows inside its steps (lagged rows).
bool configured(Backend& b, const RunConfig& c, const Dataset& data) {
  b.configure({c.model, c.loss, c.optimizer, backend_batch(c.training, b.name()), c.training.seed, sample_pixels(c, b)},
              data);
  return b.supports(BackendFeature::StepMetrics);
}
} // namespace

Trainer::Trainer(std::unique_ptr<Backend> backend, RunConfig config, Dataset data)
    : m_backend(backend ? std::move(backend) : throw BackendError("trainer: no backend")),
      m_data_owner(std::make_shared<const Dataset>(std::move(data))), m_data(*m_data_owner),
      m_config(fitted_to(std::move(config), m_data)), m_step_metrics(configured(*m_backend, m_config, m_data)),
      m_fourier_b(fourier_matrix(m_config.model.encoding, m_config.training.seed)),
      m_schedule(make_schedule(m_config.schedule, m_config.training.steps)),
      m_sampler(*m_backend, m_data, m_config.loss, sample_pixels(m_config, *m_backend)), m_lagged(*m_backend),
      m_guard(m_config.training), m_frames(*m_backend, m_config, m_fourier_b, m_data.image.width, m_data.image.height) {
  reset();
}

void Trainer::reset() {
  TrainingState start{0, 0, k_nan, initial_parameters(m_config.model, m_config.training.seed), {}};
  m_frames.zero_fill(start.optimizer);
  set_state(start);
  m_clock.restart_at(0);
  m_record.clear();
  m_frames.store().clear();
  m_guard.reset();
  m_guard.keep(std::move(start)); // the first good state: its own arrays, not a copy read back
}

std::optional<MetricsRow> Trainer::step() {
  if (stop_requested()) return std::nullopt;
  if (m_step_metrics) return step_lagged();
  measure_untrained();
  m_clock.tick();
  const StepPlan plan = plan_step(m_step, m_config.training.steps, m_config.training.metrics_every, m_frames.policy());
  StepArgs args;
  args.record_loss = true; // every step's loss, for the loss trace
  args.stop = m_stop;      // a CPU step may be left between its chunks
  if (!train_step_now(args)) return std::nullopt;
  if (auto s = poll_loss()) m_record.record_loss(s->step + 1, float(s->loss));
  grow_if_due(); // before the row: the row and frame of this step show the grown picture
  if (!plan.measure && !plan.snapshot) return std::nullopt;
  return accept_row(measure_row(), plan.measure, plan.snapshot, std::nullopt); // the only wait for the device
}

std::optional<MetricsRow> Trainer::step_lagged() {
  if (!m_lagged.awaiting()) measure_untrained(); // off the clock, as in step()
  m_clock.tick();
  std::optional<MetricsRow> out;
  // A row is due but the previous one has not arrived (the device is more than a metrics interval
  // behind): wait for that one first, so at most one row is in flight. This may recover, which
  // moves m_step back: everything below reads the step afterwards.
  if (m_lagged.due_at(m_step) && m_lagged.awaiting()) out = finish_awaited(true);
  measure_untrained();
  const StepPlan plan = plan_step(m_step, m_config.training.steps, m_config.training.metrics_every, m_frames.policy());
  // It measures the row due at its starting count; the next step measures the grown picture, as
  // in step(). A step abandoned (the stop flag) grows nothing: its count may have grown already.
  if (train_step_now(m_lagged.begin_step(m_step))) grow_if_due();
  if (plan.measure || plan.snapshot) {
    PendingRow& due = m_lagged.expect(m_step, plan.measure, m_clock.elapsed(), m_sampler.last_lr());
    if (plan.snapshot) m_frames.begin_frame(due, m_step, resume_point()); // nothing waits for its copy
  }
  if (!out && m_lagged.awaiting()) out = finish_awaited(false);
  return out;
}

bool Trainer::train_step_now(StepArgs args) {
  args.step = m_step;
  args.optimizer_step = m_optimizer_step;
  args.learning_rate = float(learning_rate_at(schedule_step()));
  if (!m_backend->train_step(args)) return false;
  m_sampler.note_lr(++m_step, args.learning_rate);
  ++m_optimizer_step;
  m_guard.apply_injected_nan(*m_backend, m_step);
  return true;
}

void Trainer::grow_if_due() {
  if (!grow_due_at(m_config, schedule_step(), int64_t(m_record.growth().size()))) return;
  if (const std::optional<GrowthEvent> e = grow_bound_primitives(*m_backend, m_config, m_data, m_step))
    m_record.record_growth(*e);
}

std::optional<LossSample> Trainer::poll_loss() {
  std::optional<LossSample> s = m_backend->poll_loss();
  if (s) m_sampler.note_loss(*s), m_guard.note_nonfinite(s->nonfinite);
  return s;
}

std::optional<MetricsRow> Trainer::accept_row(const MetricsRow& row, bool metrics, bool snap,
                                              std::optional<Snapshot> taken) {
  if (const std::string why = m_guard.divergence_reason(row, m_step); !why.empty()) {
    recover(why);
    return std::nullopt;
  }
  if (metrics) m_record.record(row);
  if (taken)
    m_frames.add_begun(std::move(*taken), row);
  else if (snap)
    m_frames.record(m_step, row, resume_point());
  if (metrics && !m_guard.worse_than_start(row, m_step))
    m_guard.maybe_refresh(*m_backend, m_step, m_optimizer_step, m_sampler.last_loss());
  return metrics ? std::optional<MetricsRow>(row) : std::nullopt;
}

std::optional<MetricsRow> Trainer::finish_awaited(bool wait) {
  std::optional<ArrivedRow> a = m_lagged.finish_awaited(wait);
  if (!a) return std::nullopt;
  m_sampler.note_loss(a->sample);
  m_guard.note_nonfinite(a->sample.nonfinite);
  return accept_row(a->row, a->metrics, false, std::move(a->snapshot));
}

std::vector<MetricsRow> Trainer::flush_metrics() {
  std::vector<MetricsRow> rows;
  if (auto r = finish_awaited(true)) rows.push_back(*r);
  if (std::optional<PendingRow> due = m_lagged.take_due(m_step)) {
    MetricsRow row = measure_row();
    row.seconds = due->seconds;
    if (auto r = accept_row(row, due->metrics, false, std::move(due->snapshot))) rows.push_back(*r);
  }
  m_lagged.drop_due();
  return rows;
}

void Trainer::measure_untrained() {
  if (m_step != 0) return;
  const bool frame = m_frames.store().empty() && m_frames.should_snapshot(0);
  if (!frame && m_guard.knows_start()) return;
  const MetricsRow row = measure_row(); // before the clock starts: the first step's time is a step's
  m_guard.note_start(row.psnr_db);
  if (frame) m_frames.record(m_step, row, resume_point());
}

MetricsRow Trainer::measure_row(bool exact, const ErrorMeans* given) {
  m_backend->synchronize();
  poll_loss();
  MetricsRow row = m_sampler.measure(m_step, exact, given, m_config.model, m_fourier_b);
  row.lr = m_sampler.lr_reaching(m_step).value_or(learning_rate_at(std::max<int64_t>(0, m_step - 1)));
  row.seconds = m_clock.elapsed();
  return row;
}

MetricsRow Trainer::measure() {
  (void)flush_metrics();
  ensure_finite();
  return record_exact(nullptr);
}

MetricsRow Trainer::record_exact(const ErrorMeans* given) {
  const MetricsRow row = measure_row(true, given);
  m_record.record(row);
  return row;
}

void Trainer::run(int64_t n, const std::function<bool()>& should_stop) {
  RunLoop loop(*this);
  loop.set_end_step(RunLoop::k_no_end_step);
  loop.set_step_count(n);
  LoopEvents events;
  if (should_stop) events.may_step = [&should_stop] { return !should_stop(); };
  if (loop.slice(events) == LoopEnd::Diverged || !loop.settle(events)) throw DivergedError(loop.diverged());
}

bool Trainer::ensure_finite() {
  m_backend->synchronize();
  poll_loss();
  const std::string why = m_guard.check(*m_backend);
  if (why.empty()) return false;
  recover(why);
  return true;
}

void Trainer::recover(const std::string& reason) {
  const int64_t found_at = m_step;
  set_state(m_guard.good()); // back to it first: even a run that stops here holds finite weights
  m_record.truncate_after(m_step);
  m_frames.store().truncate_after(m_step);
  m_guard.record_recovery(reason, found_at, m_clock.elapsed());
}

void Trainer::set_state(const TrainingState& s) {
  m_lagged.drop();
  m_backend->synchronize();
  m_backend->set_parameters(s.params);
  m_backend->set_optimizer_state(s.optimizer);
  (void)m_backend->poll_loss();
  m_guard.clear_nonfinite();
  m_step = s.step;
  m_optimizer_step = s.optimizer_step;
  m_sampler.forget_lr();
  m_sampler.recall_loss(s.loss, s.step);
}

bool Trainer::branch_from_snapshot(size_t i) {
  BranchPoint b = m_frames.branch_point(i);
  set_state(b.state);
  m_clock.restart_at(b.seconds);
  m_record.truncate_after(m_step);
  m_frames.store().truncate_after(m_step);
  m_guard.branch_at(m_step, b.lr_scale); // a new line of training: later recoveries did not happen on it
  m_guard.keep(std::move(b.state));
  return b.lr_scale.has_value();
}

void Trainer::set_schedule(const ScheduleSpec& spec) {
  m_schedule = make_schedule(spec, m_config.training.steps); // a bad spec throws before anything changes
  m_config.schedule = spec;
}

void Trainer::set_total_steps(int64_t steps) {
  if (steps < 0) throw ConfigError("training.steps: must not be negative");
  m_config.training.steps = steps;
  m_schedule = make_schedule(m_config.schedule, steps);
  m_frames.set_total_steps(steps);
}

NetworkView Trainer::finite_live_view() {
  if (!m_backend->parameters_sound()) ensure_finite(); // back to the last good state
  return bound_network(m_config.model); // the training weights where they are: no copy of a photo-sized table
}

std::vector<uint8_t> Trainer::render_png(int32_t w, int32_t h) {
  std::vector<uint8_t> out;
  render_png(w, h, [&](const uint8_t* d, size_t n) { out.insert(out.end(), d, d + n); });
  return out;
}

MetricsRow Trainer::render_png_measured(const ByteSink& sink) {
  (void)flush_metrics();
  const ErrorMeans whole = m_sampler.png_error(finite_live_view(), sink);
  return record_exact(&whole);
}

Checkpoint Trainer::checkpoint(const std::string& source_image) {
  Checkpoint c = checkpoint_base(source_image);
  c.params = m_backend->parameters();
  c.optimizer = m_backend->optimizer_state();
  c.snapshots = m_frames.store().frames();
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
  c.seconds = m_clock.elapsed();
  c.history = m_record.rows();
  c.loss_trace = m_record.losses();
  m_guard.save_into(c);
  return c;
}

void Trainer::lend_state(CheckpointLoan& loan, Checkpoint& c) {
  // The current state becomes the good state when it qualifies (sound, not worse than the start).
  const bool qualifies = !m_record.rows().empty() && !m_guard.worse_than_start(m_record.rows().back(), m_step);
  if (qualifies && m_guard.refresh(*m_backend, m_step, m_optimizer_step, m_sampler.last_loss())) {
    loan.lend_state(m_guard.good().params, m_guard.good().optimizer);
  } else {
    c.params = m_backend->parameters();
    c.optimizer = m_backend->optimizer_state();
  }
}

void Trainer::restore(const Checkpoint& ckpt) {
  TrainingState at = m_frames.resume_state(ckpt);
  set_state(at);
  m_sampler.recall_loss(at.loss, ckpt.history.empty() ? -1 : ckpt.history.back().step); // its last row's step
  m_clock.restart_at(ckpt.seconds);
  m_record.assign(ckpt.history, ckpt.loss_trace, m_step);
  m_record.assign_growth(growth_events_until(m_config, m_step));
  m_frames.store().assign(ckpt.snapshots);
  m_guard.restore(ckpt);
  m_guard.keep(std::move(at));
}

} // namespace redraw
