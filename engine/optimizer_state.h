#pragma once
/// An optimizer's state in the flat parameter layout, and how many arrays an optimizer keeps.
/// The backends, the frames, the model file and the trainer all hold it, so it is part of the core.
#include "engine/run_config.h"

#include <cstddef>
#include <vector>

namespace redraw {

/// Optimizer state in the flat parameter layout: Adam's m and v, or SGD's velocity in `first`.
struct OptimizerState {
  std::vector<float> first, second;
};

/// Number of optimizer-state arrays for an optimizer: Adam 2, SGD with momentum 1, plain SGD 0.
int optimizer_state_arrays(const OptimizerSpec& opt);
/// Gives `state` the arrays `opt` keeps for `count` parameters: each one it lacks (empty, or of
/// another size) becomes `count` zeros. Returns whether any did (the optimizer starts afresh).
bool zero_fill_optimizer_state(OptimizerState& state, const OptimizerSpec& opt, size_t count);

} // namespace redraw
