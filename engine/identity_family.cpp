/// The identity family: the coordinates themselves, [x, y], into the first dense layer.
#include "engine/model_family.h"

namespace redraw {

namespace {
EncodingParams identity_params(const EncodingSpec& e) { return {EncodingKind::Identity, e.levels, e.features}; }
} // namespace

extern const ModelFamily k_identity_family = {
    .kind = EncodingKind::Identity,
    .name = "Identity",
    .trained_noun = nullptr,
    .fixed_noun = nullptr,
    .insight = InsightView::NeuronMaps,
    .no_neurons = nullptr,
    .fused_refusal = nullptr,
    .passes_coordinates = true,
    .budget_sizes_grid = false,
    .fields = {},
    .panel = FamilyPanel::None,
    .device_params = identity_params,
    .validate = nullptr,
    .trained_count = nullptr,
    .init = nullptr,
    .fixed_count = nullptr,
    .fixed_matrix = nullptr,
    .same_fields = nullptr,
    .write_config = nullptr,
    .size_to_image = nullptr,
    .export_rule = nullptr,
    .describe_shape = nullptr,
    .encode_flops = nullptr,
    .size_to_budget = nullptr,
    .params_problem = nullptr,
    .host_encoder = nullptr,
    .deferred_update_floats = nullptr,
    .trained_lanes = nullptr,
};

} // namespace redraw
