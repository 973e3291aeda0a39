#include "cuda/cuda_check.h"
#include "cuda/gaussian_kernels.cuh"
#include "engine/errors.h"
#include "engine/gaussian_bounds.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <climits>
#include <string>

namespace redraw::cuda {

namespace {

constexpr int k_threads = 256;
constexpr int k_shape_floats = 5;

unsigned blocks_for(int64_t count) { return unsigned((count + k_threads - 1) / k_threads); }

/// Grows `buf` to at least n elements (half as much again, so a slowly growing count seldom
/// reallocates); its contents are not kept.
template <class T> void ensure(DeviceBuffer<T>& buf, const DevicePool& pool, cudaStream_t stream, int64_t n,
                               const char* what) {
  if (int64_t(buf.size()) >= n) return;
  buf = DeviceBuffer<T>();
  buf = DeviceBuffer<T>(pool, stream, size_t(std::max<int64_t>(n + n / 2, 1)), what);
}

/// Bits a radix sort needs for bin indices below `bins`.
int sort_bits(int64_t bins) {
  int b = 1;
  while ((int64_t(1) << b) < bins) ++b;
  return b;
}

__device__ inline int32_t bin_of(float x, float y, int32_t bins) {
  return gaussian_bin(y, bins) * bins + gaussian_bin(x, bins);
}

__device__ inline GaussianShape<float> load_shape(const float* __restrict__ shapes, int32_t i) {
  const float* s = shapes + int64_t(i) * k_shape_floats;
  return {s[0], s[1], s[2], s[3], s[4]};
}

/// Per Gaussian: its shape, the bins its box covers (the CPU backend's margin) and their count.
__global__ void boxes_kernel(GaussianParams g, const float* __restrict__ params, float* __restrict__ shapes,
                             int32_t* __restrict__ boxes, int64_t* __restrict__ counts) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= g.count) return;
  const float* p = params + i * g.floats;
  const GaussianShape<float> s = gaussian_shape<float>(p, g.cell);
  float* so = shapes + i * k_shape_floats;
  so[0] = s.mx, so[1] = s.my, so[2] = s.inv_a, so[3] = s.b, so[4] = s.inv_c;
  int32_t* o = boxes + i * 4;
  gaussian_box(p, g.cell, g.bins, o); // the CPU backend's boxes, unclipped
  counts[i] = gaussian_box_pairs(o);
}

__global__ void total_kernel(const int64_t* __restrict__ offsets, const int64_t* __restrict__ counts, int64_t count,
                             int64_t* __restrict__ total) {
  *total = offsets[count - 1] + counts[count - 1];
}

/// Per Gaussian: its pairs at its offset, bins in row-major order.
__global__ void pairs_kernel(GaussianParams g, const int32_t* __restrict__ boxes, const int64_t* __restrict__ offsets,
                             uint32_t* __restrict__ pair_bin, int32_t* __restrict__ pair_gauss,
                             int32_t* __restrict__ pair_index) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= g.count) return;
  const int32_t* o = boxes + i * 4;
  int64_t at = offsets[i];
  for (int32_t by = o[2]; o[0] <= o[1] && by <= o[3]; ++by)
    for (int32_t bx = o[0]; bx <= o[1]; ++bx, ++at) {
      pair_bin[at] = uint32_t(by * g.bins + bx);
      pair_gauss[at] = int32_t(i);
      pair_index[at] = int32_t(at);
    }
}

/// Where each bin's run starts and ends in a list sorted by bin (start and end cleared to 0
/// first, so an empty bin reads as empty); with `gauss`, also the sorted list's Gaussians.
__global__ void ranges_kernel(const uint32_t* __restrict__ sorted_bin, int64_t total, int32_t* __restrict__ start,
                              int32_t* __restrict__ end, const int32_t* __restrict__ sorted_item,
                              const int32_t* __restrict__ item_gauss, int32_t* __restrict__ sorted_gauss) {
  const int64_t j = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= total) return;
  const uint32_t b = sorted_bin[j];
  if (j == 0 || sorted_bin[j - 1] != b) start[b] = int32_t(j);
  if (j == total - 1 || sorted_bin[j + 1] != b) end[b] = int32_t(j + 1);
  if (sorted_gauss) sorted_gauss[j] = item_gauss[sorted_item[j]];
}

/// The sum at (x, y) of its bin's list; with g.carrier each weight has its cosine carrier.
__device__ inline void sum_at(const GaussianParams& g, const float* __restrict__ params,
                              const float* __restrict__ shapes, const int32_t* __restrict__ sorted_gauss,
                              const int32_t* __restrict__ start, const int32_t* __restrict__ end, float x, float y,
                              float* __restrict__ out) {
  const int32_t b = bin_of(x, y, g.bins);
  float acc[k_gaussian_channels] = {};
  for (int32_t j = start[b]; j < end[b]; ++j) {
    const int32_t i = sorted_gauss[j];
    const float* gi = params + int64_t(i) * g.floats;
    const float w = gaussian_weight_of(load_shape(shapes, i), gi, g.carrier, x, y);
    if (w == 0.0f) continue;
    const float* colour = gi + k_gauss_colour;
    for (int32_t k = 0; k < k_gaussian_channels; ++k) acc[k] += colour[k] * w;
  }
  for (int32_t k = 0; k < k_gaussian_channels; ++k) out[k] = acc[k];
}

__global__ void encode_kernel(GaussianParams g, const float* __restrict__ params, const float* __restrict__ shapes,
                              const int32_t* __restrict__ sorted_gauss, const int32_t* __restrict__ start,
                              const int32_t* __restrict__ end, const float* __restrict__ coords, int64_t n,
                              float* __restrict__ out) {
  const int64_t s = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= n) return;
  sum_at(g, params, shapes, sorted_gauss, start, end, coords[2 * s], coords[2 * s + 1], out + s * k_gaussian_channels);
}

__global__ void encode_pixels_kernel(GaussianParams g, const float* __restrict__ params,
                                     const float* __restrict__ shapes, const int32_t* __restrict__ sorted_gauss,
                                     const int32_t* __restrict__ start, const int32_t* __restrict__ end, int32_t w,
                                     int32_t h, int64_t p0, int64_t count, float* __restrict__ out) {
  const int64_t r = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= count) return;
  const int64_t p = p0 + r;
  sum_at(g, params, shapes, sorted_gauss, start, end, pixel_centre<float>(p % w, w), pixel_centre<float>(p / w, h),
         out + r * k_gaussian_channels);
}

__global__ void sample_bins_kernel(const float* __restrict__ coords, int64_t n, int32_t bins,
                                   uint32_t* __restrict__ sample_bin, int32_t* __restrict__ sample_index) {
  const int64_t s = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= n) return;
  sample_bin[s] = uint32_t(bin_of(coords[2 * s], coords[2 * s + 1], bins));
  sample_index[s] = int32_t(s);
}

/// One thread per sorted pair: its bin's samples, in order, into the pair's partial.
__global__ void pair_partials_kernel(GaussianParams g, const float* __restrict__ params,
                                     const float* __restrict__ shapes, const uint32_t* __restrict__ sorted_bin,
                                     const int32_t* __restrict__ sorted_pair, const int32_t* __restrict__ sorted_gauss,
                                     int64_t pairs, const int32_t* __restrict__ sample_start,
                                     const int32_t* __restrict__ sample_end, const int32_t* __restrict__ sorted_sample,
                                     const float* __restrict__ coords, const float* __restrict__ d_out,
                                     float* __restrict__ partial) {
  const int64_t j = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= pairs) return;
  const uint32_t b = sorted_bin[j];
  const int32_t i = sorted_gauss[j];
  const float* gi = params + int64_t(i) * g.floats;
  const GaussianShape<float> shape = load_shape(shapes, i);
  float acc[k_gaussian_carrier_floats] = {};
  for (int32_t k = sample_start[b]; k < sample_end[b]; ++k) {
    const int64_t s = sorted_sample[k];
    gaussian_backward(shape, gi, g.cell, coords[2 * s], coords[2 * s + 1], d_out + s * k_gaussian_channels, acc,
                      g.carrier);
  }
  float* o = partial + int64_t(sorted_pair[j]) * g.floats;
  for (int32_t f = 0; f < g.floats; ++f) o[f] = acc[f];
}

/// One thread per Gaussian: its partials in bin order (its pairs are contiguous, generation order).
__global__ void gather_kernel(int64_t count, int32_t floats, const int64_t* __restrict__ offsets,
                              const int64_t* __restrict__ counts, const float* __restrict__ partial,
                              float* __restrict__ grads, bool accumulate) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  float* gr = grads + i * floats;
  float v[k_gaussian_carrier_floats];
  for (int32_t f = 0; f < floats; ++f) v[f] = accumulate ? gr[f] : 0.0f;
  const int64_t k0 = offsets[i], k1 = k0 + counts[i];
  for (int64_t k = k0; k < k1; ++k)
    for (int32_t f = 0; f < floats; ++f) v[f] += partial[k * floats + f];
  for (int32_t f = 0; f < floats; ++f) gr[f] = v[f];
}

} // namespace

GaussianBinning::~GaussianBinning() {
  if (m_host_total) (void)cudaFreeHost(m_host_total);
}

void GaussianBinning::reserve_temp(const DevicePool& pool, cudaStream_t stream, size_t bytes) {
  ensure(m_temp, pool, stream, int64_t(bytes), "gaussians: sort scratch");
}

void GaussianBinning::bin(const DevicePool& pool, cudaStream_t stream, const GaussianParams& g,
                          const float* params) {
  if (g.count <= 0 || g.count > k_gaussian_max_count)
    throw BackendError("gaussians: " + std::to_string(g.count) + " Gaussians (1 .. " +
                       std::to_string(k_gaussian_max_count) + ")");
  if (!m_host_total) CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&m_host_total), sizeof(int64_t)));
  m_g = g;
  const int64_t n = g.count;
  ensure(m_shapes, pool, stream, n * k_shape_floats, "gaussians: shapes");
  ensure(m_boxes, pool, stream, n * 4, "gaussians: boxes");
  ensure(m_counts, pool, stream, n, "gaussians: pair counts");
  ensure(m_offsets, pool, stream, n, "gaussians: pair offsets");
  ensure(m_total, pool, stream, 1, "gaussians: pair total");
  boxes_kernel<<<blocks_for(n), k_threads, 0, stream>>>(g, params, m_shapes.data(), m_boxes.data(), m_counts.data());
  CUDA_CHECK(cudaGetLastError());
  size_t scan_bytes = 0;
  CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, m_counts.data(), m_offsets.data(), int(n), stream));
  reserve_temp(pool, stream, scan_bytes);
  scan_bytes = m_temp.size();
  CUDA_CHECK(cub::DeviceScan::ExclusiveSum(m_temp.data(), scan_bytes, m_counts.data(), m_offsets.data(), int(n),
                                           stream));
  total_kernel<<<1, 1, 0, stream>>>(m_offsets.data(), m_counts.data(), n, m_total.data());
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpyAsync(m_host_total, m_total.data(), sizeof(int64_t), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const int64_t pairs = *m_host_total;
  // The model bound (engine/gaussian_bounds.h) before anything is sized from the count; the
  // device's 32-bit pair indices hold it (k_gaussian_max_count x 128 < 2^31 - 1).
  if (const std::string why = gaussian_pairs_problem(pairs, g.count); !why.empty())
    throw BackendError("gaussians: " + why);
  if (pairs < 0 || pairs > int64_t(INT_MAX))
    throw BackendError("gaussians: " + std::to_string(pairs) +
                       " Gaussian-bin pairs, more than the device's binning holds (2^31 - 1)");
  m_pairs = pairs;
  const int64_t bins = int64_t(g.bins) * g.bins;
  ensure(m_bin_start, pool, stream, bins, "gaussians: bin starts");
  ensure(m_bin_end, pool, stream, bins, "gaussians: bin ends");
  CUDA_CHECK(cudaMemsetAsync(m_bin_start.data(), 0, size_t(bins) * sizeof(int32_t), stream));
  CUDA_CHECK(cudaMemsetAsync(m_bin_end.data(), 0, size_t(bins) * sizeof(int32_t), stream));
  if (pairs == 0) return;
  ensure(m_pair_bin, pool, stream, pairs, "gaussians: pairs");
  ensure(m_sorted_bin, pool, stream, pairs, "gaussians: pairs");
  ensure(m_pair_gauss, pool, stream, pairs, "gaussians: pairs");
  ensure(m_pair_index, pool, stream, pairs, "gaussians: pairs");
  ensure(m_sorted_pair, pool, stream, pairs, "gaussians: pairs");
  ensure(m_sorted_gauss, pool, stream, pairs, "gaussians: pairs");
  pairs_kernel<<<blocks_for(n), k_threads, 0, stream>>>(g, m_boxes.data(), m_offsets.data(), m_pair_bin.data(),
                                                        m_pair_gauss.data(), m_pair_index.data());
  CUDA_CHECK(cudaGetLastError());
  const int bits = sort_bits(bins);
  size_t sort_bytes = 0;
  CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, m_pair_bin.data(), m_sorted_bin.data(),
                                             m_pair_index.data(), m_sorted_pair.data(), int(pairs), 0, bits, stream));
  reserve_temp(pool, stream, sort_bytes);
  sort_bytes = m_temp.size();
  CUDA_CHECK(cub::DeviceRadixSort::SortPairs(m_temp.data(), sort_bytes, m_pair_bin.data(), m_sorted_bin.data(),
                                             m_pair_index.data(), m_sorted_pair.data(), int(pairs), 0, bits, stream));
  ranges_kernel<<<blocks_for(pairs), k_threads, 0, stream>>>(m_sorted_bin.data(), pairs, m_bin_start.data(),
                                                              m_bin_end.data(), m_sorted_pair.data(),
                                                              m_pair_gauss.data(), m_sorted_gauss.data());
  CUDA_CHECK(cudaGetLastError());
}

void GaussianBinning::encode(cudaStream_t stream, const float* params, const float* coords, int64_t n,
                             float* out) const {
  if (n <= 0) return;
  encode_kernel<<<blocks_for(n), k_threads, 0, stream>>>(m_g, params, m_shapes.data(), m_sorted_gauss.data(),
                                                         m_bin_start.data(), m_bin_end.data(), coords, n, out);
  CUDA_CHECK(cudaGetLastError());
}

void GaussianBinning::encode_pixels(cudaStream_t stream, const float* params, int32_t w, int32_t h, int64_t p0,
                                    int64_t count, float* out) const {
  if (count <= 0) return;
  encode_pixels_kernel<<<blocks_for(count), k_threads, 0, stream>>>(m_g, params, m_shapes.data(),
                                                                    m_sorted_gauss.data(), m_bin_start.data(),
                                                                    m_bin_end.data(), w, h, p0, count, out);
  CUDA_CHECK(cudaGetLastError());
}

void GaussianBinning::backward(const DevicePool& pool, cudaStream_t stream, const float* params, const float* coords,
                               const float* d_out, int64_t n, float* grads, bool accumulate) {
  const int64_t count = m_g.count;
  if (n > int64_t(INT_MAX)) throw BackendError("gaussians backward: " + std::to_string(n) + " samples in one pass");
  if (n <= 0 || m_pairs == 0) { // no Gaussian meets a sample: a zero gradient
    if (!accumulate) CUDA_CHECK(cudaMemsetAsync(grads, 0, size_t(count) * size_t(m_g.floats) * sizeof(float), stream));
    return;
  }
  {
    const int64_t bins = int64_t(m_g.bins) * m_g.bins;
    ensure(m_sample_bin, pool, stream, n, "gaussians: sample bins");
    ensure(m_sorted_sample_bin, pool, stream, n, "gaussians: sample bins");
    ensure(m_sample_index, pool, stream, n, "gaussians: samples");
    ensure(m_sorted_sample, pool, stream, n, "gaussians: samples");
    ensure(m_sample_start, pool, stream, bins, "gaussians: sample ranges");
    ensure(m_sample_end, pool, stream, bins, "gaussians: sample ranges");
    ensure(m_partial, pool, stream, m_pairs * m_g.floats, "gaussians: partial gradients");
    sample_bins_kernel<<<blocks_for(n), k_threads, 0, stream>>>(coords, n, m_g.bins, m_sample_bin.data(),
                                                                m_sample_index.data());
    CUDA_CHECK(cudaGetLastError());
    const int bits = sort_bits(bins);
    size_t sort_bytes = 0;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, m_sample_bin.data(), m_sorted_sample_bin.data(),
                                               m_sample_index.data(), m_sorted_sample.data(), int(n), 0, bits, stream));
    reserve_temp(pool, stream, sort_bytes);
    sort_bytes = m_temp.size();
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(m_temp.data(), sort_bytes, m_sample_bin.data(),
                                               m_sorted_sample_bin.data(), m_sample_index.data(),
                                               m_sorted_sample.data(), int(n), 0, bits, stream));
    CUDA_CHECK(cudaMemsetAsync(m_sample_start.data(), 0, size_t(bins) * sizeof(int32_t), stream));
    CUDA_CHECK(cudaMemsetAsync(m_sample_end.data(), 0, size_t(bins) * sizeof(int32_t), stream));
    ranges_kernel<<<blocks_for(n), k_threads, 0, stream>>>(m_sorted_sample_bin.data(), n, m_sample_start.data(),
                                                           m_sample_end.data(), nullptr, nullptr, nullptr);
    CUDA_CHECK(cudaGetLastError());
    pair_partials_kernel<<<blocks_for(m_pairs), k_threads, 0, stream>>>(
        m_g, params, m_shapes.data(), m_sorted_bin.data(), m_sorted_pair.data(), m_sorted_gauss.data(), m_pairs,
        m_sample_start.data(), m_sample_end.data(), m_sorted_sample.data(), coords, d_out, m_partial.data());
    CUDA_CHECK(cudaGetLastError());
  }
  gather_kernel<<<blocks_for(count), k_threads, 0, stream>>>(count, m_g.floats, m_offsets.data(), m_counts.data(),
                                                             m_partial.data(), grads, accumulate);
  CUDA_CHECK(cudaGetLastError());
}

} // namespace redraw::cuda
