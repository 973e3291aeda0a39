/// The hash-grid family (Müller et al.): L levels of trainable features, dense where a level's
/// grid fits its table and hashed above; the per-element math is engine/hash_grid_math.h's.
#include "engine/errors.h"
#include "engine/deferred_table_memory.h"
#include "engine/model_family.h"
#include "engine/rng_math.h"
#include "engine/run_config.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace redraw {

namespace {
constexpr uint32_t k_max_grid_resolution = uint32_t(1) << 20;

std::string grid_str(int64_t v) { return std::to_string(v); }

/// Checks the HashGrid fields that do not depend on the derived resolutions.
void validate_hash_grid_fields(const EncodingSpec& e) {
  if (e.n_levels < 1 || e.n_levels > k_hash_grid_max_levels)
    throw ConfigError("model.encoding.n_levels: " + grid_str(e.n_levels) + " is outside [1, " +
                      grid_str(k_hash_grid_max_levels) + "]");
  const int32_t f = e.n_features_per_level;
  if (f != 1 && f != 2 && f != 4 && f != 8)
    throw ConfigError("model.encoding.n_features_per_level: " + grid_str(f) + " must be 1, 2, 4 or 8");
  if (e.log2_hashmap_size < 10 || e.log2_hashmap_size > 24)
    throw ConfigError("model.encoding.log2_hashmap_size: " + grid_str(e.log2_hashmap_size) + " is outside [10, 24]");
  if (e.base_resolution < 2 || uint32_t(e.base_resolution) > k_max_grid_resolution)
    throw ConfigError("model.encoding.base_resolution: " + grid_str(e.base_resolution) + " is outside [2, " +
                      grid_str(k_max_grid_resolution) + "]");
  if (e.finest_resolution != 0 &&
      (e.finest_resolution < e.base_resolution || uint32_t(e.finest_resolution) > k_max_grid_resolution))
    throw ConfigError("model.encoding.finest_resolution: " + grid_str(e.finest_resolution) +
                      " must be 0 (use per_level_scale) or in [base_resolution, " + grid_str(k_max_grid_resolution) +
                      "]");
  if (e.finest_resolution == 0 && !(e.per_level_scale >= 1.0f && e.per_level_scale <= 16.0f))
    throw ConfigError("model.encoding.per_level_scale: must be in [1, 16]");
}

constexpr FamilyField k_hash_grid_fields[] = {
    {.label = "levels", .widget = FieldWidget::Slider, .i32 = &EncodingSpec::n_levels, .lo = 1,
     .hi = k_hash_grid_max_levels},
    {.label = "features per level", .widget = FieldWidget::PowerOfTwo, .i32 = &EncodingSpec::n_features_per_level,
     .lo = 1, .hi = 8}};

EncodingParams hash_grid_device_params(const EncodingSpec& e) {
  return {EncodingKind::HashGrid, e.n_levels, e.n_features_per_level};
}
void hash_grid_validate(const EncodingSpec& e) {
  if (int64_t(e.n_levels) * e.n_features_per_level > 256)
    throw ConfigError("model.encoding: n_levels x n_features_per_level is over 256");
}
int64_t hash_grid_trained_count(const EncodingSpec& e) {
  const HashGridParams g = hash_grid_params(e);
  return int64_t(hash_grid_entries(g)) * g.n_features;
}
/// The table: its own stream, so the dense layers draw the same numbers with or without one.
bool hash_grid_init(const ModelSpec& s, const std::vector<DenseLayer>&, uint64_t seed, float* p) {
  const int64_t table = encoding_parameter_count(s.encoding);
  for (int64_t i = 0; i < table; ++i)
    p[size_t(i)] = float((2.0 * random_unit(seed, k_stream_hash_grid, uint64_t(i)) - 1.0) * k_hash_grid_init_range);
  return false;
}
bool hash_grid_same(const EncodingSpec& a, const EncodingSpec& b) {
  // An auto-sized field's value is the image's business (size_hash_grid_to_image), not a choice.
  const bool same_table = a.auto_table_size || a.log2_hashmap_size == b.log2_hashmap_size;
  const bool same_finest = a.auto_finest_resolution || a.finest_resolution == b.finest_resolution;
  return a.n_levels == b.n_levels && a.n_features_per_level == b.n_features_per_level && same_table &&
         a.base_resolution == b.base_resolution && a.per_level_scale == b.per_level_scale && same_finest &&
         a.interpolation == b.interpolation && a.auto_table_size == b.auto_table_size &&
         a.auto_finest_resolution == b.auto_finest_resolution;
}
/// Only a grid's config carries these, so other configs stay as before.
void hash_grid_write_config(const EncodingSpec& e, nlohmann::json& encoding, nlohmann::json&) {
  encoding["n_levels"] = e.n_levels;
  encoding["n_features_per_level"] = e.n_features_per_level;
  encoding["log2_hashmap_size"] = e.log2_hashmap_size;
  encoding["base_resolution"] = e.base_resolution;
  encoding["per_level_scale"] = float_json(e.per_level_scale);
  encoding["finest_resolution"] = e.finest_resolution;
  encoding["interpolation"] = interpolation_name(e.interpolation);
  nlohmann::json sized = nlohmann::json::array();
  if (e.auto_table_size) sized.push_back("log2_hashmap_size");
  if (e.auto_finest_resolution) sized.push_back("finest_resolution");
  if (!sized.empty()) encoding["sized_to_image"] = sized;
}
std::string two_digit_level(int v) {
  char b[8];
  std::snprintf(b, sizeof b, "%02d", v);
  return b;
}
void hash_grid_export(const EncodingSpec& e, uint64_t, std::span<const float> params, FamilyExport& out) {
  const HashGridParams g = hash_grid_params(e);
  nlohmann::json res = nlohmann::json::array(), dense = nlohmann::json::array();
  for (int32_t l = 0; l < g.n_levels; ++l) {
    res.push_back(g.resolution[l]);
    dense.push_back(g.dense[l] != 0);
  }
  out.metadata = {{"hash_grid_levels", std::to_string(g.n_levels)},
                  {"hash_grid_features", std::to_string(g.n_features)},
                  {"hash_grid_resolutions", res.dump()},
                  {"hash_grid_dense", dense.dump()},
                  {"hash_grid_table_size", std::to_string(uint64_t(g.hash_mask) + 1)},
                  {"hash_grid_interpolation", interpolation_name(g.interpolation)},
                  {"hash_grid_prime_y", std::to_string(k_hash_grid_prime_y)}};
  for (int32_t l = 0; l < g.n_levels; ++l) {
    const int64_t entries = int64_t(g.offset[l + 1]) - g.offset[l];
    out.tensors.push_back({"encoding.hash_grid.level_" + two_digit_level(l),
                           {entries, int64_t(g.n_features)},
                           params.subspan(size_t(g.offset[l]) * size_t(g.n_features), size_t(entries * g.n_features))});
  }
}
std::string hash_grid_shape(const ModelSpec& m) {
  return "hidden " + std::to_string(m.hidden.empty() ? 0 : m.hidden.front()) + " wide, " +
         std::to_string(m.encoding.n_levels) + " levels, table 2^" + std::to_string(m.encoding.log2_hashmap_size);
}
/// Each level's features, read from the table that leads `params`.
std::function<void(float, float, float*)> hash_grid_host_encoder(const EncodingSpec& e, std::span<const float> params) {
  const HashGridParams gp = hash_grid_params(e);
  return [gp, table = params.data()](float x, float y, float* out) {
    for (int32_t l = 0; l < gp.n_levels; ++l)
      hash_grid_encode_level<float>(gp, table, l, x, y, out + size_t(l) * size_t(gp.n_features));
  };
}
/// A hash grid's lookups: 4 corners per level and feature, forward and back.
double hash_grid_flops(const EncodingSpec& e) { return 8.0 * 4 * e.n_levels * e.n_features_per_level; }
} // namespace

int32_t auto_log2_hashmap_size(int64_t pixels) {
  const int32_t nearest = int32_t(std::lround(std::log2(double(std::max<int64_t>(pixels, 1)))));
  return std::clamp(nearest, k_auto_log2_hashmap_min, k_auto_log2_hashmap_max);
}

void size_hash_grid_to_image(EncodingSpec& e, int32_t w, int32_t h) {
  if (e.kind != EncodingKind::HashGrid || w < 1 || h < 1) return;
  if (e.auto_table_size) e.log2_hashmap_size = auto_log2_hashmap_size(int64_t(w) * h);
  // One cell per pixel along the longer side at the finest level.
  if (e.auto_finest_resolution)
    e.finest_resolution = std::clamp<int32_t>(std::max(w, h), e.base_resolution, int32_t(k_max_grid_resolution));
}

double hash_grid_per_level_scale(const EncodingSpec& e) {
  if (e.finest_resolution > 0 && e.n_levels > 1)
    return std::exp2(std::log2(double(e.finest_resolution) / double(e.base_resolution)) / double(e.n_levels - 1));
  return double(e.per_level_scale);
}

HashGridParams hash_grid_params(const EncodingSpec& e) {
  validate_hash_grid_fields(e);
  HashGridParams g;
  g.n_levels = e.n_levels;
  g.n_features = e.n_features_per_level;
  const uint64_t table = uint64_t(1) << e.log2_hashmap_size;
  g.hash_mask = uint32_t(table - 1);
  g.interpolation = e.interpolation;
  const double scale = hash_grid_per_level_scale(e);
  uint64_t offset = 0;
  for (int32_t l = 0; l < e.n_levels; ++l) {
    // The 1e-6 keeps a derived finest level exact: 16 * (2048/16)^(15/15) may come out as 2047.9999.
    const double n = std::floor(double(e.base_resolution) * std::pow(scale, double(l)) + 1e-6);
    if (n > double(k_max_grid_resolution))
      throw ConfigError("model.encoding: level " + grid_str(l) + " would have " + grid_str(int64_t(n)) +
                        " cells per side, over the limit of " + grid_str(k_max_grid_resolution) +
                        " (lower per_level_scale or n_levels)");
    g.resolution[l] = uint32_t(n);
    const uint64_t vertices = (uint64_t(n) + 1) * (uint64_t(n) + 1);
    g.dense[l] = vertices <= table ? 1u : 0u;
    g.offset[l] = uint32_t(offset);
    offset += g.dense[l] ? vertices : table;
  }
  g.offset[e.n_levels] = uint32_t(offset);
  return g;
}

namespace {
/// A CPU minibatch keeps no gradient array for the table (the update waits for the next step's
/// encoding): only a group of levels' gradients and the step's dLoss/dEncoding.
int64_t hash_grid_deferred_floats(const EncodingSpec& e, int64_t batch) {
  return cpu_deferred_table_floats(hash_grid_params(e), batch);
}
} // namespace

extern const ModelFamily k_hash_grid_family = {
    .kind = EncodingKind::HashGrid,
    .name = "HashGrid",
    .trained_noun = "hash table",
    .fixed_noun = nullptr,
    .insight = InsightView::NeuronMaps,
    .no_neurons = nullptr,
    .fused_refusal = nullptr,
    .passes_coordinates = false,
    .budget_sizes_grid = true,
    .fields = k_hash_grid_fields,
    .panel = FamilyPanel::HashGridTable,
    .device_params = hash_grid_device_params,
    .validate = hash_grid_validate,
    .trained_count = hash_grid_trained_count,
    .init = hash_grid_init,
    .fixed_count = nullptr,
    .fixed_matrix = nullptr,
    .same_fields = hash_grid_same,
    .write_config = hash_grid_write_config,
    .size_to_image = size_hash_grid_to_image,
    .export_rule = hash_grid_export,
    .describe_shape = hash_grid_shape,
    .encode_flops = hash_grid_flops,
    .size_to_budget = nullptr,
    .params_problem = nullptr,
    .host_encoder = hash_grid_host_encoder,
    .deferred_update_floats = hash_grid_deferred_floats,
    .trained_lanes = nullptr,
};

} // namespace redraw
