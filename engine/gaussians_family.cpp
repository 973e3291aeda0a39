/// The Gaussians family (GaussianImage): a sum of trainable 2-D Gaussians' colours, then a colour
/// head; the per-element math and the layout are engine/gaussian_math.h's, the coverage bound
/// engine/gaussian_bounds.h's.
#include "engine/errors.h"
#include "engine/gaussian_bounds.h"
#include "engine/gaussian_growth.h"
#include "engine/model_family.h"
#include "engine/rng_math.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace redraw {

namespace {
constexpr FamilyField k_gaussians_fields[] = {{.label = "Gaussians",
                                               .widget = FieldWidget::Input,
                                               .i64 = &EncodingSpec::gaussians,
                                               .lo = double(k_gaussian_min_count),
                                               .hi = double(k_gaussian_max_count),
                                               .step = 1000}};

EncodingParams gaussians_device_params(const EncodingSpec& e) { return {EncodingKind::Gaussians, e.levels, e.features}; }
void gaussians_validate(const EncodingSpec& e) {
  if (e.gaussians < k_gaussian_min_count || e.gaussians > k_gaussian_max_count)
    throw ConfigError("model.gaussians: " + std::to_string(e.gaussians) + " is outside [" +
                      std::to_string(k_gaussian_min_count) + ", " + std::to_string(k_gaussian_max_count) + "]");
}
int64_t gaussians_trained_count(const EncodingSpec& e) { return e.gaussians * gaussian_floats(e.carrier); }

/// The Gaussians' initial floats (layout in engine/gaussian_math.h), from the seed alone, so a seed
/// gives the same model on every machine and for every image (as GaussianImage, which draws its
/// means uniformly too, never from the picture):
/// - means uniform over [-1, 1]^2 (the picture, whatever its size or aspect);
/// - Cholesky diagonals k_gaussian_init_size cells (+-20%), about the mean spacing, so each point
///   is covered by several Gaussians and the gradient reaches every pixel; l21 small (+-0.1 cell):
///   nearly round at first;
/// - colours uniform in [0, 2m], m such that the expected sum is 0.5: the first picture is a
///   noisy mid grey, not black, so the first steps fit the picture rather than its mean;
/// - with the carrier, the same floats (drawn at the same indices: a seed's Gaussians are the
///   plain model's) and frequencies uniform in +-k_gaussian_carrier_init from a stream of their
///   own (0 would be a stationary point: engine/gaussian_math.h).
void init_gaussians(const EncodingSpec& e, uint64_t seed, float* p) {
  auto uniform = [seed](uint64_t i, double lo, double hi) {
    return float(lo + (hi - lo) * random_unit(seed, k_stream_gaussians, i));
  };
  const double f = k_gaussian_diag_floor, s = k_gaussian_init_size;
  // The integral of w over the plane is 2 pi sigma_x sigma_y (1 - (1 + cutoff/2) exp(-cutoff/2)) and
  // the Gaussians' density is one per cell^2.
  const double coverage = 2.0 * k_pi * (s * s + f * f) *
                          (1.0 - (1.0 + 0.5 * k_gaussian_cutoff) * std::exp(-0.5 * k_gaussian_cutoff));
  const double colour_max = 2.0 * 0.5 / coverage;
  const int32_t stride = gaussian_floats(e.carrier);
  for (int64_t i = 0; i < e.gaussians; ++i) {
    float* g = p + i * stride;
    const uint64_t c = uint64_t(i) * k_gaussian_floats;
    g[k_gauss_mx] = uniform(c + k_gauss_mx, -1.0, 1.0);
    g[k_gauss_my] = uniform(c + k_gauss_my, -1.0, 1.0);
    g[k_gauss_l11] = uniform(c + k_gauss_l11, 0.8 * s, 1.2 * s);
    g[k_gauss_l21] = uniform(c + k_gauss_l21, -0.1 * s, 0.1 * s);
    g[k_gauss_l22] = uniform(c + k_gauss_l22, 0.8 * s, 1.2 * s);
    for (int32_t k = 0; k < k_gaussian_channels; ++k)
      g[k_gauss_colour + k] = uniform(c + uint64_t(k_gauss_colour + k), 0.0, colour_max);
    if (!e.carrier) continue;
    for (int32_t k = 0; k < 2; ++k)
      g[k_gauss_wx + k] = float(k_gaussian_carrier_init / k_gaussian_carrier_step *
                                (2.0 * random_unit(seed, k_stream_gaussian_carrier, 2 * uint64_t(i) + uint64_t(k)) - 1.0));
  }
}

/// The Gaussians, and a colour head of one layer that passes their sum through: the identity (a
/// grey picture takes the mean of the three), zero biases, whatever model.init says, so the picture
/// is the Gaussians'. A deeper head takes model.init (returns false).
bool gaussians_init(const ModelSpec& s, const std::vector<DenseLayer>& layers, uint64_t seed, float* p) {
  init_gaussians(s.encoding, seed, p);
  if (layers.size() != 1) return false;
  const DenseLayer& l = layers[0];
  for (int32_t o = 0; o < l.out; ++o)
    for (int32_t i = 0; i < l.in; ++i)
      p[size_t(l.weight_offset + int64_t(o) * l.in + i)] = l.out == l.in ? (o == i ? 1.0f : 0.0f) : 1.0f / float(l.in);
  return true;
}
bool gaussians_same(const EncodingSpec& a, const EncodingSpec& b) { return a.gaussians == b.gaussians && a.carrier == b.carrier; }
/// The carrier is written only when on, so a carrier-off model's config (and file) is as before.
void gaussians_write_config(const EncodingSpec& e, nlohmann::json& encoding, nlohmann::json& model) {
  model["gaussians"] = e.gaussians;
  if (e.carrier) encoding["carrier"] = true;
}
/// The rule is engine/gaussian_math.h's; one row per Gaussian.
void gaussians_export(const EncodingSpec& e, uint64_t, std::span<const float> params, FamilyExport& out) {
  const int64_t floats = gaussian_floats(e.carrier);
  out.metadata = {
      {"gaussians", std::to_string(e.gaussians)},
      {"gaussian_fields", e.carrier ? "mx, my, l11, l21, l22, r, g, b, wx, wy" : "mx, my, l11, l21, l22, r, g, b"},
      {"gaussian_diag_floor", nlohmann::json(k_gaussian_diag_floor).dump()},
      {"gaussian_cutoff", nlohmann::json(k_gaussian_cutoff).dump()},
      {"gaussian_rule", "L = cell [[d(l11), 0], [l21, d(l22)]], d(l) = sqrt(l^2 + gaussian_diag_floor^2), "
                        "cell = float32(2 / sqrt(gaussians)); w = exp(-q/2) - exp(-gaussian_cutoff/2) where "
                        "q = |L^-1 (p - mean)|^2 < gaussian_cutoff, else 0; the encoding is the sum of w (r, g, b)"}};
  if (e.carrier)
    out.metadata.push_back({"gaussian_carrier", "w *= cos(s (wx z1 + wy z2)), s = gaussian_carrier_step, z = (z1, z2) = "
                                                "L^-1 (p - mean) (z1 = (x - mx) / L11, z2 = (y - my - L21 z1) / L22)"});
  if (e.carrier) out.metadata.push_back({"gaussian_carrier_step", nlohmann::json(k_gaussian_carrier_step).dump()});
  out.tensors.push_back({"encoding.gaussians", {e.gaussians, floats}, params.subspan(0, size_t(e.gaussians * floats))});
}
LaneStep gaussians_lanes(const EncodingSpec& e) { return gaussian_lane_step(gaussian_params(e.gaussians, e.carrier)); }
std::string gaussians_shape(const ModelSpec& m) {
  return std::to_string(m.encoding.gaussians) + (m.encoding.carrier ? " Gaussians with a carrier" : " Gaussians");
}

/// A gaussians model's only knob is its count: the one whose parameters are nearest the budget.
/// The tolerance is engine/bench/param_budget.h's (2%).
int64_t gaussians_size_to_budget(ModelSpec& spec, int64_t budget) {
  ModelSpec one = spec;
  one.encoding.gaussians = 1;
  const int64_t floats = gaussian_floats(spec.encoding.carrier);
  const int64_t head = parameter_count(one) - floats; // the colour head's
  const int64_t count = std::clamp<int64_t>((budget - head + floats / 2) / floats,
                                            k_gaussian_min_count, k_gaussian_max_count);
  spec.encoding.gaussians = count;
  return parameter_count(spec);
}
int64_t gaussians_primitives(const EncodingSpec& e) { return e.gaussians; }

} // namespace

extern const ModelFamily k_gaussians_family = {
    .kind = EncodingKind::Gaussians,
    .name = "Gaussians",
    .trained_noun = "Gaussians",
    .fixed_noun = nullptr,
    .insight = InsightView::Gaussians,
    .no_neurons = "its picture is a sum of Gaussians",
    .fused_refusal = "the gaussians encoding",
    .passes_coordinates = false,
    .budget_sizes_grid = false,
    .fields = k_gaussians_fields,
    .panel = FamilyPanel::None,
    .device_params = gaussians_device_params,
    .validate = gaussians_validate,
    .trained_count = gaussians_trained_count,
    .init = gaussians_init,
    .fixed_count = nullptr,
    .fixed_matrix = nullptr,
    .same_fields = gaussians_same,
    .write_config = gaussians_write_config,
    .size_to_image = nullptr,
    .export_rule = gaussians_export,
    .describe_shape = gaussians_shape,
    .encode_flops = nullptr,
    .size_to_budget = gaussians_size_to_budget,
    .params_problem = gaussian_coverage_problem,
    .host_encoder = nullptr,
    .deferred_update_floats = nullptr,
    .trained_lanes = gaussians_lanes,
    .primitives = gaussians_primitives,
    .grow = grow_gaussians,
    .carries = true,
};

} // namespace redraw
