#include "engine/thread_budget.h"

#include <omp.h>

#include <algorithm>
#include <atomic>

namespace redraw {

namespace {
std::atomic<int> g_threads{0}; // process-wide, like the OpenMP runtime's own settings
std::atomic<int> g_reserved{0};
} // namespace

int cpu_core_count() { return std::max(1, omp_get_num_procs()); }

void set_cpu_threads(int n) { g_threads.store(n <= 0 ? 0 : std::min(n, 1024)); }

int cpu_threads_setting() { return g_threads.load(); }

void set_cpu_reserved_threads(int n) { g_reserved.store(std::clamp(n, 0, 64)); }

int cpu_reserved_threads() { return g_reserved.load(); }

} // namespace redraw
