#include "engine/spectrum.h"

#include "engine/errors.h"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <mutex>
#include <sstream>

namespace redraw {
namespace {
/// FFTW's planner is not thread-safe (only fftw_execute is): every plan is made and destroyed
/// under this lock. A file-scope static because the planner it guards is process-wide.
std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}
} // namespace

struct SpectrumAnalyzer::Plan {
  float* real = nullptr;         ///< height x width
  fftwf_complex* freq = nullptr; ///< height x (width / 2 + 1)
  fftwf_plan plan = nullptr;
};

SpectrumAnalyzer::SpectrumAnalyzer(int32_t width, int32_t height, int32_t bands)
    : m_width(width), m_height(height), m_bands(bands), m_plan(std::make_unique<Plan>()) {
  if (width < 1 || height < 1 || int64_t(width) * height > k_max_train_pixels)
    throw ConfigError("spectrum: image size " + std::to_string(width) + "x" + std::to_string(height) +
                      " is out of range");
  if (bands < 1) throw ConfigError("spectrum: bands must be at least 1");
  const size_t n = size_t(width) * size_t(height);
  const size_t nf = size_t(height) * size_t(width / 2 + 1);
  std::lock_guard lock(planner_mutex());
  m_plan->real = fftwf_alloc_real(n);
  m_plan->freq = fftwf_alloc_complex(nf);
  if (!m_plan->real || !m_plan->freq) {
    fftwf_free(m_plan->real);
    fftwf_free(m_plan->freq);
    throw BackendError("spectrum: out of memory for a " + std::to_string(width) + "x" + std::to_string(height) +
                       " transform");
  }
  m_plan->plan = fftwf_plan_dft_r2c_2d(height, width, m_plan->real, m_plan->freq, FFTW_ESTIMATE);
}

SpectrumAnalyzer::~SpectrumAnalyzer() {
  std::lock_guard lock(planner_mutex());
  if (m_plan->plan) fftwf_destroy_plan(m_plan->plan);
  fftwf_free(m_plan->real);
  fftwf_free(m_plan->freq);
}

void SpectrumAnalyzer::transform() { fftwf_execute(m_plan->plan); }

int32_t SpectrumAnalyzer::band_of(int32_t kx, int32_t ky) const {
  const double fx = double(kx <= m_width / 2 ? kx : kx - m_width) / m_width;
  const double fy = double(ky <= m_height / 2 ? ky : ky - m_height) / m_height;
  const double r = std::sqrt(fx * fx + fy * fy);
  return std::min(m_bands - 1, int32_t(r / 0.5 * m_bands));
}

std::vector<int64_t> SpectrumAnalyzer::band_bin_counts() const {
  std::vector<int64_t> counts(size_t(m_bands), 0);
  for (int32_t ky = 0; ky < m_height; ++ky)
    for (int32_t kx = 0; kx < m_width; ++kx)
      ++counts[size_t(band_of(kx, ky))];
  return counts;
}

std::vector<float> SpectrumAnalyzer::magnitude(const Image& img) {
  if (img.width != m_width || img.height != m_height || img.channels < 1)
    throw ConfigError("spectrum: the image is " + std::to_string(img.width) + "x" + std::to_string(img.height) +
                      ", the analyzer " + std::to_string(m_width) + "x" + std::to_string(m_height));
  const size_t n = size_t(m_width) * size_t(m_height);
  const float inv_c = 1.0f / float(img.channels);
  for (size_t i = 0; i < n; ++i) {
    float s = 0;
    for (int32_t c = 0; c < img.channels; ++c)
      s += img.pixels[i * size_t(img.channels) + size_t(c)];
    m_plan->real[i] = s * inv_c;
  }
  transform();
  const int32_t half = m_width / 2 + 1;
  std::vector<float> out(n);
  for (int32_t ky = 0; ky < m_height; ++ky)
    for (int32_t kx = 0; kx < m_width; ++kx) {
      // The r2c transform keeps kx <= width / 2; the rest is the conjugate of (-kx, -ky).
      const bool direct = kx < half;
      const int32_t sx = direct ? kx : m_width - kx;
      const int32_t sy = direct ? ky : (m_height - ky) % m_height;
      const fftwf_complex& v = m_plan->freq[size_t(sy) * size_t(half) + size_t(sx)];
      const int32_t ox = (kx + m_width / 2) % m_width, oy = (ky + m_height / 2) % m_height;
      out[size_t(oy) * size_t(m_width) + size_t(ox)] = std::hypot(v[0], v[1]);
    }
  return out;
}

Image SpectrumAnalyzer::log_magnitude_image(const Image& img) {
  const std::vector<float> mag = magnitude(img);
  Image out;
  out.width = m_width;
  out.height = m_height;
  out.channels = 1;
  out.pixels.resize(mag.size());
  float top = 0;
  for (size_t i = 0; i < mag.size(); ++i) {
    out.pixels[i] = std::log1p(mag[i]);
    top = std::max(top, out.pixels[i]);
  }
  if (top > 0)
    for (float& v : out.pixels)
      v /= top;
  return out;
}

std::vector<double> SpectrumAnalyzer::error_band_power(const Image& target, const Image& prediction) {
  const auto check = [&](const Image& im, const char* what) {
    if (im.width != m_width || im.height != m_height)
      throw ConfigError(std::string("spectrum: the ") + what + " is " + std::to_string(im.width) + "x" +
                        std::to_string(im.height) + ", the analyzer " + std::to_string(m_width) + "x" +
                        std::to_string(m_height));
  };
  check(target, "target");
  check(prediction, "prediction");
  if (target.channels != prediction.channels || target.channels < 1)
    throw ConfigError("spectrum: the target has " + std::to_string(target.channels) + " channels, the prediction " +
                      std::to_string(prediction.channels));
  const int32_t C = target.channels;
  const size_t n = size_t(m_width) * size_t(m_height);
  const int32_t half = m_width / 2 + 1;
  // Each bin of the half spectrum stands for itself and its conjugate twin, except the columns
  // that are their own twins (kx = 0, and kx = width / 2 for an even width).
  std::vector<int32_t> band_half(static_cast<size_t>(m_height) * static_cast<size_t>(half));
  std::vector<uint8_t> twice(static_cast<size_t>(half));
  for (int32_t kx = 0; kx < half; ++kx)
    twice[size_t(kx)] = !(kx == 0 || (m_width % 2 == 0 && kx == m_width / 2));
  for (int32_t ky = 0; ky < m_height; ++ky)
    for (int32_t kx = 0; kx < half; ++kx)
      band_half[size_t(ky) * size_t(half) + size_t(kx)] = band_of(kx, ky);
  std::vector<double> power(size_t(m_bands), 0.0);
  for (int32_t c = 0; c < C; ++c) {
    for (size_t i = 0; i < n; ++i)
      m_plan->real[i] = prediction.pixels[i * size_t(C) + size_t(c)] - target.pixels[i * size_t(C) + size_t(c)];
    transform();
    for (int32_t ky = 0; ky < m_height; ++ky)
      for (int32_t kx = 0; kx < half; ++kx) {
        // The twin (width - kx, ky') has the same |X| and the same radius, hence the same band.
        const size_t i = size_t(ky) * size_t(half) + size_t(kx);
        const double re = m_plan->freq[i][0], im = m_plan->freq[i][1];
        power[size_t(band_half[i])] += (re * re + im * im) * (twice[size_t(kx)] ? 2.0 : 1.0);
      }
  }
  const double norm = 1.0 / (double(n) * double(n) * double(C));
  for (double& p : power)
    p *= norm;
  return power;
}

std::string spectrum_csv(const std::vector<SpectrumRow>& rows, int32_t bands) {
  std::ostringstream s;
  s << "step,mse";
  char b[64];
  for (int32_t i = 0; i < bands; ++i) {
    std::snprintf(b, sizeof b, ",f%.4f", (i + 0.5) * 0.5 / bands);
    s << b;
  }
  s << '\n';
  for (const SpectrumRow& r : rows) {
    double total = 0;
    for (double p : r.band_power)
      total += p;
    std::snprintf(b, sizeof b, "%lld,%.9g", static_cast<long long>(r.step), total);
    s << b;
    for (int32_t i = 0; i < bands; ++i) {
      std::snprintf(b, sizeof b, ",%.6g", size_t(i) < r.band_power.size() ? r.band_power[size_t(i)] : 0.0);
      s << b;
    }
    s << '\n';
  }
  return s.str();
}

} // namespace redraw
