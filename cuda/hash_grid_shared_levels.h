#pragma once
/// Which levels the shared-dense hash-grid backward (cuda/hash_grid_choice.h) sums per block in
/// shared memory before adding them to the table gradient, in plain host/device arithmetic so the
/// CPU tests check it (no CUDA headers).
/// - The leading levels [0, k) whose tables are dense (engine/hash_grid_math.h) and whose fp32
///   gradients together, offset[k] * n_features floats, fit in the budget. The run stops at the
///   first hashed level or the first that would pass the budget: later levels are finer, so they
///   are larger and less contended.
/// - Those levels are the table's first offset[k] entries, so a block's accumulator holds the
///   floats of table_grad[0, offset[k] * n_features), feature-major (hash_grid_shared_index): the
///   corners that a warp's threads add to are entries apart, and one feature's entries are
///   consecutive floats, so they fall in all 32 shared-memory banks (entry-major with 2 features
///   put one feature in the 16 even or odd banks).
/// - The grid (hash_grid_shared_blocks) is a few persistent blocks per SM that stride over the
///   samples, so each block sums several samples per thread before its one flush.
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

/// Samples each thread of the shared-dense backward sums at least, unless the grid is capped.
constexpr int64_t k_hash_grid_shared_samples_per_thread = 4;
/// Blocks per SM the shared-dense backward launches at most (fewer when fewer stay resident).
constexpr int64_t k_hash_grid_shared_blocks_per_sm = 2;

/// The shared-dense backward's blocks for n samples of `threads` per block on `sms` SMs where
/// `resident_per_sm` blocks fit at once: enough for k_hash_grid_shared_samples_per_thread samples
/// per thread, at most min(resident_per_sm, k_hash_grid_shared_blocks_per_sm) per SM, at least one
/// (so that every block strides over the samples and no block waits for another). At n = 2^18, 512
/// threads and an H100's 132 SMs: 128 blocks of 2048 samples (the grid was 512 of 512).
REDRAW_HD inline int64_t hash_grid_shared_blocks(int64_t n, int32_t threads, int32_t sms, int32_t resident_per_sm) {
  const int64_t per_block = int64_t(threads > 0 ? threads : 1) * k_hash_grid_shared_samples_per_thread;
  const int64_t wanted = (n + per_block - 1) / per_block;
  const int64_t per_sm = resident_per_sm < 1                                  ? 1
                         : resident_per_sm < k_hash_grid_shared_blocks_per_sm ? resident_per_sm
                                                                              : k_hash_grid_shared_blocks_per_sm;
  const int64_t cap = per_sm * (sms > 0 ? sms : 1);
  const int64_t blocks = wanted < cap ? wanted : cap;
  return blocks > 0 ? blocks : 1;
}

/// Where feature f of entry e lies in a block's accumulator of `entries` entries: feature-major.
REDRAW_HD inline uint32_t hash_grid_shared_index(uint32_t entries, uint32_t e, int32_t f) {
  return uint32_t(f) * entries + e;
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
