#include "engine/training/metric_sampler.h"
#include "engine/training/measured_row.h"

#include "engine/images/image.h"
#include "engine/loss_math.h"
#include "engine/pixel_sample.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace redraw {

void ErrorSums::add(const LossParams& p, const float* pred, const float* target, int64_t n) {
  for (int64_t e = 0; e < n; ++e) {
    loss += double(loss_value<float>(p, pred[e], target[e]));
    const double d = double(rd_clamp(pred[e], 0.0f, 1.0f)) - double(target[e]);
    se += d * d;
  }
}

ErrorMeans ErrorSums::means(int64_t count) const {
  const double n = double(std::max<int64_t>(count, 1));
  return {loss / n, se / n};
}

MetricSampler::MetricSampler(Backend& backend, const Dataset& data, const LossParams& loss, int64_t sample_pixels)
    : m_backend(backend), m_data(data), m_loss_params(loss) {
  const Image& img = data.image;
  const int32_t C = data.channels();
  // A fixed seed, not the run's: runs of different seeds are measured on the same pixels.
  const PixelSample sample = stratified_pixel_sample(img.width, img.height, sample_pixels, 0);
  m_whole = sample.whole;
  if (m_whole) return; // rows measure every pixel through the backend
  const size_t n = sample.indices.size();
  m_coords.resize(2 * n);
  m_targets.resize(n * size_t(C));
  for (size_t i = 0; i < n; ++i) {
    const int64_t k = sample.indices[i];
    data.coordinate(k, m_coords[2 * i], m_coords[2 * i + 1]);
    std::copy_n(data.targets() + k * C, C, m_targets.begin() + std::ptrdiff_t(i * size_t(C)));
  }
}

ErrorMeans MetricSampler::sample_error() {
  const int64_t n = sample_size();
  m_pred.resize(size_t(n) * size_t(m_data.channels())); // reused: no fresh pages every row
  m_backend.predict_bound(m_coords.data(), n, m_pred.data());
  ErrorSums sums;
  sums.add(m_loss_params, m_pred.data(), m_targets.data(), int64_t(m_pred.size()));
  return sums.means(int64_t(m_pred.size()));
}

double MetricSampler::dataset_loss(const ModelSpec& model, std::span<const float> fourier_b) {
  const int64_t n = m_data.size();
  const int32_t C = m_data.channels();
  const std::vector<float> params = m_backend.parameters();
  constexpr int64_t k_rows = int64_t(1) << 16;
  std::vector<float> coords(size_t(std::min(n, k_rows)) * 2), pred(size_t(std::min(n, k_rows)) * size_t(C));
  double sum = 0;
  for (int64_t r0 = 0; r0 < n; r0 += k_rows) {
    const int64_t rows = std::min(k_rows, n - r0);
    for (int64_t i = 0; i < rows; ++i)
      m_data.coordinate(r0 + i, coords[size_t(2 * i)], coords[size_t(2 * i + 1)]);
    m_backend.predict(model, params, fourier_b, coords.data(), rows, pred.data());
    const float* t = m_data.targets() + r0 * C;
    for (int64_t e = 0; e < rows * C; ++e)
      sum += double(loss_value<float>(m_loss_params, pred[size_t(e)], t[e]));
  }
  return sum / (double(n) * C);
}

ErrorMeans MetricSampler::png_error(const NetworkView& net, const ByteSink& sink) {
  const int32_t w = m_data.image.width, h = m_data.image.height, C = m_data.channels();
  ErrorSums sums;
  render_png_tiles(m_backend, net, w, h, C, sink, [&](int32_t y0, int32_t y1, const float* values) {
    sums.add(m_loss_params, values, m_data.targets() + int64_t(y0) * w * C, int64_t(y1 - y0) * w * C);
  });
  return sums.means(int64_t(w) * h * C);
}

MetricsRow measured_row(int64_t step, double loss, double mse, bool exact) {
  MetricsRow row;
  row.step = step;
  row.loss = loss;
  row.psnr_db = psnr_db(mse);
  row.psnr_exact = exact;
  return row;
}

MetricsRow MetricSampler::measure(int64_t step, bool exact, const ErrorMeans* given, const ModelSpec& model,
                                  std::span<const float> fourier_b) {
  exact = exact || m_whole || given;
  std::optional<ErrorMeans> sampled;
  if (!exact) {
    const auto t0 = std::chrono::steady_clock::now();
    sampled = sample_error();
    m_row_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++m_rows;
  }
  // No step has reported a loss at this count (the untrained network, or a run stopped between
  // metrics steps): the loss of the current weights, not an older step's.
  if (m_loss_step != step) {
    m_loss = given ? given->loss : exact ? dataset_loss(model, fourier_b) : sampled->loss;
    m_loss_step = step;
  }
  return measured_row(step, m_loss, given ? given->mse : exact ? m_backend.dataset_mse() : sampled->mse, exact);
}

void MetricSampler::recall_loss(double loss, int64_t step) {
  m_loss = loss;
  m_loss_step = std::isnan(loss) ? -1 : step;
}

std::optional<double> MetricSampler::lr_reaching(int64_t step) const {
  if (m_lr_step == step && step > 0) return m_lr;
  return std::nullopt;
}

} // namespace redraw
