#pragma once
/// Structural similarity (SSIM, Wang, Bovik, Sheikh and Simoncelli 2004) between two pictures of
/// the same size, for values in [0, 1] (dynamic range L = 1).
/// - Each pixel's statistics (the means, variances and covariance of the two pictures) are taken
///   under an 11 x 11 Gaussian window of sigma 1.5. At the borders the window is cut to the
///   picture and its weights renormalised, so every pixel has a value and a picture of any size
///   (1 x 1, 1 x N) has an SSIM; inside, it is the paper's window.
/// - SSIM(x, y) = (2 mx my + C1)(2 sxy + C2) / ((mx^2 + my^2 + C1)(sx^2 + sy^2 + C2)) with
///   C1 = (0.01 L)^2 and C2 = (0.03 L)^2; the result is the mean over every pixel and channel.
///   1 means identical; two flat pictures of values a and b give (2ab + C1) / (a^2 + b^2 + C1).
/// - Memory: a few rows (the window's height) per quantity, whatever the picture's size; the sums
///   are in double, so the result does not depend on the order of anything but the pixels.
#include "engine/images/image.h"

namespace redraw {

struct SsimWindow {
  int32_t radius = 5; ///< the window is (2 radius + 1) pixels on a side
  double sigma = 1.5; ///< the Gaussian's standard deviation in pixels
  double k1 = 0.01, k2 = 0.03;
};

/// Mean SSIM of `a` against `b`, in [-1, 1]. ImageError when their sizes or channel counts differ or either
/// is empty; `window` as above (radius >= 0, sigma > 0).
double ssim(const Image& a, const Image& b, const SsimWindow& window = {});

} // namespace redraw
