#pragma once
/// Multi-scale structural similarity (MS-SSIM, Wang, Simoncelli and Bovik 2003) in the form the
/// image-fitting papers report it: pytorch_msssim's ms_ssim(X, Y, data_range=1), which
/// GaussianImage's evaluation (train.py) calls on its renders.
/// - Five scales, weights 0.0448, 0.2856, 0.3001, 0.2363, 0.1333. At each scale the statistics
///   are taken under an 11-tap Gaussian window of sigma 1.5 applied separably and only where it
///   fits inside the picture ("valid": no padding, no renormalised border window, unlike ssim.h).
///   C1 = (0.01 L)^2, C2 = (0.03 L)^2 with L = 1.
/// - Per channel: cs_j = mean of the contrast-structure map at scales 1..4, s_5 = mean SSIM map at
///   scale 5, each clamped at 0; MS-SSIM_c = prod_j cs_j^w_j * s_5^w_5. The result is the mean
///   over channels.
/// - Between scales the picture is averaged over 2 x 2 blocks; a side of odd length is padded
///   with one zero on each side first and the zeros count in the average (avg_pool2d with
///   padding = side % 2, as pytorch_msssim does). 768 x 512 (Kodak) never meets this.
/// - The smaller side must exceed (11 - 1) * 2^4 = 160 pixels, so the coarsest scale still holds
///   a window.
/// - Sums are in double; the result does not depend on the thread count (there are no threads).
#include "engine/images/image.h"

namespace redraw {

/// The smallest side MS-SSIM accepts (exclusive): (window - 1) * 2^(scales - 1).
constexpr int32_t k_ms_ssim_min_side = 160;

/// MS-SSIM of `a` against `b` (values in [0, 1], data range 1), in [0, 1]. ImageError when their sizes or
/// channel counts differ, or the smaller side is <= k_ms_ssim_min_side.
double ms_ssim(const Image& a, const Image& b);

} // namespace redraw
