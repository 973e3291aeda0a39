#pragma once
/// Sad sites that grow where the error is (training.grow; what every family shares is in
/// engine/growth.h): at a fixed capacity (the config's model.sites, so every array, the parameter
/// count and the model file stay as they are), every GrowSpec::every steps the m = grow_count()
/// sites that add least to the picture move to pixels drawn where its error is: the paper's
/// "add where the responsibility-weighted error is high, prune where they own nothing" done as
/// relocation.
/// - The blends: every pixel centre's K sites and weights (engine/sad_blends.h), from the lists
///   the last step used when the picture brings them (GrowthPicture::site_lists: the training
///   step's, refreshed as the sites moved, not built again), else from lists built afresh. A
///   pixel's owner is its site of largest weight. After the move the backend follows the moved
///   sites with one refresh pass of its lists (Backend::set_moved_parameters).
/// - Which move: the idle sites (owning no pixel) first, then those of least contribution, each
///   ordered by contribution, ties by index. A site's contribution is what the picture loses
///   without it: the sum over the pixels that blend it of |H w (c - o)|^2, H the colour head, w
///   its weight (its responsibility for the pixel), c its colour and o the blend of the pixel's
///   other sites (their softmax renormalised without it).
/// - The residual: target - prediction, plus what the moved sites' leaving changes: each pixel's
///   blend renormalised over the sites of its list that stay (a pixel none of whose sites stay
///   keeps its blend). Where to: error_weighted_pixels on its squared error per pixel (the
///   responsibility-weighted error summed over a pixel's sites is its error: the weights sum to 1).
/// - Each moved site in turn is placed at its pixel's centre (its pixel's staying sites are its
///   neighbours, the one of least energy there the owner):
///   - round, its metric's scale the local spacing s of the sites, from the mean squared distance
///     d2 of the n neighbours: K nearest of a uniform density rho lie within sqrt(n / (pi rho)),
///     so s = 1 / sqrt(rho) = sqrt(2 pi d2 / n), between half a pixel and k_sad_grow_max_cells,
///     times one of k_sad_grow_scales (below);
///   - the owner's temperature, and the radius that puts its energy at its pixel one below the
///     owner's there (it takes the pixel over, e times the owner's weight, and shares the region
///     as a power diagram with it);
///   - the colour that fits the residual around it best (least squares over the pixels within
///     k_sad_grow_window spacings s, its weight there against the pixel's staying sites, mapped to
///     its colour through the head's pseudo-inverse). A site blends in rather than adds, so any
///     colour overwrites some of what its window's pixels showed: of the scales, the one whose
///     fit leaves the least squared error in that window is placed (a site at the full spacing
///     over detail erased it, and the picture dipped at each relocation). Its blend is then taken
///     into the residual before the next is placed, so neighbours share a hot spot rather than
///     all filling it;
///   - its optimizer moments (every array kept) zeroed.
///   Without neighbours (all of its pixel's sites moved) it keeps its own metric and temperature,
///   radius 0.
/// Everything here is per pixel, sequential or a fixed-order sum: the same bits on any thread count.
#include "engine/growth.h"
#include "engine/optimizer_state.h"
#include "engine/sad_blends.h"

#include <cstdint>
#include <span>
#include <vector>

namespace redraw {

/// The largest spacing a placed site takes, in cells.
constexpr double k_sad_grow_max_cells = 2.0;
/// The window of a placed site's colour fit, in spacings from its centre (at most
/// k_sad_grow_window_px pixels either side).
constexpr double k_sad_grow_window = 3.0;
constexpr int32_t k_sad_grow_window_px = 32;
/// A placed site's candidate scales, times the local spacing: the one whose least-squares colour
/// leaves the least squared error in its window is placed.
constexpr double k_sad_grow_scales[] = {1.0, 0.5, 0.25};

/// The m sites to move, in order (rules in the header): idle first. params: count x k_sad_floats;
/// head: the colour head's channels x k_sad_channels weights; blends: of these sites.
std::vector<int64_t> least_useful_sites(const SadPixelBlends& blends, const float* params, int64_t count,
                                        const float* head, int32_t channels, int64_t m);

/// Moves site moved[j] to pixel pixels[j], j in order (rules in the header), in `params` (count
/// sites first), zeroing their entries of every non-empty array of `moments`. blends: the sites'
/// before the move, over the picture; head: channels x k_sad_channels weights. Returns the
/// squared error summed over every pixel and channel of the linear picture after the move as the
/// placement sees it (the header's residual, each placed site blended against its pixels'
/// staying sites).
double relocate_sites(std::span<float> params, int64_t count, const float* head, const GrowthPicture& picture,
                      const SadPixelBlends& blends, std::span<const int64_t> moved, std::span<const int64_t> pixels,
                      OptimizerState& moments);

/// One whole relocation of a sad model's parameters (`spec` its model; a linear head, as
/// grow_problem requires): the blends, the least useful, the pixels drawn from (seed, step), the
/// move. Returns how many moved. ModelFamily::grow of the sad family.
int64_t grow_sad(const ModelSpec& spec, const GrowSpec& grow, uint64_t seed, int64_t step, const GrowthPicture& picture,
                 std::span<float> params, OptimizerState& moments);

} // namespace redraw
