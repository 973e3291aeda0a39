#pragma once
/// How much of the picture a model's Gaussians may cover: one bound that both backends bin within
/// and that a model file is held to, so a file that opens also renders, in bounded memory and time.
/// - A Gaussian covers the bins of its box (gaussian_box): about 16 at the start (a cell wide, a
///   bin two cells); 7,500 Gaussians fitted 1,500 steps to a photo averaged 14 (at most 32). The
///   pairs (bin, Gaussian) are what a pass stores and walks: memory follows them, and a picture's
///   cost is pairs x pixels / bins^2, so a bound on pairs a Gaussian (bins^2 is about count / 4)
///   bounds the work a pixel: 512 Gaussians at most on average.
/// - A model may make k_gaussian_pairs_per_gaussian pairs a Gaussian on average over the whole
///   grid (8x what trained models make), and k_gaussian_min_pair_budget whatever its count (a few
///   thousand Gaussians may each cover all of their grid). Past that the Gaussians are far larger
///   than the picture: a hostile or broken file, or a run that diverged.
#include "engine/gaussian_math.h"
#include "engine/model_spec.h"

#include <cstdint>
#include <span>
#include <string>

namespace redraw {

constexpr int64_t k_gaussian_pairs_per_gaussian = 128;
constexpr int64_t k_gaussian_min_pair_budget = int64_t(1) << 22;

/// Most (bin, Gaussian) pairs `count` Gaussians may make over the whole grid.
int64_t gaussian_max_pairs(int64_t count);
/// The pairs the first g.count Gaussians of `params` (g.floats each) make over the whole
/// grid of g.bins x g.bins bins.
int64_t gaussian_pair_count(const GaussianParams& g, const float* params);
/// Empty when `pairs` pairs of `count` Gaussians are within gaussian_max_pairs; else what is wrong,
/// in words a user can act on.
std::string gaussian_pairs_problem(int64_t pairs, int64_t count);
/// gaussian_pairs_problem of a gaussians model's parameters (the Gaussians lead the array; the
/// family's params_problem, engine/model_family.h): empty when `params` is too short to hold the
/// Gaussians (the caller's size check says so).
std::string gaussian_coverage_problem(const ModelSpec& spec, std::span<const float> params);

} // namespace redraw
