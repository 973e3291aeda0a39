#include "engine/training/step_plan.h"

#include <algorithm>

namespace redraw {

StepPlan plan_step(int64_t step, int64_t total_steps, int64_t metrics_every, const SnapshotPolicy& policy) {
  const int64_t every = std::max<int64_t>(1, metrics_every);
  const int64_t count = step + 1;
  StepPlan plan;
  plan.measure = count % every == 0 || count == total_steps || step == 0;
  plan.snapshot = policy.should_snapshot(count);
  return plan;
}

} // namespace redraw
