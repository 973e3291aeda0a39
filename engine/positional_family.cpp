/// The positional family (NeRF): [x, y] and sines and cosines of L octaves of each coordinate;
/// the per-element math is engine/positional_math.h's.
#include "engine/errors.h"
#include "engine/model_family.h"

#include <string>

namespace redraw {

namespace {
constexpr FamilyField k_positional_fields[] = {
    {.label = "frequencies L", .widget = FieldWidget::Slider, .i32 = &EncodingSpec::levels, .lo = 1, .hi = 16}};

EncodingParams positional_params(const EncodingSpec& e) { return {EncodingKind::Positional, e.levels, e.features}; }
void positional_validate(const EncodingSpec& e) {
  if (e.levels < 1 || e.levels > 24)
    throw ConfigError("model.encoding.levels: " + std::to_string(e.levels) + " is outside [1, 24]");
}
void positional_export(const EncodingSpec& e, uint64_t, std::span<const float>, FamilyExport& out) {
  out.metadata.emplace_back("positional_levels", std::to_string(e.levels));
}
} // namespace

extern const ModelFamily k_positional_family = {
    .kind = EncodingKind::Positional,
    .name = "Positional",
    .trained_noun = nullptr,
    .fixed_noun = nullptr,
    .insight = InsightView::NeuronMaps,
    .no_neurons = nullptr,
    .fused_refusal = nullptr,
    .passes_coordinates = false,
    .budget_sizes_grid = false,
    .fields = k_positional_fields,
    .panel = FamilyPanel::None,
    .device_params = positional_params,
    .validate = positional_validate,
    .trained_count = nullptr,
    .init = nullptr,
    .fixed_count = nullptr,
    .fixed_matrix = nullptr,
    .same_fields = nullptr,
    .write_config = nullptr,
    .size_to_image = nullptr,
    .export_rule = positional_export,
    .describe_shape = nullptr,
    .encode_flops = nullptr,
    .size_to_budget = nullptr,
    .params_problem = nullptr,
    .host_encoder = nullptr,
    .deferred_update_floats = nullptr,
    .trained_lanes = nullptr,
};

} // namespace redraw
