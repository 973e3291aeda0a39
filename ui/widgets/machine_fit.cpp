#include "ui/widgets/machine_fit.h"

#include <algorithm>
#include <cmath>

namespace redraw {

std::string first_launch_preset() { return "instant"; }

int32_t suggested_training_side(int32_t side, int64_t pixels, int64_t batch, double steps_per_s, int64_t total_steps,
                                double target_seconds) {
  if (side <= 16 || pixels <= 0 || !(steps_per_s > 0) || total_steps <= 0 || !(target_seconds > 0)) return 0;
  if (batch > 0 && batch < pixels) return 0; // a minibatch step costs the same at any size
  const double run_s = double(total_steps) / steps_per_s;
  if (run_s <= target_seconds) return 0;
  // Step time ~ pixels ~ side^2: the side that makes the whole run take target_seconds.
  const int32_t want = int32_t(std::floor(double(side) * std::sqrt(target_seconds / run_s)));
  const int32_t s = std::max(16, want);
  return s < side ? s : 0;
}

} // namespace redraw
