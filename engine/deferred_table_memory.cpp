#include "engine/deferred_table_memory.h"

#include "engine/thread_budget.h"

#include <algorithm>

namespace redraw {

int64_t cpu_deferred_group_floats(const HashGridParams& g) {
  const int32_t group = std::clamp(cpu_core_count(), 1, g.n_levels);
  return int64_t(g.offset[g.n_levels] - g.offset[g.n_levels - group]) * g.n_features;
}

int64_t cpu_deferred_table_floats(const HashGridParams& g, int64_t batch) {
  return cpu_deferred_group_floats(g) + batch * (int64_t(g.n_levels) * g.n_features + 2);
}

} // namespace redraw
