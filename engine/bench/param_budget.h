#pragma once
/// Sizing a network to a parameter budget, as the image-fitting papers compare methods: the same
/// number of trainable parameters (model_spec.h's parameter_count: the hash grid's table and every
/// dense layer's weights and biases).
/// - Any network keeps its depth and encoding kind; the width of every hidden layer is chosen. A
///   hash grid also gets its table size (log2_hashmap_size, 10..24) and its level count (1..32).
/// - Among the sizes within k_budget_tolerance of the budget, an MLP takes the width whose count is
///   nearest the budget; a grid the shape nearest the preset's: the smallest |ln(width / preset's)|
///   + |ln(levels / preset's)| (the table's size is free), then the count nearest the budget. When none is within it,
///   ConfigError says the nearest count there is.
/// - A gaussians model keeps its colour head; its count is chosen (the one nearest the budget).
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
