#include "engine/bench/param_budget.h"

#include "engine/model_family.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

namespace redraw {

namespace {
constexpr int32_t k_min_width = 8, k_max_width = 1024;

/// The count with every hidden layer `width` wide; -1 when the spec is invalid so.
int64_t count_at(ModelSpec spec, int32_t width) {
  for (int32_t& w : spec.hidden)
    w = width;
  try {
    return parameter_count(spec);
  } catch (const Error&) {
    return -1;
  }
}

/// The smallest width in [k_min_width, k_max_width + 1] whose count is at least `target` (counts
/// grow with the width).
int32_t first_width_reaching(const ModelSpec& s, double target) {
  int32_t lo = k_min_width, hi = k_max_width + 1;
  while (lo < hi) {
    const int32_t mid = lo + (hi - lo) / 2;
    if (double(count_at(s, mid)) >= target)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/// A family with its own knob (the Gaussians' count) sizes itself; the count must land within the
/// tolerance.
int64_t size_by_family(const ModelFamily& family, ModelSpec& spec, int64_t budget) {
  const int64_t n = family.size_to_budget(spec, budget);
  if (std::abs(double(n - budget)) > k_budget_tolerance * double(budget))
    throw ConfigError("parameter budget: " + std::to_string(budget) + " is out of reach of a " + family_noun(family) +
                      " model (nearest: " + std::to_string(n) + " parameters, " + model_shape(spec) + ")");
  return n;
}

struct Choice {
  int32_t width = 0, levels = 0, log2_table = 0;
  int64_t count = -1;
  double cost = std::numeric_limits<double>::infinity(); ///< how far from the preset's shape
};
} // namespace

int64_t size_to_budget(ModelSpec& spec, int64_t budget, int32_t train_width, int32_t train_height) {
  if (budget <= 0) throw ConfigError("parameter budget: must be positive (was " + std::to_string(budget) + ")");
  const ModelFamily& family = model_family(spec.encoding.kind);
  if (family.size_to_budget) return size_by_family(family, spec, budget);
  if (spec.hidden.empty())
    throw ConfigError("parameter budget: the network has no hidden layer whose width could be sized");
  const int32_t preset_width = spec.hidden.front(), preset_levels = spec.encoding.n_levels;
  const bool grid = family.budget_sizes_grid;
  if (grid) {
    // An "auto" finest resolution resolved for this size, then fixed; the table is chosen below.
    spec.encoding.auto_table_size = false;
    size_hash_grid_to_image(spec.encoding, train_width, train_height);
    spec.encoding.auto_finest_resolution = false;
  }
  const double low = double(budget) * (1 - k_budget_tolerance), high = double(budget) * (1 + k_budget_tolerance);
  // Within the tolerance, the shape nearest the preset's: the smallest |ln(width / preset's)| +
  // |ln(levels / preset's)|, so a grid changes its table first, then its levels and width alike.
  Choice best, nearest; // nearest: the count nearest the budget, for the message when none is within it
  for (int32_t levels = grid ? 1 : preset_levels; levels <= (grid ? 32 : preset_levels); ++levels)
    for (int32_t log2 = grid ? 10 : 0; log2 <= (grid ? 24 : 0); ++log2) {
      ModelSpec s = spec;
      if (grid) {
        s.encoding.n_levels = levels;
        s.encoding.log2_hashmap_size = log2;
      }
      const int32_t lo = first_width_reaching(s, low), hi = first_width_reaching(s, std::nextafter(high, INFINITY)) - 1;
      for (const int32_t w : {lo - 1, lo, hi, hi + 1}) { // the band's edges and their neighbours
        if (w < k_min_width || w > k_max_width) continue;
        const int64_t n = count_at(s, w);
        if (n >= 0 && (nearest.count < 0 || std::abs(double(n - budget)) < std::abs(double(nearest.count - budget))))
          nearest = {w, levels, log2, n};
      }
      if (lo > hi || lo > k_max_width) continue;
      // A grid's width stays nearest the preset's; an MLP's only knob is its width: the count nearest the budget.
      int32_t w = std::clamp(preset_width, lo, hi);
      if (!grid)
        for (int32_t v = lo; v <= hi; ++v)
          if (std::abs(double(count_at(s, v) - budget)) < std::abs(double(count_at(s, w) - budget))) w = v;
      const int64_t n = count_at(s, w);
      if (n < 0) continue;
      const double cost =
          grid ? std::abs(std::log(double(w) / preset_width)) + std::abs(std::log(double(levels) / preset_levels))
               : 0.0;
      if (cost < best.cost - 1e-12 ||
          (cost < best.cost + 1e-12 && std::abs(double(n - budget)) < std::abs(double(best.count - budget))))
        best = {w, levels, log2, n, cost};
    }
  if (best.count < 0) {
    if (nearest.count < 0)
      throw ConfigError("parameter budget " + std::to_string(budget) + ": the network is invalid at every size");
    const double err = std::abs(double(nearest.count - budget)) / double(budget);
    throw ConfigError("parameter budget " + std::to_string(budget) + ": the nearest size has " +
                      std::to_string(nearest.count) + " parameters (" + std::to_string(int(std::lround(err * 100))) +
                      "% away; at most 2% is allowed)");
  }
  for (int32_t& w : spec.hidden)
    w = best.width;
  if (grid) {
    spec.encoding.n_levels = best.levels;
    spec.encoding.log2_hashmap_size = best.log2_table;
  }
  return parameter_count(spec);
}

} // namespace redraw
