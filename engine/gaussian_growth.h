#pragma once
/// Gaussians that grow where the error is (training.grow, GrowSpec): at a fixed capacity (the
/// config's model.gaussians, so every array, the parameter count and the model file stay as they
/// are), every GrowSpec::every steps the Gaussians whose leaving costs the picture least move to
/// pixels drawn where the picture's error is, the densify-and-prune of GaussianImage's successors
/// done as relocation.
/// - Which move (grow_gaussians): the m = grow_count() Gaussians whose leaving adds least squared
///   error to the picture now (over its footprint, |r + H c w|^2 - |r|^2, r = target - prediction:
///   negative where the picture is better without it; off-picture ones 0), least first, ties by
///   index.
/// - Where to: m distinct pixels drawn without replacement with probability proportional to the
///   squared error of the residual (error_weighted_pixels, engine/growth.h: the same pixels on
///   every machine and thread count), taken in decreasing key order.
/// - The residual: target - prediction, plus what the moved Gaussians drew where they were. Each
///   moved Gaussian in turn is placed at its pixel's centre, round, with the amplitude that fits
///   the residual under it best (least squares, per output channel, mapped to its colour through
///   the head's pseudo-inverse) and, among k_gaussian_grow_scales times the local spacing of the
///   Gaussians there (in cells, at least half a pixel), the size whose fit takes most squared
///   error off; its footprint is taken off the residual before the next one is placed, so
///   neighbours share a hot spot rather than all filling it. A placed Gaussian only adds its
///   least-squares fit, so the picture is never worse for it; what a relocation can cost is what
///   the moved ones drew, which the choice of the moved keeps least.
/// - Its optimizer moments (every array kept: Adam's m and v, SGD's velocity) are zeroed.
/// Everything here is sequential or a fixed-order sum: the same bits whatever the thread count.
#include "engine/gaussian_math.h"
#include "engine/growth.h"
#include "engine/optimizer_state.h"
#include "engine/run_config.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace redraw {

/// A moved Gaussian's candidate sizes, times the local spacing (each at most the factor times
/// k_gaussian_init_size cells): the one whose least-squares colour takes most error is placed.
constexpr double k_gaussian_grow_scales[] = {1.0, 0.5, 2.0};

/// Moves Gaussian moved[j] to pixel pixels[j], j in order (rules in the header), in `params`
/// (count Gaussians first), zeroing their entries of every non-empty array of `moments`.
/// head: channels x k_gaussian_channels weights. Returns the squared error summed over every
/// pixel and channel of the linear picture after the move (target - prediction as the header's
/// residual; the output activation not applied). `carrier`: the Gaussians have the cosine carrier
/// (gaussian_floats(carrier) floats each); a moved one's frequencies start again small and random
/// (from its pixel: uniform in +-k_gaussian_carrier_init radians per standard deviation, never 0,
/// where their gradient is 0).
double relocate_gaussians(std::span<float> params, int64_t count, const float* head, const GrowthPicture& picture,
                          std::span<const int64_t> moved, std::span<const int64_t> pixels, OptimizerState& moments,
                          bool carrier = false);

/// One whole relocation of a gaussians model's parameters (`spec` its model; a linear head, as
/// grow_problem requires): picks the least useful, draws the pixels from (seed, step), moves
/// them. Returns how many moved.
int64_t grow_gaussians(const ModelSpec& spec, const GrowSpec& grow, uint64_t seed, int64_t step,
                       const GrowthPicture& picture, std::span<float> params, OptimizerState& moments);

} // namespace redraw
