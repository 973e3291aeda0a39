#include "cuda/cuda_check.h"
#include "cuda/sad_kernels.cuh"
#include "engine/errors.h"
#include "engine/sad_list_math.h"

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <climits>
#include <string>

namespace redraw::cuda {

namespace {

constexpr int k_sad_threads = 256;

unsigned sad_blocks(int64_t count) { return unsigned((count + k_sad_threads - 1) / k_sad_threads); }

/// Grows `buf` to at least n elements; its contents are not kept. A lattice's sizes follow its
/// count and the largest pass it has seen, so it grows on the first calls only.
template <class T> void sad_ensure(DeviceBuffer<T>& buf, const DevicePool& pool, cudaStream_t stream, int64_t n,
                                   const char* what) {
  if (int64_t(buf.size()) >= n) return;
  buf = DeviceBuffer<T>();
  buf = DeviceBuffer<T>(pool, stream, size_t(std::max<int64_t>(n, 1)), what);
}

/// Bits a radix sort needs for keys up to `max_key` (inclusive).
int sad_sort_bits(int64_t max_key) {
  int b = 1;
  while ((int64_t(1) << b) <= max_key) ++b;
  return b;
}

/// Per site: its shape, and its node as a sort key (nodes for a non-finite position: after all).
__global__ void sad_shapes_kernel(SadParams p, const float* __restrict__ params, SadShape<float>* __restrict__ shapes,
                                  uint32_t* __restrict__ site_node, int32_t* __restrict__ site_index) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= p.count) return;
  const float* site = params + i * k_sad_floats;
  shapes[i] = sad_shape<float>(site, p.cell);
  const int64_t node = sad_site_node(site, p.grid);
  site_node[i] = uint32_t(node >= 0 ? node : int64_t(p.grid) * p.grid);
  site_index[i] = int32_t(i);
}

/// One thread per place j in [0, total] of a sorted key list: its starts (sad_sorted_starts_at).
__global__ void sad_starts_kernel(const uint32_t* __restrict__ sorted, int64_t total, int64_t keys,
                                  int32_t* __restrict__ start) {
  const int64_t j = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j > total) return;
  sad_sorted_starts_at(sorted, total, keys, j, start);
}

/// One thread per node: one jump-flooding pass (engine/sad_list_math.h), numbered by *passes,
/// renewing the rows sad_pass_renews_row picks for `stride` (the others copied).
__global__ void sad_pass_kernel(SadParams p, const SadShape<float>* __restrict__ shapes,
                                const int32_t* __restrict__ bucket_start, const int32_t* __restrict__ bucket_order,
                                const int32_t* __restrict__ src, int32_t* __restrict__ dst, int32_t step,
                                int32_t stride, const uint64_t* __restrict__ passes) {
  const int64_t node = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (node >= int64_t(p.grid) * p.grid) return;
  sad_refresh_node(shapes, p.count, p.grid, bucket_start, bucket_order, src, dst, step, *passes, stride, node);
}

__global__ void sad_count_pass_kernel(uint64_t* passes) { ++*passes; }

__global__ void sad_encode_kernel(SadParams p, const float* __restrict__ params,
                                  const SadShape<float>* __restrict__ shapes, const int32_t* __restrict__ ids,
                                  const float* __restrict__ coords, int64_t n, float* __restrict__ out) {
  const int64_t s = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= n) return;
  const float x = coords[2 * s], y = coords[2 * s + 1];
  int32_t site[k_sad_k];
  float w[k_sad_k];
  sad_point_blend(shapes, params, sad_node_list(ids, p.grid, x, y), x, y, site, w, out + s * k_sad_channels);
}

__global__ void sad_encode_pixels_kernel(SadParams p, const float* __restrict__ params,
                                         const SadShape<float>* __restrict__ shapes, const int32_t* __restrict__ ids,
                                         int32_t w, int32_t h, int64_t p0, int64_t count, float* __restrict__ out) {
  const int64_t r = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= count) return;
  const int64_t q = p0 + r;
  const float x = pixel_centre<float>(q % w, w), y = pixel_centre<float>(q / w, h);
  int32_t site[k_sad_k];
  float wt[k_sad_k];
  sad_point_blend(shapes, params, sad_node_list(ids, p.grid, x, y), x, y, site, wt, out + r * k_sad_channels);
}

/// One thread per point: its k_sad_k pairs (sad_point_pairs); a pair past the point's list has
/// site `count` (sorted after every site's) and no terms.
__global__ void sad_pairs_kernel(SadParams p, const float* __restrict__ params,
                                 const SadShape<float>* __restrict__ shapes, const int32_t* __restrict__ ids,
                                 const float* __restrict__ coords, const float* __restrict__ d_out, int64_t n,
                                 uint32_t* __restrict__ pair_site, int32_t* __restrict__ pair_index,
                                 float* __restrict__ pair_w, float* __restrict__ pair_dl) {
  const int64_t s = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= n) return;
  const float x = coords[2 * s], y = coords[2 * s + 1];
  int32_t site[k_sad_k];
  const int64_t at = s * k_sad_k;
  sad_point_pairs(shapes, params, sad_node_list(ids, p.grid, x, y), x, y, d_out + s * k_sad_channels, site,
                  pair_w + at, pair_dl + at);
  for (int32_t k = 0; k < k_sad_k; ++k) {
    pair_site[at + k] = site[k] >= 0 ? uint32_t(site[k]) : uint32_t(p.count);
    pair_index[at + k] = int32_t(at + k);
  }
}

/// One thread per site: its pairs in point order (the sort is stable), set or added into grads.
__global__ void sad_site_grads_kernel(SadParams p, const float* __restrict__ params,
                                      const SadShape<float>* __restrict__ shapes,
                                      const int32_t* __restrict__ site_start, const int32_t* __restrict__ sorted_pair,
                                      const float* __restrict__ pair_w, const float* __restrict__ pair_dl,
                                      const float* __restrict__ coords, const float* __restrict__ d_out,
                                      float* __restrict__ grads, bool accumulate) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= p.count) return;
  sad_site_gradient(shapes[i], params + i * k_sad_floats, p.cell, sorted_pair, site_start[i], site_start[i + 1],
                    pair_w, pair_dl, coords, d_out, grads + i * k_sad_floats, accumulate);
}

} // namespace

void SadLattice::reserve_temp(const DevicePool& pool, cudaStream_t stream, size_t bytes) {
  sad_ensure(m_temp, pool, stream, int64_t(bytes), "sad: sort scratch");
}

void SadLattice::shapes(const DevicePool& pool, cudaStream_t stream, const SadParams& p, const float* params) {
  if (p.count < k_sad_min_sites || p.count > k_sad_max_sites)
    throw BackendError("sad: " + std::to_string(p.count) + " sites (" + std::to_string(k_sad_min_sites) + " .. " +
                       std::to_string(k_sad_max_sites) + ")");
  if (m_p.count != p.count || m_p.grid != p.grid) m_built = false;
  m_p = p;
  const int64_t n = p.count;
  sad_ensure(m_shapes, pool, stream, n, "sad: site shapes");
  sad_ensure(m_site_node, pool, stream, n, "sad: site nodes");
  sad_ensure(m_site_index, pool, stream, n, "sad: site nodes");
  sad_shapes_kernel<<<sad_blocks(n), k_sad_threads, 0, stream>>>(p, params, m_shapes.data(), m_site_node.data(),
                                                                  m_site_index.data());
  CUDA_CHECK(cudaGetLastError());
}

void SadLattice::buckets(const DevicePool& pool, cudaStream_t stream) {
  const int64_t n = m_p.count, nodes = int64_t(m_p.grid) * m_p.grid;
  sad_ensure(m_sorted_node, pool, stream, n, "sad: site buckets");
  sad_ensure(m_bucket_order, pool, stream, n, "sad: site buckets");
  sad_ensure(m_bucket_start, pool, stream, nodes + 1, "sad: site buckets");
  const int bits = sad_sort_bits(nodes);
  size_t bytes = 0;
  CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, m_site_node.data(), m_sorted_node.data(),
                                             m_site_index.data(), m_bucket_order.data(), int(n), 0, bits, stream));
  reserve_temp(pool, stream, bytes);
  bytes = m_temp.size();
  CUDA_CHECK(cub::DeviceRadixSort::SortPairs(m_temp.data(), bytes, m_site_node.data(), m_sorted_node.data(),
                                             m_site_index.data(), m_bucket_order.data(), int(n), 0, bits, stream));
  sad_starts_kernel<<<sad_blocks(n + 1), k_sad_threads, 0, stream>>>(m_sorted_node.data(), n, nodes,
                                                                      m_bucket_start.data());
  CUDA_CHECK(cudaGetLastError());
}

void SadLattice::pass(cudaStream_t stream, const int32_t* src, int32_t* dst, int32_t step, int32_t stride) {
  const int64_t nodes = int64_t(m_p.grid) * m_p.grid;
  sad_pass_kernel<<<sad_blocks(nodes), k_sad_threads, 0, stream>>>(m_p, m_shapes.data(), m_bucket_start.data(),
                                                                    m_bucket_order.data(), src, dst, step, stride,
                                                                    m_passes.data());
  CUDA_CHECK(cudaGetLastError());
  sad_count_pass_kernel<<<1, 1, 0, stream>>>(m_passes.data());
  CUDA_CHECK(cudaGetLastError());
}

void SadLattice::build(const DevicePool& pool, cudaStream_t stream) {
  const int64_t entries = int64_t(m_p.grid) * m_p.grid * k_sad_k;
  sad_ensure(m_ids, pool, stream, entries, "sad: lists");
  sad_ensure(m_other, pool, stream, entries, "sad: lists");
  sad_ensure(m_passes, pool, stream, 1, "sad: pass counter");
  CUDA_CHECK(cudaMemsetAsync(m_passes.data(), 0, sizeof(uint64_t), stream));
  buckets(pool, stream);
  // The CPU's schedule (engine/sad_lists.h): seeding, steps grid/2 .. 1, one more at 1; the
  // result lands in m_ids whatever the number of passes.
  std::vector<int32_t> steps = {0};
  for (int32_t s = std::max(1, m_p.grid / 2); s >= 1; s /= 2) steps.push_back(s);
  steps.push_back(1);
  int32_t* bufs[2] = {m_ids.data(), m_other.data()};
  int cur = steps.size() % 2 == 0 ? 0 : 1; // pass t writes bufs[1 - cur]: the last one bufs[0]
  for (int32_t step : steps) {
    pass(stream, bufs[cur], bufs[1 - cur], step, 1);
    cur = 1 - cur;
  }
  m_built = true;
}

void SadLattice::refresh(const DevicePool& pool, cudaStream_t stream, int32_t stride) {
  if (!m_built) return build(pool, stream);
  buckets(pool, stream);
  pass(stream, m_ids.data(), m_other.data(), 1, stride);
  CUDA_CHECK(cudaMemcpyAsync(m_ids.data(), m_other.data(), size_t(m_p.grid) * m_p.grid * k_sad_k * sizeof(int32_t),
                             cudaMemcpyDeviceToDevice, stream));
}

void SadLattice::encode(cudaStream_t stream, const float* params, const float* coords, int64_t n, float* out) const {
  if (n <= 0) return;
  sad_encode_kernel<<<sad_blocks(n), k_sad_threads, 0, stream>>>(m_p, params, m_shapes.data(), m_ids.data(), coords,
                                                                  n, out);
  CUDA_CHECK(cudaGetLastError());
}

void SadLattice::encode_pixels(cudaStream_t stream, const float* params, int32_t w, int32_t h, int64_t p0,
                               int64_t count, float* out) const {
  if (count <= 0) return;
  sad_encode_pixels_kernel<<<sad_blocks(count), k_sad_threads, 0, stream>>>(m_p, params, m_shapes.data(),
                                                                             m_ids.data(), w, h, p0, count, out);
  CUDA_CHECK(cudaGetLastError());
}

void SadLattice::backward(const DevicePool& pool, cudaStream_t stream, const float* params, const float* coords,
                          const float* d_out, int64_t n, float* grads, bool accumulate) {
  const int64_t count = m_p.count;
  if (n <= 0) {
    if (!accumulate) CUDA_CHECK(cudaMemsetAsync(grads, 0, size_t(count) * k_sad_floats * sizeof(float), stream));
    return;
  }
  const int64_t pairs = n * k_sad_k;
  if (pairs > int64_t(INT_MAX))
    throw BackendError("sad backward: " + std::to_string(n) + " points in one pass (at most " +
                       std::to_string(INT_MAX / k_sad_k) + ")");
  sad_ensure(m_pair_site, pool, stream, pairs, "sad: gradient pairs");
  sad_ensure(m_sorted_site, pool, stream, pairs, "sad: gradient pairs");
  sad_ensure(m_pair_index, pool, stream, pairs, "sad: gradient pairs");
  sad_ensure(m_sorted_pair, pool, stream, pairs, "sad: gradient pairs");
  sad_ensure(m_pair_w, pool, stream, pairs, "sad: gradient pairs");
  sad_ensure(m_pair_dl, pool, stream, pairs, "sad: gradient pairs");
  sad_ensure(m_site_start, pool, stream, count + 1, "sad: site ranges");
  sad_pairs_kernel<<<sad_blocks(n), k_sad_threads, 0, stream>>>(m_p, params, m_shapes.data(), m_ids.data(), coords,
                                                                 d_out, n, m_pair_site.data(), m_pair_index.data(),
                                                                 m_pair_w.data(), m_pair_dl.data());
  CUDA_CHECK(cudaGetLastError());
  const int bits = sad_sort_bits(count);
  size_t bytes = 0;
  CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, m_pair_site.data(), m_sorted_site.data(),
                                             m_pair_index.data(), m_sorted_pair.data(), int(pairs), 0, bits, stream));
  reserve_temp(pool, stream, bytes);
  bytes = m_temp.size();
  CUDA_CHECK(cub::DeviceRadixSort::SortPairs(m_temp.data(), bytes, m_pair_site.data(), m_sorted_site.data(),
                                             m_pair_index.data(), m_sorted_pair.data(), int(pairs), 0, bits, stream));
  sad_starts_kernel<<<sad_blocks(pairs + 1), k_sad_threads, 0, stream>>>(m_sorted_site.data(), pairs, count,
                                                                          m_site_start.data());
  CUDA_CHECK(cudaGetLastError());
  sad_site_grads_kernel<<<sad_blocks(count), k_sad_threads, 0, stream>>>(
      m_p, params, m_shapes.data(), m_site_start.data(), m_sorted_pair.data(), m_pair_w.data(), m_pair_dl.data(),
      coords, d_out, grads, accumulate);
  CUDA_CHECK(cudaGetLastError());
}

std::vector<int32_t> SadLattice::download_lists(cudaStream_t stream) const {
  std::vector<int32_t> out(m_built ? size_t(m_p.grid) * m_p.grid * k_sad_k : 0);
  if (out.empty()) return out;
  CUDA_CHECK(cudaMemcpyAsync(out.data(), m_ids.data(), out.size() * sizeof(int32_t), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return out;
}

} // namespace redraw::cuda
