#pragma once
/// What a HashGrid spec resolves to, in the terms benchmarks and their peers compare: levels,
/// how many are dense, table rows, scale and the finest resolution. Two runs train like grids when
/// their summaries are equal.
#include "engine/model_spec.h"

#include <cstdint>
#include <string>

namespace redraw {

struct HashGridSummary {
  int32_t levels = 0;
  int32_t dense_levels = 0; ///< levels indexed directly (every vertex its own row)
  int32_t features_per_level = 0;
  int32_t log2_hashmap_size = 0; ///< the hashed levels' rows: 2^this each
  int32_t base_resolution = 0;   ///< cells per side of the coarsest level
  int32_t finest_resolution = 0; ///< cells per side of the finest level, as resolved
  double per_level_scale = 0;    ///< the scale the levels use (derived when finest_resolution is set)
  int64_t entries = 0;           ///< table rows over all levels (features_per_level floats each)
  bool operator==(const HashGridSummary&) const = default;
};

/// The resolved grid of a HashGrid spec (its auto fields as they stand: size_hash_grid_to_image
/// first for a user's grid). ConfigError when the spec is not a valid HashGrid.
HashGridSummary summarize_hash_grid(const EncodingSpec& enc);

/// One line: "16 levels (15 dense) x 2 features, 2^18 rows per hashed level, scale 1.2599, 16 to
/// 512 cells, 712,... rows" with the numbers of S.
std::string describe_hash_grid(const HashGridSummary& s);

} // namespace redraw
