#include "engine/optimizer_state.h"

namespace redraw {

int optimizer_state_arrays(const OptimizerSpec& opt) {
  if (opt.kind == OptimizerKind::Adam) return 2;
  return opt.sgd.momentum != 0.0f ? 1 : 0;
}

bool zero_fill_optimizer_state(OptimizerState& state, const OptimizerSpec& opt, size_t count) {
  const int arrays = optimizer_state_arrays(opt);
  bool zeroed = false;
  if (arrays >= 1 && state.first.size() != count) state.first.assign(count, 0.0f), zeroed = true;
  if (arrays >= 2 && state.second.size() != count) state.second.assign(count, 0.0f), zeroed = true;
  return zeroed;
}

} // namespace redraw
