#pragma once
/// The `sad` encoding on the device (engine/sad_math.h holds the per-site and per-point math,
/// engine/sad_list_math.h the lists' per-node and per-point steps, the CPU backend's too).
/// - shapes(): every site's shape, once per set of parameters.
/// - The top-K lists (engine/sad_lists.h): the sites are put in buckets by node (their node as a
///   key, a stable radix sort, so each bucket holds its sites in index order, as the CPU's counting
///   sort); one thread per node runs sad_pass_node. build() runs the CPU's schedule (the seeding
///   pass, steps grid/2 .. 1, one more at 1), refresh() one pass at step 1 (a training step's renews
///   half the rows, taking turns, as the CPU's). Passes number their
///   random candidates from a counter kept on the device, so a refresh enqueues only (no wait, no
///   host copy) and a captured step replays it with the counter moving on; a refresh writes the
///   other buffer and copies it back, so the lists stay where a captured step reads them.
/// - encode: one thread per point blends its node's list (sad_point_blend).
/// - backward, deterministic without atomics, as the CPU's: one thread per point works out its
///   pairs (site, weight, dLoss/dlogit), a stable radix sort by site keeps each site's pairs in
///   point order, and one thread per site adds its pairs in that order.
/// - Buffers grow from the pool on the first calls (a training run's warm-up step) and are then
///   reused, so a captured step allocates nothing.
#include "cuda/device_buffer.h"
#include "engine/sad_math.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

namespace redraw::cuda {

class SadLattice {
public:
  /// Works out the shapes of the p.count sites of `params` (device, count x k_sad_floats) on
  /// `stream` for the passes, encodes and backward passes that follow. BackendError for a count
  /// outside the family's bounds.
  void shapes(const DevicePool& pool, cudaStream_t stream, const SadParams& p, const float* params);
  /// Builds the lists from scratch for the shaped sites (the CPU's sad_build_lists).
  void build(const DevicePool& pool, cudaStream_t stream);
  /// Follows the shaped sites: one pass at step 1 renewing the rows `stride` picks (the CPU's
  /// sad_refresh_lists); a build when there are no lists.
  void refresh(const DevicePool& pool, cudaStream_t stream, int32_t stride = 1);
  bool built() const { return m_built; }
  /// Forgets the lists (new parameters): the next refresh builds them.
  void drop() { m_built = false; }

  /// out (n x k_sad_channels) = the blend at coords (n x 2) of each point's node's list.
  void encode(cudaStream_t stream, const float* params, const float* coords, int64_t n, float* out) const;
  /// The same at the pixel centres of a w x h image, linear pixel indices [p0, p0 + count).
  void encode_pixels(cudaStream_t stream, const float* params, int32_t w, int32_t h, int64_t p0, int64_t count,
                     float* out) const;
  /// grads (count x k_sad_floats) = the gradient given d_out = dLoss/dEncoding (n x k_sad_channels)
  /// at coords, or added to them when `accumulate`.
  void backward(const DevicePool& pool, cudaStream_t stream, const float* params, const float* coords,
                const float* d_out, int64_t n, float* grads, bool accumulate);

  /// The lists (grid * grid * k_sad_k ids, -1 past a list's end), copied to the host (tests).
  std::vector<int32_t> download_lists(cudaStream_t stream) const;

private:
  void buckets(const DevicePool& pool, cudaStream_t stream);
  void pass(cudaStream_t stream, const int32_t* src, int32_t* dst, int32_t step, int32_t stride);
  void reserve_temp(const DevicePool& pool, cudaStream_t stream, size_t bytes);
  SadParams m_p;
  bool m_built = false;
  DeviceBuffer<SadShape<float>> m_shapes;
  DeviceBuffer<uint32_t> m_site_node, m_sorted_node; ///< per site: its node (nodes: none)
  DeviceBuffer<int32_t> m_site_index, m_bucket_order, m_bucket_start;
  DeviceBuffer<int32_t> m_ids, m_other; ///< the lists, and a pass's output
  DeviceBuffer<uint64_t> m_passes;      ///< passes since the build: the random candidates' counter
  // backward
  DeviceBuffer<uint32_t> m_pair_site, m_sorted_site; ///< per (point, k) pair: its site (count: none)
  DeviceBuffer<int32_t> m_pair_index, m_sorted_pair, m_site_start;
  DeviceBuffer<float> m_pair_w, m_pair_dl;
  DeviceBuffer<uint8_t> m_temp; ///< cub's scratch
};

} // namespace redraw::cuda
