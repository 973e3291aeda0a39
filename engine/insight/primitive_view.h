#pragma once
/// The primitives view: a `gaussians` model's Gaussians, or a `sad` model's sites, as ellipses over
/// its picture (the app draws them in place of the neuron maps, which such a model has none of),
/// and for sites the owner map.
/// - Each primitive becomes the ellipse of its metric's unit contour, {p : q(p) = 1} with q its
///   Mahalanobis distance squared (engine/gaussian_math.h's, engine/sad_math.h's: the two share
///   the layout of position and Cholesky-style metric in cells), in the pixels of a width x height
///   picture: centre, semi-axes and the major axis's angle from the covariance in pixels. A
///   Gaussian's is its one-sigma contour.
/// - Its colour is what it adds to the picture at its centre, per unit weight: the colour head
///   applied to its colour (grey for a one-channel model).
/// - Its change is how far its floats moved since an earlier view of the same run (the root mean
///   square of the difference): where the optimizer is at work, the gradient's footprint.
/// - primitive_at finds the primitive that weighs most at a pixel (the one a pointer reads): a
///   Gaussian's weight from its ellipse; a site's from the owner map.
/// - The owner map (sites only): each pixel of a map up to `owner_side` a side (the picture's
///   aspect) is owned by the site of largest blend weight there, as the model blends it (its node's
///   top-K list, engine/sad_blends.h, built afresh for the snapshot); each site counts the map pixels
///   it owns, and those owning none are counted (idle: pruning's candidates).
#include "engine/insight/neuron_maps.h"

#include <cstdint>
#include <vector>

namespace redraw {

struct PrimitiveEllipse {
  float cx = 0, cy = 0; ///< centre, in pixels (0..width, 0..height: pixel i spans [i, i + 1))
  float rx = 0, ry = 0; ///< semi-axes of the unit contour, in pixels (rx >= ry)
  float angle = 0;      ///< rx's direction, radians from +x towards +y (down the picture)
  float rgb[3] = {0, 0, 0};
  float change = 0; ///< root mean square change of its floats since the earlier view (0: none)
  int64_t owned = 0; ///< owner-map pixels it owns (sites only)
};

struct PrimitiveView {
  int64_t step = -1;
  int32_t width = 0, height = 0;
  bool sites = false;                    ///< a sad model's sites (else Gaussians)
  std::vector<PrimitiveEllipse> ellipses; ///< one per primitive, in the model's order
  std::vector<float> params;             ///< the primitives' floats, for the next view's change
  double median_radius = 0;              ///< the median of sqrt(rx ry), pixels
  double max_change = 0;                 ///< the largest change (0 without an earlier view)
  /// The owner map (sites only; empty otherwise): map_w x map_h site ids, row-major, -1 where
  /// none is blended.
  int32_t map_w = 0, map_h = 0;
  std::vector<int32_t> owner;
  int64_t idle = 0; ///< sites owning no pixel of the map
};

/// The largest side of the owner map by default.
constexpr int32_t k_owner_map_side = 384;

/// The view of `net` (a gaussians or sad model: ConfigError otherwise) over a width x height
/// picture; `earlier` (the same run's previous view, or null) gives each primitive's change. A sad
/// model's owner map is made at most owner_side a side, and no larger than the picture.
PrimitiveView primitive_view(const NetworkSnapshot& net, int32_t width, int32_t height, const PrimitiveView* earlier,
                             int32_t owner_side = k_owner_map_side);

/// The primitive with the largest weight at pixel coordinates (px, py) of the view's picture, or -1
/// where none reaches it; `weight` receives that weight (0 when none; a site's is 1 where it owns).
int64_t primitive_at(const PrimitiveView& view, double px, double py, double& weight);

} // namespace redraw
