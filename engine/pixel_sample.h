#pragma once
/// The fixed pixel sample a run's metrics rows are measured on, so a row costs the same for a
/// 200 x 200 drawing and a 24-megapixel photo.
/// - Stratified: the image is cut into a grid of about `count` cells of (nearly) equal size, and
///   one pixel is drawn uniformly inside each cell with the counter-based RNG. So every region of
///   the picture is represented in proportion to its area.
/// - Fixed: the sample is a pure function of (width, height, count, seed); every row of a run,
///   every backend and every thread count use the same pixels, in ascending index order.
/// - An image of at most `count` pixels is sampled whole (PixelSample::whole).
#include <cstdint>
#include <vector>

namespace redraw {

/// How many pixels a metrics row reads at most: one CPU minibatch, so that a row every 10 steps
/// costs about a twentieth of their time (2^16 took a tenth); the PSNR estimate's standard error
/// is then about 0.1 dB for a photo.
constexpr int64_t k_metric_sample_pixels = int64_t(1) << 14;

struct PixelSample {
  std::vector<int64_t> indices; ///< row-major pixel indices (y * width + x), ascending
  bool whole = false;           ///< every pixel of the image, each once
};

/// The stratified sample of at most about `count` pixels (count >= 1) of a width x height image.
PixelSample stratified_pixel_sample(int32_t width, int32_t height, int64_t count, uint64_t seed);

} // namespace redraw
