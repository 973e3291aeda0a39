#include "engine/spectrum.h"

#include "engine/errors.h"

#include <kiss_fftnd.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace redraw {

/// KISS FFT's complex 2-D transform (mixed radix 2, 3, 4, 5 and a generic butterfly for larger
/// prime factors: exact at any size, fastest when the sides have small prime factors). The input
/// is real, so the spectrum is conjugate-symmetric; the full plane is kept for simple indexing.
struct SpectrumAnalyzer::Plan {
  kiss_fftnd_cfg cfg = nullptr;
  std::vector<kiss_fft_cpx> in, out; ///< height x width
  ~Plan() { kiss_fft_free(cfg); }
};

SpectrumAnalyzer::SpectrumAnalyzer(int32_t width, int32_t height, int32_t bands)
    : m_width(width), m_height(height), m_bands(bands), m_plan(std::make_unique<Plan>()) {
  if (width < 1 || height < 1 || int64_t(width) * height > k_max_train_pixels)
    throw ConfigError("spectrum: image size " + std::to_string(width) + "x" + std::to_string(height) +
                      " is out of range");
  if (bands < 1) throw ConfigError("spectrum: bands must be at least 1");
  const size_t n = size_t(width) * size_t(height);
  const int dims[2] = {height, width};
  try {
    m_plan->in.resize(n);
    m_plan->out.resize(n);
  } catch (const std::bad_alloc&) {
    throw BackendError("spectrum: out of memory for a " + std::to_string(width) + "x" + std::to_string(height) +
                       " transform");
  }
  m_plan->cfg = kiss_fftnd_alloc(dims, 2, 0, nullptr, nullptr);
  if (!m_plan->cfg) throw BackendError("spectrum: out of memory planning the transform");
}

SpectrumAnalyzer::~SpectrumAnalyzer() = default;

void SpectrumAnalyzer::transform() { kiss_fftnd(m_plan->cfg, m_plan->in.data(), m_plan->out.data()); }

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
    m_plan->in[i] = {s * inv_c, 0.0f};
  }
  transform();
  std::vector<float> out(n);
  for (int32_t ky = 0; ky < m_height; ++ky)
    for (int32_t kx = 0; kx < m_width; ++kx) {
      const kiss_fft_cpx& v = m_plan->out[size_t(ky) * size_t(m_width) + size_t(kx)];
      const int32_t ox = (kx + m_width / 2) % m_width, oy = (ky + m_height / 2) % m_height;
      out[size_t(oy) * size_t(m_width) + size_t(ox)] = std::hypot(v.r, v.i);
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
  std::vector<int32_t> band(n);
  for (int32_t ky = 0; ky < m_height; ++ky)
    for (int32_t kx = 0; kx < m_width; ++kx)
      band[size_t(ky) * size_t(m_width) + size_t(kx)] = band_of(kx, ky);
  std::vector<double> power(size_t(m_bands), 0.0);
  for (int32_t c = 0; c < C; ++c) {
    for (size_t i = 0; i < n; ++i)
      m_plan->in[i] = {prediction.pixels[i * size_t(C) + size_t(c)] - target.pixels[i * size_t(C) + size_t(c)], 0.0f};
    transform();
    for (size_t i = 0; i < n; ++i) {
      const double re = m_plan->out[i].r, im = m_plan->out[i].i;
      power[size_t(band[i])] += re * re + im * im;
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
