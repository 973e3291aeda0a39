// The Trainer's measurements: the metrics rows on the fixed pixel sample, the exact loss and PSNR
// over every pixel, the loss of every step, and the schedule's position under a time budget.
#include "engine/trainer.h"

#include <chrono>

#include "engine/loss_math.h"
#include "engine/pixel_sample.h"

#include <algorithm>
#include <chrono>
#include <limits>

namespace redraw {

void Trainer::prepare_metric_sample() {
  const Image& img = m_data.image;
  const int32_t C = m_data.channels();
  // A fixed seed, not the run's: runs of different seeds are measured on the same pixels.
  const PixelSample sample = stratified_pixel_sample(img.width, img.height, m_sample_pixels, 0);
  m_sample_whole = sample.whole;
  if (m_sample_whole) return; // rows measure every pixel through the backend
  const size_t n = sample.indices.size();
  m_sample_coords.resize(2 * n);
  m_sample_targets.resize(n * size_t(C));
  for (size_t i = 0; i < n; ++i) {
    const int64_t k = sample.indices[i];
    m_data.coordinate(k, m_sample_coords[2 * i], m_sample_coords[2 * i + 1]);
    std::copy_n(m_data.targets() + k * C, C, m_sample_targets.begin() + std::ptrdiff_t(i * size_t(C)));
  }
}

std::pair<double, double> Trainer::sample_error() {
  const int64_t n = int64_t(m_sample_coords.size() / 2);
  const int32_t C = m_data.channels();
  std::vector<float>& pred = m_sample_pred; // reused: no fresh pages every row
  pred.resize(size_t(n) * size_t(C));
  m_backend->predict_bound(m_sample_coords.data(), n, pred.data());
  ErrorSums sums;
  sums.add(m_config.loss, pred.data(), m_sample_targets.data(), int64_t(pred.size()));
  const double count = double(std::max<size_t>(pred.size(), 1));
  return {sums.loss / count, sums.se / count};
}

void Trainer::ErrorSums::add(const LossParams& p, const float* pred, const float* target, int64_t n) {
  for (int64_t e = 0; e < n; ++e) {
    loss += double(loss_value<float>(p, pred[e], target[e]));
    const double d = double(rd_clamp(pred[e], 0.0f, 1.0f)) - double(target[e]);
    se += d * d;
  }
}

double Trainer::dataset_loss() {
  const int64_t n = m_data.size();
  const int32_t C = m_data.channels();
  const std::vector<float> params = m_backend->parameters();
  constexpr int64_t k_rows = int64_t(1) << 16;
  std::vector<float> coords(size_t(std::min(n, k_rows)) * 2), pred(size_t(std::min(n, k_rows)) * size_t(C));
  double sum = 0;
  for (int64_t r0 = 0; r0 < n; r0 += k_rows) {
    const int64_t rows = std::min(k_rows, n - r0);
    for (int64_t i = 0; i < rows; ++i)
      m_data.coordinate(r0 + i, coords[size_t(2 * i)], coords[size_t(2 * i + 1)]);
    m_backend->predict(m_config.model, params, m_fourier_b, coords.data(), rows, pred.data());
    const float* t = m_data.targets() + r0 * C;
    for (int64_t e = 0; e < rows * C; ++e)
      sum += double(loss_value<float>(m_config.loss, pred[size_t(e)], t[e]));
  }
  return sum / (double(n) * C);
}

MetricsRow Trainer::measure_row(bool exact, const WholeImageError* given) {
  m_backend->synchronize();
  if (auto sample = m_backend->poll_loss()) {
    m_last_loss = sample->loss;
    m_last_loss_step = sample->step + 1;
    m_nonfinite_seen = m_nonfinite_seen || sample->nonfinite;
  }
  exact = exact || m_sample_whole || given;
  std::optional<std::pair<double, double>> sampled;
  if (!exact) {
    const auto t0 = std::chrono::steady_clock::now();
    sampled = sample_error();
    m_metric_row_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++m_metric_rows;
  }
  // No step has reported a loss at this count (the untrained network, or a run stopped between
  // metrics steps): the loss of the current weights, not an older step's.
  if (m_last_loss_step != m_step) {
    m_last_loss = given ? given->loss : exact ? dataset_loss() : sampled->first;
    m_last_loss_step = m_step;
  }
  MetricsRow row;
  row.step = m_step;
  row.loss = m_last_loss;
  row.psnr_db = psnr_from_mse(given ? given->mse : exact ? m_backend->dataset_mse() : sampled->second);
  row.psnr_exact = exact;
  row.lr = last_step_lr();
  row.seconds = elapsed_seconds();
  return row;
}

void Trainer::take_step_loss() {
  const std::optional<LossSample> sample = m_backend->poll_loss();
  if (!sample) return;
  m_last_loss = sample->loss;
  m_last_loss_step = sample->step + 1;
  m_nonfinite_seen = m_nonfinite_seen || sample->nonfinite;
  m_loss_trace.record(sample->step + 1, float(sample->loss));
}

double Trainer::last_step_lr() const {
  return m_last_lr_step == m_step && m_step > 0 ? m_last_lr : learning_rate_at(std::max<int64_t>(0, m_step - 1));
}

void Trainer::set_time_budget(double seconds) {
  m_budget_seconds = seconds > 0 ? seconds : 0;
  m_budget_start_seconds = elapsed_seconds();
  m_budget_start_step = m_step;
}

double Trainer::time_budget_left() const {
  if (m_budget_seconds <= 0) return std::numeric_limits<double>::infinity();
  return m_budget_seconds - (elapsed_seconds() - m_budget_start_seconds);
}

int64_t Trainer::schedule_step() const {
  if (m_budget_seconds <= 0) return m_step;
  return budget_schedule_step(m_step, m_config.training.steps, m_budget_start_step,
                              elapsed_seconds() - m_budget_start_seconds, m_budget_seconds);
}

} // namespace redraw
