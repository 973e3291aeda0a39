#include "engine/hash_grid_summary.h"

#include "engine/errors.h"

#include <cstdio>

namespace redraw {

HashGridSummary summarize_hash_grid(const EncodingSpec& e) {
  if (e.kind != EncodingKind::HashGrid) throw ConfigError("model.encoding: not a HashGrid");
  const HashGridParams g = hash_grid_params(e);
  HashGridSummary s;
  s.levels = g.n_levels;
  s.features_per_level = g.n_features;
  for (int32_t l = 0; l < g.n_levels; ++l)
    s.dense_levels += g.dense[l] ? 1 : 0;
  s.log2_hashmap_size = e.log2_hashmap_size;
  s.base_resolution = int32_t(g.resolution[0]);
  s.finest_resolution = int32_t(g.resolution[g.n_levels - 1]);
  s.per_level_scale = hash_grid_per_level_scale(e);
  s.entries = int64_t(hash_grid_entries(g));
  return s;
}

std::string describe_hash_grid(const HashGridSummary& s) {
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "%d levels (%d dense) x %d features, 2^%d rows per hashed level, scale %.4f, %d to %d "
                "cells, %lld rows",
                s.levels, s.dense_levels, s.features_per_level, s.log2_hashmap_size, s.per_level_scale,
                s.base_resolution, s.finest_resolution, (long long)s.entries);
  return buf;
}

} // namespace redraw
