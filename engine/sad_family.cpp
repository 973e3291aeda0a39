/// The sad family (soft anisotropic diagrams, SIGGRAPH 2026): trainable sites, each point a softmax
/// blend of its K = 8 nearest sites' colours, then a colour head; the per-point math and the
/// layout are engine/sad_math.h's, the top-K lists engine/sad_lists.h's.
#include "engine/errors.h"
#include "engine/model_family.h"
#include "engine/rng_math.h"
#include "engine/sad_growth.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace redraw {

namespace {
constexpr FamilyField k_sad_fields[] = {{.label = "Sites",
                                         .widget = FieldWidget::Input,
                                         .i64 = &EncodingSpec::sites,
                                         .lo = double(k_sad_min_sites),
                                         .hi = double(k_sad_max_sites),
                                         .step = 1000}};

/// The sites' starting temperature: soft enough that a point's neighbours share it at first, so
/// the gradient reaches every site near it.
constexpr double k_sad_init_tau = 0.3;

EncodingParams sad_device_params(const EncodingSpec& e) { return {EncodingKind::Sad, e.levels, e.features}; }
void sad_validate(const EncodingSpec& e) {
  if (e.sites < k_sad_min_sites || e.sites > k_sad_max_sites)
    throw ConfigError("model.sites: " + std::to_string(e.sites) + " is outside [" + std::to_string(k_sad_min_sites) +
                      ", " + std::to_string(k_sad_max_sites) + "]");
}
int64_t sad_trained_count(const EncodingSpec& e) { return e.sites * k_sad_floats; }

/// The sites' initial floats (layout in engine/sad_math.h), from the seed alone, as the Gaussians':
/// - positions stratified over [-1, 1]^2: the picture is cut into the smallest square grid with at
///   least `sites` cells, the sites take cells in a seeded order, each at a uniform point of its
///   cell (uniform positions would leave clumps and holes the lists must first work through);
/// - the metric round, one cell (+-10%), shears small; radius 0; temperature k_sad_init_tau;
/// - colours uniform in [0.3, 0.7]: the first picture is a noisy mid grey.
void init_sites(const EncodingSpec& e, uint64_t seed, float* p) {
  auto uniform = [seed](uint64_t i, double lo, double hi) {
    return float(lo + (hi - lo) * random_unit(seed, k_stream_sad, i));
  };
  const int64_t side = int64_t(std::ceil(std::sqrt(double(e.sites))));
  const int64_t cells = side * side;
  // A seeded permutation's first `sites` cells: the cell of site i is perm(i), an odd multiplier
  // and an offset mod a power of two walked until it lands below `cells` (a bijection on [0, 2^b)).
  int64_t pow2 = 1;
  while (pow2 < cells) pow2 *= 2;
  const uint64_t mul = (random_u64(seed, k_stream_sad, ~uint64_t(0)) | 1u) & uint64_t(pow2 - 1);
  const uint64_t add = random_u64(seed, k_stream_sad, ~uint64_t(1)) & uint64_t(pow2 - 1);
  auto cell_of = [&](int64_t i) {
    uint64_t v = uint64_t(i);
    do v = (v * (mul | 1u) + add) & uint64_t(pow2 - 1);
    while (int64_t(v) >= cells);
    return int64_t(v);
  };
  const double t0 = std::log(k_sad_init_tau - k_sad_tau_floor);
  for (int64_t i = 0; i < e.sites; ++i) {
    float* s = p + i * k_sad_floats;
    const uint64_t c = uint64_t(i) * k_sad_floats;
    const int64_t cell = cell_of(i);
    const double cx = double(cell % side), cy = double(cell / side);
    s[k_sad_mx] = float(-1.0 + 2.0 * (cx + random_unit(seed, k_stream_sad, c + k_sad_mx)) / double(side));
    s[k_sad_my] = float(-1.0 + 2.0 * (cy + random_unit(seed, k_stream_sad, c + k_sad_my)) / double(side));
    s[k_sad_l11] = uniform(c + k_sad_l11, 0.9, 1.1);
    s[k_sad_l21] = uniform(c + k_sad_l21, -0.05, 0.05);
    s[k_sad_l22] = uniform(c + k_sad_l22, 0.9, 1.1);
    s[k_sad_radius] = 0.0f;
    s[k_sad_temp] = float(t0);
    for (int32_t k = 0; k < k_sad_channels; ++k) s[k_sad_colour + k] = uniform(c + uint64_t(k_sad_colour + k), 0.3, 0.7);
  }
}

/// The sites, and a colour head of one layer that passes their blend through (as the Gaussians'):
/// the identity, or the mean of the three for a grey picture, zero biases. A deeper head takes
/// model.init (returns false).
bool sad_init(const ModelSpec& s, const std::vector<DenseLayer>& layers, uint64_t seed, float* p) {
  init_sites(s.encoding, seed, p);
  if (layers.size() != 1) return false;
  const DenseLayer& l = layers[0];
  for (int32_t o = 0; o < l.out; ++o)
    for (int32_t i = 0; i < l.in; ++i)
      p[size_t(l.weight_offset + int64_t(o) * l.in + i)] = l.out == l.in ? (o == i ? 1.0f : 0.0f) : 1.0f / float(l.in);
  return true;
}
bool sad_same(const EncodingSpec& a, const EncodingSpec& b) { return a.sites == b.sites; }
void sad_write_config(const EncodingSpec& e, nlohmann::json&, nlohmann::json& model) { model["sites"] = e.sites; }

/// The rule is engine/sad_math.h's; one row per site. A point blends the K sites of least energy
/// at its node's centre (python/redraw_reference.py by brute force; the backends' lists find them).
void sad_export(const EncodingSpec& e, uint64_t, std::span<const float> params, FamilyExport& out) {
  const SadParams p = sad_params(e.sites);
  out.metadata = {
      {"sites", std::to_string(e.sites)},
      {"site_fields", "mx, my, l11, l21, l22, radius, t, r, g, b"},
      {"site_k", std::to_string(k_sad_k)},
      {"site_diag_floor", nlohmann::json(k_sad_diag_floor).dump()},
      {"site_tau_floor", nlohmann::json(k_sad_tau_floor).dump()},
      {"site_t_bound", nlohmann::json(k_sad_t_bound).dump()},
      {"site_grid", std::to_string(p.grid)},
      {"site_rule", "L = cell [[d(l11), 0], [l21, d(l22)]], d(l) = sqrt(l^2 + site_diag_floor^2), cell = float32(2 / "
                    "sqrt(sites)); q = |L^-1 (p - mean)|^2, e = (q - radius) / (site_tau_floor + exp(clamp(t, "
                    "-site_t_bound, site_t_bound))); the encoding at p is the softmax(-e) blend of (r, g, b) over the "
                    "site_k sites of least e, as the lists of a site_grid^2 lattice of node centres find them"}};
  out.tensors.push_back({"encoding.sites",
                         {e.sites, int64_t(k_sad_floats)},
                         params.subspan(0, size_t(e.sites) * size_t(k_sad_floats))});
}
std::string sad_shape_words(const ModelSpec& m) { return std::to_string(m.encoding.sites) + " sites"; }

/// A sad model's only knob is its count: the one whose parameters are nearest the budget.
int64_t sad_size_to_budget(ModelSpec& spec, int64_t budget) {
  ModelSpec one = spec;
  one.encoding.sites = 1;
  const int64_t head = parameter_count(one) - k_sad_floats; // the colour head's
  spec.encoding.sites =
      std::clamp<int64_t>((budget - head + k_sad_floats / 2) / k_sad_floats, k_sad_min_sites, k_sad_max_sites);
  return parameter_count(spec);
}

int64_t sad_primitives(const EncodingSpec& e) { return e.sites; }

} // namespace

extern const ModelFamily k_sad_family = {
    .kind = EncodingKind::Sad,
    .name = "Sad",
    .trained_noun = "sites",
    .fixed_noun = nullptr,
    .insight = InsightView::Sites,
    .no_neurons = "its picture is a soft diagram of sites",
    .fused_refusal = "the sad encoding",
    .passes_coordinates = false,
    .budget_sizes_grid = false,
    .fields = k_sad_fields,
    .panel = FamilyPanel::None,
    .device_params = sad_device_params,
    .validate = sad_validate,
    .trained_count = sad_trained_count,
    .init = sad_init,
    .fixed_count = nullptr,
    .fixed_matrix = nullptr,
    .same_fields = sad_same,
    .write_config = sad_write_config,
    .size_to_image = nullptr,
    .export_rule = sad_export,
    .describe_shape = sad_shape_words,
    .encode_flops = nullptr,
    .size_to_budget = sad_size_to_budget,
    .params_problem = nullptr, // any finite sites render in bounded time: a point blends K of them
    .host_encoder = nullptr,
    .deferred_update_floats = nullptr,
    .trained_lanes = nullptr, // positions step in image units for now (the Gaussians' means step in cells)
    .primitives = sad_primitives,
    .grow = grow_sad,
};

} // namespace redraw
