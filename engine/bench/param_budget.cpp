#include "engine/bench/param_budget.h"

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

struct Choice {
  int32_t width = 0, log2_table = 0;
  int64_t count = -1;
};

/// Better: within the tolerance before not; then the width nearer the preset's; then nearer the budget.
bool better(const Choice& a, const Choice& b, int64_t budget, int32_t preset_width) {
  if (b.count < 0) return a.count >= 0;
  if (a.count < 0) return false;
  const double ea = std::abs(double(a.count - budget)) / double(budget), eb = std::abs(double(b.count - budget)) / double(budget);
  const bool ia = ea <= k_budget_tolerance, ib = eb <= k_budget_tolerance;
  if (ia != ib) return ia;
  if (!ia) return ea < eb;
  const int32_t da = std::abs(a.width - preset_width), db = std::abs(b.width - preset_width);
  if (da != db) return da < db;
  return ea < eb;
}
} // namespace

int64_t size_to_budget(ModelSpec& spec, int64_t budget, int32_t train_width, int32_t train_height) {
  if (budget <= 0) throw ConfigError("parameter budget: must be positive (was " + std::to_string(budget) + ")");
  if (spec.hidden.empty()) throw ConfigError("parameter budget: the network has no hidden layer whose width could be sized");
  const int32_t preset_width = spec.hidden.front();
  const bool grid = spec.encoding.kind == EncodingKind::HashGrid;
  if (grid) {
    // An "auto" finest resolution resolved for this size, then fixed; the table is chosen below.
    spec.encoding.auto_table_size = false;
    size_hash_grid_to_image(spec.encoding, train_width, train_height);
    spec.encoding.auto_finest_resolution = false;
  }
  // A grid keeps its levels when any table and width meet the budget; else it drops levels, one
  // at a time (a budget below a 2^10 table on every level).
  Choice best;
  ModelSpec chosen = spec;
  for (int32_t levels = spec.encoding.n_levels; levels >= (grid ? 1 : spec.encoding.n_levels); --levels) {
    ModelSpec base = spec;
    if (grid) base.encoding.n_levels = levels;
    Choice here;
    for (int32_t log2 = grid ? 10 : 0; log2 <= (grid ? 24 : 0); ++log2) {
      ModelSpec s = base;
      if (grid) s.encoding.log2_hashmap_size = log2;
      for (int32_t w = k_min_width; w <= k_max_width; ++w) {
        const Choice c{w, log2, count_at(s, w)};
        if (better(c, here, budget, preset_width)) here = c;
        if (c.count > 2 * budget) break; // counts grow with the width
      }
    }
    if (better(here, best, budget, preset_width)) {
      best = here;
      chosen = base;
    }
    if (best.count >= 0 && std::abs(double(best.count - budget)) / double(budget) <= k_budget_tolerance) break;
  }
  spec = chosen;
  if (best.count < 0) throw ConfigError("parameter budget " + std::to_string(budget) + ": the network is invalid at every size");
  const double err = std::abs(double(best.count - budget)) / double(budget);
  if (err > k_budget_tolerance)
    throw ConfigError("parameter budget " + std::to_string(budget) + ": the nearest size has " +
                      std::to_string(best.count) + " parameters (" + std::to_string(int(std::lround(err * 100))) +
                      "% away; at most 2% is allowed)");
  for (int32_t& w : spec.hidden)
    w = best.width;
  if (grid) spec.encoding.log2_hashmap_size = best.log2_table;
  return parameter_count(spec);
}

} // namespace redraw
