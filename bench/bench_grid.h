#pragma once
/// The hash grid a benchmark trains. `image` (every benchmark's default): sized to the training
/// image as a user's run gets it (open_run calls size_hash_grid_to_image); `preset`: the preset's
/// auto fields left at their defaults (2^17 rows, per-level scale 1.5), the grid the benchmarks
/// trained before they sized it, kept to compare kernels on both. Each benchmark writes the resolved
/// grid (grid_json) beside its figures, so a figure names the grid it was measured on and a peer can
/// be given the same one.
#include "engine/errors.h"
#include "engine/hash_grid_summary.h"
#include "engine/model_family.h"
#include "engine/run_config.h"

#include <nlohmann/json.hpp>

#include <string>

namespace redraw::bench {

enum class GridSizing { Image, Preset };

/// "image" or "preset"; ConfigError naming both otherwise.
inline GridSizing parse_grid_sizing(const std::string& name) {
  if (name == "image") return GridSizing::Image;
  if (name == "preset") return GridSizing::Preset;
  throw ConfigError("--grid: '" + name + "' not found (known: image, preset)");
}

inline const char* grid_sizing_name(GridSizing s) { return s == GridSizing::Image ? "image" : "preset"; }

/// Resolves cfg's hash grid (other encodings untouched) for a w x h training image under S.
inline void size_bench_grid(RunConfig& cfg, int32_t w, int32_t h, GridSizing s) {
  if (s == GridSizing::Image) size_encoding_to_image(cfg.model.encoding, w, h);
}

/// Whether the benchmarks' grid choices (sizing, backward) apply: the encoding is a hash grid.
inline bool has_grid(const EncodingSpec& enc) { return enc.kind == EncodingKind::HashGrid; }

/// The resolved grid as the JSON rows carry it ("grid"), or null for an encoding without a grid.
inline nlohmann::json grid_json(const EncodingSpec& enc, GridSizing s) {
  if (!has_grid(enc)) return nullptr;
  const HashGridSummary g = summarize_hash_grid(enc);
  return {{"sizing", grid_sizing_name(s)},
          {"levels", g.levels},
          {"dense_levels", g.dense_levels},
          {"features_per_level", g.features_per_level},
          {"log2_hashmap_size", g.log2_hashmap_size},
          {"base_resolution", g.base_resolution},
          {"finest_resolution", g.finest_resolution},
          {"per_level_scale", g.per_level_scale},
          {"entries", g.entries}};
}

} // namespace redraw::bench
