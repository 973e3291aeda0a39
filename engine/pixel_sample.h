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

/// How many pixels a metrics row reads at most: one CPU minibatch of `instant`, so that a row every
/// 10 steps costs about a twentieth of their time (2^16 took a tenth); the PSNR estimate's
/// standard error is then about 0.1 dB for a photo.
constexpr int64_t k_metric_sample_pixels = int64_t(1) << 14;
/// The fewest pixels a run's sample has (unless the image is smaller): a standard error of about
/// 0.3 dB for a photo.
constexpr int64_t k_metric_sample_min_pixels = int64_t(1) << 10;

/// The sample of a run whose steps train on `batch` pixels (0: every pixel every step).
/// - A row is one forward pass over the sample; a step is a forward and a backward pass over the
///   batch, about three forward passes. So a row every 10 steps over 1.5 x batch pixels costs
///   1.5 / (1.5 + 30) = 4.8% of the training time: `classic`'s 2048-pixel minibatches get 3,072
///   pixels, where the full 2^14 took 21% (22.6% measured on a 300 x 451 photo).
/// - Within [k_metric_sample_min_pixels, k_metric_sample_pixels]; a full-batch run gets the most.
/// - Fixed for a run (the batch is), and the same on every backend that trains with that batch.
int64_t metric_sample_pixels(int64_t batch);

struct PixelSample {
  std::vector<int64_t> indices; ///< row-major pixel indices (y * width + x), ascending
  bool whole = false;           ///< every pixel of the image, each once
};

/// The stratified sample of at most about `count` pixels (count >= 1) of a width x height image.
PixelSample stratified_pixel_sample(int32_t width, int32_t height, int64_t count, uint64_t seed);

} // namespace redraw
