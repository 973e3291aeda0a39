#include "engine/insight/spectrum.h"

#include "engine/errors.h"
#include "engine/images/image.h"

#include <kiss_fft.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace redraw {

/// Named, not anonymous: SpectrumAnalyzer::Plan holds LineFfts, and a class with linkage may not hold
/// members of an anonymous type (GCC warns where a unity batch includes this file).
namespace spectrum_fft {

int largest_prime_factor(int n) {
  int largest = 1;
  for (int p = 2; int64_t(p) * p <= n; ++p)
    while (n % p == 0) largest = p, n /= p;
  return std::max(largest, n);
}

/// One exact DFT of length n. KISS FFT's mixed radix is fast for factors 2, 3, 4 and 5 and falls
/// back to an O(n * p) butterfly for a prime factor p; a length with a prime factor above 7 (a
/// 509- or 683-pixel side) goes through Bluestein's algorithm instead: a chirp convolution done
/// with fast transforms of length m >= 2n - 1 (KISS FFT's next fast size). Nothing is padded in
/// the result: it is the DFT at the picture's own size.
class LineFft {
public:
  explicit LineFft(int n) : m_n(n) {
    if (largest_prime_factor(n) <= 7 || n < 32) {
      m_direct = kiss_fft_alloc(n, 0, nullptr, nullptr);
      if (!m_direct) throw BackendError("spectrum: out of memory planning the transform");
      return;
    }
    m_m = kiss_fft_next_fast_size(2 * n - 1);
    m_forward = kiss_fft_alloc(m_m, 0, nullptr, nullptr);
    m_inverse = kiss_fft_alloc(m_m, 1, nullptr, nullptr);
    if (!m_forward || !m_inverse) throw BackendError("spectrum: out of memory planning the transform");
    m_chirp.resize(size_t(n));
    for (int k = 0; k < n; ++k) { // w_k = exp(-i pi k^2 / n), with k^2 taken mod 2n for precision
      const double a = M_PI * double((int64_t(k) * k) % (2 * int64_t(n))) / double(n);
      m_chirp[size_t(k)] = {std::cos(a), -std::sin(a)};
    }
    std::vector<kiss_fft_cpx> b(size_t(m_m), kiss_fft_cpx{0, 0});
    for (int k = 0; k < n; ++k) {
      const kiss_fft_cpx c = {float(m_chirp[size_t(k)].real()), float(-m_chirp[size_t(k)].imag())};
      b[size_t(k)] = c;
      if (k > 0) b[size_t(m_m - k)] = c;
    }
    m_chirp_spectrum.resize(size_t(m_m));
    kiss_fft(m_forward, b.data(), m_chirp_spectrum.data());
    m_a.resize(size_t(m_m));
    m_fa.resize(size_t(m_m));
  }
  ~LineFft() {
    kiss_fft_free(m_direct);
    kiss_fft_free(m_forward);
    kiss_fft_free(m_inverse);
  }
  LineFft(const LineFft&) = delete;
  LineFft& operator=(const LineFft&) = delete;

  /// out[k] = sum_j in[j] exp(-2 pi i j k / n), for contiguous in and out of n values.
  void transform(const kiss_fft_cpx* in, kiss_fft_cpx* out) {
    if (m_direct) return kiss_fft(m_direct, in, out);
    std::fill(m_a.begin(), m_a.end(), kiss_fft_cpx{0, 0});
    for (int j = 0; j < m_n; ++j) {
      const std::complex<double> v = std::complex<double>(in[j].r, in[j].i) * m_chirp[size_t(j)];
      m_a[size_t(j)] = {float(v.real()), float(v.imag())};
    }
    kiss_fft(m_forward, m_a.data(), m_fa.data());
    for (int k = 0; k < m_m; ++k) {
      const kiss_fft_cpx x = m_fa[size_t(k)], y = m_chirp_spectrum[size_t(k)];
      m_fa[size_t(k)] = {x.r * y.r - x.i * y.i, x.r * y.i + x.i * y.r};
    }
    kiss_fft(m_inverse, m_fa.data(), m_a.data());
    const double scale = 1.0 / double(m_m);
    for (int k = 0; k < m_n; ++k) {
      const std::complex<double> v =
          std::complex<double>(m_a[size_t(k)].r, m_a[size_t(k)].i) * m_chirp[size_t(k)] * scale;
      out[k] = {float(v.real()), float(v.imag())};
    }
  }

private:
  int m_n = 0, m_m = 0;
  kiss_fft_cfg m_direct = nullptr, m_forward = nullptr, m_inverse = nullptr;
  std::vector<std::complex<double>> m_chirp;      ///< w_k, k < n
  std::vector<kiss_fft_cpx> m_chirp_spectrum;      ///< FFT of the conjugate chirp, length m
  std::vector<kiss_fft_cpx> m_a, m_fa;             ///< work lines of length m
};

} // namespace spectrum_fft
using spectrum_fft::LineFft;

/// The 2-D DFT as rows, then columns (each through LineFft). The input is real, so the spectrum is
/// conjugate-symmetric; the full plane is kept for simple indexing.
struct SpectrumAnalyzer::Plan {
  std::unique_ptr<LineFft> rows, columns;
  std::vector<kiss_fft_cpx> in, out; ///< height x width
  std::vector<kiss_fft_cpx> column_in, column_out;
};

SpectrumAnalyzer::SpectrumAnalyzer(int32_t width, int32_t height, int32_t bands)
    : m_width(width), m_height(height), m_bands(bands), m_plan(std::make_unique<Plan>()) {
  if (width < 1 || height < 1 || int64_t(width) * height > k_max_train_pixels)
    throw ConfigError("spectrum: image size " + std::to_string(width) + "x" + std::to_string(height) +
                      " is out of range");
  if (bands < 1) throw ConfigError("spectrum: bands must be at least 1");
  const size_t n = size_t(width) * size_t(height);
  try {
    m_plan->in.resize(n);
    m_plan->out.resize(n);
    m_plan->column_in.resize(size_t(height));
    m_plan->column_out.resize(size_t(height));
  } catch (const std::bad_alloc&) {
    throw BackendError("spectrum: out of memory for a " + std::to_string(width) + "x" + std::to_string(height) +
                       " transform");
  }
  m_plan->rows = std::make_unique<LineFft>(width);
  m_plan->columns = std::make_unique<LineFft>(height);
}

SpectrumAnalyzer::~SpectrumAnalyzer() = default;

void SpectrumAnalyzer::transform() {
  Plan& p = *m_plan;
  const size_t w = size_t(m_width), h = size_t(m_height);
  for (size_t y = 0; y < h; ++y)
    p.rows->transform(p.in.data() + y * w, p.out.data() + y * w);
  for (size_t x = 0; x < w; ++x) {
    for (size_t y = 0; y < h; ++y)
      p.column_in[y] = p.out[y * w + x];
    p.columns->transform(p.column_in.data(), p.column_out.data());
    for (size_t y = 0; y < h; ++y)
      p.out[y * w + x] = p.column_out[y];
  }
}

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

void spectrum_view_size(int32_t w, int32_t h, int32_t& view_w, int32_t& view_h) {
  view_w = w;
  view_h = h;
  const int32_t side = std::max(w, h);
  if (side <= k_spectrum_view_side) return;
  const double scale = double(k_spectrum_view_side) / double(side);
  view_w = std::max(1, int32_t(std::lround(w * scale)));
  view_h = std::max(1, int32_t(std::lround(h * scale)));
}

Image spectrum_view(const Image& img) {
  int32_t w = 0, h = 0;
  spectrum_view_size(img.width, img.height, w, h);
  return w == img.width && h == img.height ? img : resize_area(img, w, h);
}

} // namespace redraw
