#include "engine/gaussian_bounds.h"

#include <algorithm>
#include <cstdio>

namespace redraw {

int64_t gaussian_max_pairs(int64_t count) {
  return std::max(k_gaussian_min_pair_budget, k_gaussian_pairs_per_gaussian * std::max<int64_t>(count, 0));
}

int64_t gaussian_pair_count(const GaussianParams& g, const float* params) {
  int64_t pairs = 0;
  for (int64_t i = 0; i < g.count; ++i) {
    int32_t box[4];
    gaussian_box(params + i * g.floats, g.cell, g.bins, box);
    pairs += gaussian_box_pairs(box);
  }
  return pairs;
}

std::string gaussian_pairs_problem(int64_t pairs, int64_t count) {
  const int64_t most = gaussian_max_pairs(count);
  if (pairs <= most) return {};
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "the %lld Gaussians cover %.3g (bin, Gaussian) pairs, more than the %.3g a model of that many may "
                "(%lld a Gaussian on average): Gaussians far larger than the picture",
                static_cast<long long>(count), double(pairs), double(most),
                static_cast<long long>(k_gaussian_pairs_per_gaussian));
  return buf;
}

std::string gaussian_coverage_problem(const ModelSpec& spec, std::span<const float> params) {
  const GaussianParams g = gaussian_params(spec.encoding.gaussians, spec.encoding.carrier);
  if (int64_t(params.size()) < g.count * g.floats) return {};
  return gaussian_pairs_problem(gaussian_pair_count(g, params.data()), g.count);
}

} // namespace redraw
