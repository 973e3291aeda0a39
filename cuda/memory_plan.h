#pragma once
/// The CUDA backend's memory arithmetic, in plain C++ so the CPU tests check it (no CUDA headers).
/// - Available memory is what the device has free plus what the process's shared pool holds
///   cached (reserved but not in use): every CudaBackend and the preview ring of one device draw
///   from one stream-ordered pool, so memory a finished or replaced run gave back is seen by the
///   next one instead of half the device looking taken.
/// - Training: the fixed parts (dataset, parameters and optimizer state, the encoded dataset when
///   caching pays) plus the largest chunk of rows whose activations fit in 90% of what remains;
///   the encoding is cached only when everything fixed stays under half the available memory.
/// - Rendering: tiles as large as memory allows within [min, max] rows, so a 16384 x 16384 render
///   takes tens of tiles, not thousands sized by the training image.
#include <algorithm>
#include <cstdint>
#include <functional>

namespace redraw::cuda {

struct TrainingMemoryInput {
  uint64_t device_free = 0;   ///< cudaMemGetInfo's free bytes
  uint64_t pool_reserved = 0; ///< bytes the shared pool holds from the device
  uint64_t pool_used = 0;     ///< bytes of those in live allocations
  uint64_t dataset_bytes = 0, param_bytes = 0, encoded_bytes = 0;
  bool encoding_cacheable = false; ///< full batch, a non-identity encoding, under the cache cap
  int64_t max_rows = 0;            ///< rows of the largest useful chunk (min(cap, max(batch, n)))
  int64_t min_rows = 1;            ///< rows a chunk is never shrunk below
  std::function<uint64_t(int64_t rows)> chunk_bytes; ///< activations etc. for a chunk of `rows`
};

struct TrainingMemoryPlan {
  uint64_t available = 0; ///< free + the pool's cached bytes
  uint64_t fixed = 0;     ///< dataset, parameters, optimizer state, cached encoding
  int64_t chunk_rows = 0;
  bool cache_encoding = false;
  uint64_t needed = 0; ///< fixed + chunk_bytes(chunk_rows)
  bool fits = false;
};

inline uint64_t pool_cached_bytes(uint64_t reserved, uint64_t used) { return reserved > used ? reserved - used : 0; }

inline TrainingMemoryPlan plan_training_memory(const TrainingMemoryInput& in) {
  TrainingMemoryPlan p;
  p.available = in.device_free + pool_cached_bytes(in.pool_reserved, in.pool_used);
  const uint64_t base = in.dataset_bytes + in.param_bytes;
  p.cache_encoding = in.encoding_cacheable && base + in.encoded_bytes < p.available / 2;
  p.fixed = base + (p.cache_encoding ? in.encoded_bytes : 0);
  int64_t rows = std::max<int64_t>(1, in.max_rows);
  while (rows > in.min_rows && p.fixed + in.chunk_bytes(rows) > p.available / 10 * 9) rows /= 2;
  rows = std::max<int64_t>(rows, std::min<int64_t>(in.min_rows, std::max<int64_t>(1, in.max_rows)));
  p.chunk_rows = rows;
  p.needed = p.fixed + in.chunk_bytes(rows);
  p.fits = p.needed <= p.available;
  return p;
}

/// Rows (pixels) per render tile: all `pixels` when they fit, else the largest power of two in
/// [min_rows, max_rows] whose `bytes_per_row` stay within a quarter of `available` (training and
/// the GUI keep the rest).
inline int64_t render_tile_rows(int64_t pixels, uint64_t bytes_per_row, uint64_t available, int64_t min_rows,
                                int64_t max_rows) {
  int64_t rows = max_rows;
  while (rows > min_rows && uint64_t(rows) * bytes_per_row > available / 4) rows /= 2;
  return std::max<int64_t>(1, std::min(pixels, std::max(rows, min_rows)));
}

} // namespace redraw::cuda
