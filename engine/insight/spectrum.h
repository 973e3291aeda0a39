#pragma once
/// The frequency content of a picture and of a network's error, with KISS FFT (single precision), exact at the
///   picture's own size: a side with a prime factor above 7 goes through Bluestein's algorithm, so
///   no size is slow and nothing is padded.
/// - Frequencies are in cycles per pixel along each axis (fx = kx / width, fy = ky / height), so
///   Nyquist is 0.5 on both axes whatever the image size; the radius r = sqrt(fx^2 + fy^2).
/// - Bands: `bands` equal-width rings of r over [0, 0.5]; the corners beyond Nyquist (r > 0.5, up
///   to 0.707 on the diagonal) fall into the last band, so every frequency is in exactly one band.
/// - Band power (error_band_power): for each band, the sum over its frequencies and over the
///   channels of |DFT(prediction - target)|^2, divided by (pixels^2 * channels). By Parseval's
///   theorem the bands add up to the mean squared error over the pixels and channels.
/// - Threading: a SpectrumAnalyzer is used by one thread at a time; several may live on different
///   threads.
#include "engine/images/image.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace redraw {

constexpr int32_t k_default_spectrum_bands = 32;

/// The error's band powers at one step (spectrum.csv's rows, the GUI's heat map columns).
struct SpectrumRow {
  int64_t step = 0;
  std::vector<double> band_power; ///< one per band; they sum to the MSE (Parseval)
};

/// The spectrum of a large picture is taken on a view of it: resampled (area filter) so its
/// longer side is at most this, so a spectrum costs the same for any image size.
constexpr int32_t k_spectrum_view_side = 512;
/// The view's size for a w x h picture (w x h itself when both sides fit).
void spectrum_view_size(int32_t w, int32_t h, int32_t& view_w, int32_t& view_h);
/// The picture at its view size (a copy when it already fits).
Image spectrum_view(const Image& img);

class SpectrumAnalyzer {
public:
  /// Plans the transforms for width x height images. ConfigError for a size < 1 or bands < 1.
  SpectrumAnalyzer(int32_t width, int32_t height, int32_t bands = k_default_spectrum_bands);
  ~SpectrumAnalyzer();
  SpectrumAnalyzer(const SpectrumAnalyzer&) = delete;
  SpectrumAnalyzer& operator=(const SpectrumAnalyzer&) = delete;

  int32_t width() const { return m_width; }
  int32_t height() const { return m_height; }
  int32_t bands() const { return m_bands; }

  /// |DFT| of the image's luminance (the mean of its channels), centred (zero frequency at
  /// (width / 2, height / 2)), width x height row-major. Unnormalised: the DC term is the sum of
  /// the pixels. ConfigError when the image's size differs from the analyzer's.
  std::vector<float> magnitude(const Image& img);
  /// log(1 + magnitude), scaled so its largest value is 1: a one-channel picture in [0, 1].
  Image log_magnitude_image(const Image& img);
  /// The error's power per band (see the header). Both images must have this analyzer's size and
  /// the same channel count (ConfigError otherwise).
  std::vector<double> error_band_power(const Image& target, const Image& prediction);

  /// The band of the frequency with DFT indices (kx, ky), 0 <= kx < width, 0 <= ky < height.
  int32_t band_of(int32_t kx, int32_t ky) const;
  /// How many DFT bins each band holds (they add up to width * height).
  std::vector<int64_t> band_bin_counts() const;
  /// The radius at the middle of band b, in cycles per pixel.
  double band_center(int32_t b) const { return (b + 0.5) * 0.5 / m_bands; }

private:
  /// Transforms the plan's input plane into its output plane.
  void transform();

  int32_t m_width = 0, m_height = 0, m_bands = 0;
  struct Plan;
  std::unique_ptr<Plan> m_plan; ///< KISS FFT plan and its buffers
};

/// spectrum.csv: "step,mse,f0.0078,...": one column per band named after its centre frequency in
/// cycles per pixel; `mse` is the bands' sum.
std::string spectrum_csv(const std::vector<SpectrumRow>& rows, int32_t bands);

} // namespace redraw
