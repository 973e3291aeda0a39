#pragma once
/// The Gaussians view: a `gaussians` model's Gaussians as ellipses over its picture (the app draws
/// them in place of the neuron maps, which such a model has none of).
/// - Each Gaussian becomes the ellipse of its one-sigma contour, {p : q(p) = 1} with q its
///   Mahalanobis distance squared (engine/gaussian_math.h), in the pixels of a width x height
///   picture: centre, semi-axes and the major axis's angle from the covariance in pixels.
/// - Its colour is what it adds to the picture at its centre, per unit weight: the colour head
///   applied to its colour (grey for a one-channel model).
/// - Its change is how far its floats moved since an earlier view of the same run (the root mean
///   square of the difference): where the optimizer is at work, the gradient's footprint.
/// - gaussian_at finds the Gaussian that weighs most at a pixel (the one a pointer reads).
#include "engine/insight/neuron_maps.h"

#include <cstdint>
#include <vector>

namespace redraw {

struct GaussianEllipse {
  float cx = 0, cy = 0; ///< centre, in pixels (0..width, 0..height: pixel i spans [i, i + 1))
  float rx = 0, ry = 0; ///< semi-axes of the one-sigma contour, in pixels (rx >= ry)
  float angle = 0;      ///< rx's direction, radians from +x towards +y (down the picture)
  float rgb[3] = {0, 0, 0};
  float change = 0; ///< root mean square change of its floats since the earlier view (0: none)
};

struct GaussianView {
  int64_t step = -1;
  int32_t width = 0, height = 0;
  std::vector<GaussianEllipse> ellipses; ///< one per Gaussian, in the model's order
  std::vector<float> params;             ///< the Gaussians' floats, for the next view's change
  double median_radius = 0;              ///< the median of sqrt(rx ry), pixels
  double max_change = 0;                 ///< the largest change (0 without an earlier view)
};

/// The view of `net` (a gaussians model: ConfigError otherwise) over a width x height picture;
/// `earlier` (the same run's previous view, or null) gives each Gaussian's change.
GaussianView gaussian_view(const NetworkSnapshot& net, int32_t width, int32_t height, const GaussianView* earlier);

/// The Gaussian with the largest weight at pixel coordinates (px, py) of the view's picture, or -1
/// where none reaches it; `weight` receives that weight (0 when none).
int64_t gaussian_at(const GaussianView& view, double px, double py, double& weight);

} // namespace redraw
