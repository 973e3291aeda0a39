#pragma once
/// Sizing a network to a parameter budget, as the image-fitting papers compare methods: the same
/// number of trainable parameters (model_spec.h's parameter_count: the hash grid's table and every
/// dense layer's weights and biases).
/// - A hash grid keeps its features, and its levels unless even the smallest table (2^10 entries
///   a level) is over the budget (then it drops levels, coarsest kept); its table size
///   (log2_hashmap_size, 10..24) and the width of its hidden layers are chosen together. Any other
///   network keeps its depth and encoding; the width of every hidden layer is chosen.
/// - Among the sizes within k_budget_tolerance of the budget, the one whose width is nearest the
///   preset's own is taken (then the nearest count); when none is within it, BudgetError says the
///   nearest count there is.
/// - The grid's finest resolution is resolved at the training size first (one cell per pixel
///   along the longer side, as "auto" does), so the count is the one training will have.
#include "engine/errors.h"
#include "engine/model_spec.h"

#include <cstdint>

namespace redraw {

/// Relative distance from the budget a sized network may have: 2%.
constexpr double k_budget_tolerance = 0.02;

/// Sizes `spec` (in place) for a `train_width` x `train_height` image so parameter_count(spec) is
/// within k_budget_tolerance of `budget` (> 0), and returns that count. ConfigError naming the
/// budget and the nearest count reachable when none is within it, or when the spec is invalid.
int64_t size_to_budget(ModelSpec& spec, int64_t budget, int32_t train_width, int32_t train_height);

} // namespace redraw
