#pragma once
/// A training state a run can be set to: weights, optimizer state, step counts and the loss at that
/// step. The divergence guard's good state is one; a branch from a frame and a resume from a
/// checkpoint start from one.
#include "engine/backend.h"

#include <cstdint>
#include <vector>

namespace redraw {

struct TrainingState {
  int64_t step = 0;           ///< steps completed
  int64_t optimizer_step = 0; ///< updates since the optimizer state was zeroed (Adam's bias correction)
  double loss = 0;            ///< the loss of the network at `step` (NaN: none known)
  std::vector<float> params;
  OptimizerState optimizer; ///< every array the optimizer keeps, at full size
};

} // namespace redraw
