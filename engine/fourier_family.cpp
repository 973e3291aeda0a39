/// The Fourier family (Tancik et al.): sines and cosines of F random projections of the
/// coordinates; the matrix is drawn from the seed on the host, the per-element math is
/// engine/fourier_math.h's.
#include "engine/errors.h"
#include "engine/model_family.h"
#include "engine/rng_math.h"

#include <cmath>
#include <string>

namespace redraw {

namespace {
constexpr FamilyField k_fourier_fields[] = {
    {.label = "features", .widget = FieldWidget::Input, .i32 = &EncodingSpec::features, .lo = 1, .hi = 4096, .step = 16},
    {.label = "sigma", .widget = FieldWidget::LogSlider, .f32 = &EncodingSpec::sigma, .lo = 0.1, .hi = 100.0}};

EncodingParams fourier_params(const EncodingSpec& e) { return {EncodingKind::Fourier, e.levels, e.features}; }
void fourier_validate(const EncodingSpec& e) {
  if (e.features < 1 || e.features > 4096)
    throw ConfigError("model.encoding.features: " + std::to_string(e.features) + " is outside [1, 4096]");
  if (!(e.sigma > 0.0f) || !std::isfinite(e.sigma) || e.sigma > 1e4f)
    throw ConfigError("model.encoding.sigma: must be in (0, 10000]");
}
int64_t fourier_fixed_count(const EncodingSpec& e) { return int64_t(e.features) * 2; }
void fourier_export(const EncodingSpec& e, uint64_t run_seed, std::span<const float>, FamilyExport& out) {
  out.owned = fourier_matrix(e, run_seed);
  out.tensors.push_back({"encoding.fourier_b", {int64_t(e.features), 2}, out.owned});
}
} // namespace

std::vector<float> fourier_matrix(const EncodingSpec& e, uint64_t run_seed) {
  if (e.kind != EncodingKind::Fourier) return {};
  const uint64_t seed = e.seed ? e.seed : run_seed;
  std::vector<float> b(size_t(e.features) * 2);
  for (size_t i = 0; i < b.size(); ++i) {
    // Box-Muller from two independent uniforms.
    const double u1 = 1.0 - random_unit(seed, k_stream_fourier, 2 * i);
    const double u2 = random_unit(seed, k_stream_fourier, 2 * i + 1);
    b[i] = float(e.sigma * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * k_pi * u2));
  }
  return b;
}

extern const ModelFamily k_fourier_family = {
    .kind = EncodingKind::Fourier,
    .name = "Fourier",
    .trained_noun = nullptr,
    .fixed_noun = "fourier matrix",
    .insight = InsightView::NeuronMaps,
    .no_neurons = nullptr,
    .fused_refusal = nullptr,
    .passes_coordinates = false,
    .budget_sizes_grid = false,
    .fields = k_fourier_fields,
    .panel = FamilyPanel::None,
    .device_params = fourier_params,
    .validate = fourier_validate,
    .trained_count = nullptr,
    .init = nullptr,
    .fixed_count = fourier_fixed_count,
    .fixed_matrix = fourier_matrix,
    .same_fields = nullptr,
    .write_config = nullptr,
    .size_to_image = nullptr,
    .export_rule = fourier_export,
    .describe_shape = nullptr,
    .encode_flops = nullptr,
    .size_to_budget = nullptr,
    .params_problem = nullptr,
    .host_encoder = nullptr,
    .deferred_update_floats = nullptr,
    .trained_lanes = nullptr,
};

} // namespace redraw
