#pragma once
/// Which levels the shared-dense hash-grid backward (cuda/hash_grid_choice.h) sums per block in
/// shared memory before adding them to the table gradient, in plain host/device arithmetic so the
/// CPU tests check it (no CUDA headers).
/// - The leading levels [0, k) whose tables are dense (engine/hash_grid_math.h) and whose fp32
///   gradients together, offset[k] * n_features floats, fit in the budget. The run stops at the
///   first hashed level or the first that would pass the budget: later levels are finer, so they
///   are larger and less contended.
/// - Those levels are the table's first offset[k] entries, so a block's accumulator mirrors
///   table_grad[0, offset[k] * n_features) float for float.
/// - k = 0 (level 0 hashed, or over the budget on its own): the kernel has nothing to sum and the
///   per-sample kernel runs instead.
#include "engine/hash_grid_math.h"

#include <cstdint>

namespace redraw::cuda {

/// One block's shared-memory budget in bytes: 48 KiB, the most dynamic shared memory a launch
/// gets without opting in (cudaFuncSetAttribute); four such blocks fit an H100 SM's 228 KiB.
constexpr uint32_t k_hash_grid_shared_budget = 48u * 1024u;

/// Bytes of fp32 gradient accumulators for levels [0, k) of g (0 <= k <= n_levels).
REDRAW_HD inline uint64_t hash_grid_shared_bytes(const HashGridParams& g, int32_t k) {
  return uint64_t(g.offset[k]) * uint64_t(g.n_features) * uint64_t(sizeof(float));
}

/// The number k of leading levels of g whose gradients the shared-dense backward sums in
/// budget_bytes of shared memory per block (0 <= k <= n_levels).
REDRAW_HD inline int32_t hash_grid_shared_levels(const HashGridParams& g, uint64_t budget_bytes) {
  int32_t k = 0;
  while (k < g.n_levels && g.dense[k] != 0u && hash_grid_shared_bytes(g, k + 1) <= budget_bytes)
    ++k;
  return k;
}

} // namespace redraw::cuda
