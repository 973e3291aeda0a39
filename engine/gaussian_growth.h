#pragma once
/// Gaussians that grow where the error is (training.grow, GrowSpec): at a fixed capacity (the
/// config's model.gaussians, so every array, the parameter count and the model file stay as they
/// are), every GrowSpec::every steps the Gaussians that add least to the picture move to pixels
/// drawn where the picture's error is, the densify-and-prune of GaussianImage's successors done
/// as relocation.
/// - Which move: the m = grow_count() Gaussians of least gaussian_contribution (engine/gaussian_math.h:
///   area in cells^2 times |head colour|; off-picture ones 0), least first, ties by index.
/// - Where to: m distinct pixels drawn without replacement with probability proportional to the
///   squared error of the residual (Efraimidis-Spirakis keys log(u) / error, u from the run's seed,
///   the step and the pixel: the same pixels on every machine and thread count), taken in
///   decreasing key order.
/// - The residual: target - prediction, plus what the moved Gaussians drew where they were. Each
///   moved Gaussian in turn is placed at its pixel's centre, round, as wide as the local spacing of
///   the Gaussians there (in cells, between half a pixel and k_gaussian_init_size), with the
///   amplitude that fits the residual under it best (least squares, per output channel, mapped to
///   its colour through the head's pseudo-inverse), and its footprint is taken off the residual
///   before the next one is placed, so neighbours share a hot spot rather than all filling it.
/// - Its optimizer moments (every array kept: Adam's m and v, SGD's velocity) are zeroed.
/// Everything here is sequential or a fixed-order sum: the same bits whatever the thread count.
#include "engine/gaussian_math.h"
#include "engine/optimizer_state.h"
#include "engine/run_config.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace redraw {

/// One relocation: after `step` completed steps, `moved` Gaussians went where the error was.
struct GrowthEvent {
  int64_t step = 0;
  int64_t moved = 0;
  bool operator==(const GrowthEvent&) const = default;
};

/// Why `c` cannot grow ("training.grow: ..."), or empty (also when growth is off).
std::string grow_problem(const RunConfig& c);
/// The Gaussians one relocation moves: fraction of count, rounded, at least 1 and at most count.
int64_t grow_count(int64_t count, double fraction);
/// Whether a relocation follows the step that reached `step` completed steps: a multiple of
/// grow.every, above 0, with `progress` below grow.until * training.steps. progress: the step the
/// schedule reads next (Trainer::schedule_step: `step` itself, or under a time budget the step
/// its elapsed share of the budget stands for, so growth stops as the schedule anneals).
bool grow_due(const RunConfig& c, int64_t step, int64_t progress);
/// The relocations of a run of `c` (without a time budget) up to and including step count `step`,
/// oldest first.
std::vector<GrowthEvent> growth_events_until(const RunConfig& c, int64_t step);

/// The m least contributing of `count` Gaussians (params: count x k_gaussian_floats), least first,
/// ties by index; head: the colour head's channels x k_gaussian_channels weights.
std::vector<int64_t> least_useful_gaussians(const float* params, int64_t count, const float* head, int32_t channels,
                                            int64_t m);
/// m distinct pixels of `error` (one non-negative value per pixel) drawn without replacement with
/// probability proportional to it, from (seed, step); most likely first. Fewer when fewer pixels
/// have an error above 0.
std::vector<int64_t> error_weighted_pixels(std::span<const double> error, int64_t m, uint64_t seed, int64_t step);

/// The picture a relocation fits: width x height pixels of `channels` values, row-major.
struct GrowthPicture {
  int32_t width = 0, height = 0, channels = 0;
  const float* targets = nullptr;    ///< the dataset's pixels
  const float* prediction = nullptr; ///< the model's output at the pixel centres, before the move
};

/// Moves Gaussian moved[j] to pixel pixels[j], j in order (rules in the header), in `params`
/// (count Gaussians first), zeroing their entries of every non-empty array of `moments`.
/// head: channels x k_gaussian_channels weights. Returns the squared error summed over every
/// pixel and channel of the linear picture after the move (target - prediction as the header's
/// residual; the output activation not applied).
double relocate_gaussians(std::span<float> params, int64_t count, const float* head, const GrowthPicture& picture,
                          std::span<const int64_t> moved, std::span<const int64_t> pixels, OptimizerState& moments);

/// One whole relocation of a gaussians model's parameters (`spec` its model; a linear head, as
/// grow_problem requires): picks the least useful, draws the pixels from (seed, step), moves
/// them. Returns how many moved.
int64_t grow_gaussians(const ModelSpec& spec, const GrowSpec& grow, uint64_t seed, int64_t step,
                       const GrowthPicture& picture, std::span<float> params, OptimizerState& moments);

} // namespace redraw
