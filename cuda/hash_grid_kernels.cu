#include "cuda/cuda_check.h"
#include "cuda/hash_grid_kernels.cuh"
#include "engine/rng_math.h"

namespace redraw::cuda {

namespace {

constexpr int k_threads = 256;

unsigned blocks_for(int64_t count) { return unsigned((count + k_threads - 1) / k_threads); }

/// Writes level l's features of one sample to out (F consecutive floats).
__device__ inline void encode_one(const HashGridParams& g, const float* __restrict__ table, int32_t l, float x, float y,
                                  float* __restrict__ out) {
  uint32_t e[4];
  float w[4];
  hash_grid_corners<float>(g, l, x, y, e, w);
  if (g.n_features == 2) {
    // Two features per entry are one aligned 8-byte load per corner.
    const float2* t2 = reinterpret_cast<const float2*>(table);
    float2 acc = make_float2(0.0f, 0.0f);
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      const float2 v = __ldg(t2 + e[c]);
      acc.x += w[c] * v.x;
      acc.y += w[c] * v.y;
    }
    out[0] = acc.x;
    out[1] = acc.y;
    return;
  }
  const int32_t F = g.n_features;
  for (int32_t f = 0; f < F; ++f) {
    float v = 0.0f;
#pragma unroll
    for (int c = 0; c < 4; ++c)
      v += w[c] * __ldg(table + size_t(e[c]) * F + f);
    out[f] = v;
  }
}

__global__ void encode_kernel(HashGridParams g, const float* __restrict__ table, const float* __restrict__ coords,
                              int64_t n, float* __restrict__ out) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int32_t l = int32_t(blockIdx.y);
  const int32_t width = g.n_levels * g.n_features;
  encode_one(g, table, l, coords[2 * i], coords[2 * i + 1], out + i * width + l * g.n_features);
}

__global__ void encode_grid_kernel(HashGridParams g, const float* __restrict__ table, int32_t w, int32_t h, int64_t p0,
                                   int64_t n, float* __restrict__ out) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int32_t l = int32_t(blockIdx.y);
  const int32_t width = g.n_levels * g.n_features;
  const int64_t p = p0 + i;
  const float x = pixel_centre<float>(p % w, w);
  const float y = pixel_centre<float>(p / w, h);
  encode_one(g, table, l, x, y, out + i * width + l * g.n_features);
}

__global__ void backward_kernel(HashGridParams g, const float* __restrict__ coords, const float* __restrict__ d_out,
                                int64_t n, float* __restrict__ table_grad) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int32_t l = int32_t(blockIdx.y);
  const int32_t F = g.n_features;
  const float* d = d_out + i * (g.n_levels * F) + l * F;
  uint32_t e[4];
  float w[4];
  hash_grid_corners<float>(g, l, coords[2 * i], coords[2 * i + 1], e, w);
  if (F == 2) {
    const float d0 = d[0], d1 = d[1];
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    float2* t2 = reinterpret_cast<float2*>(table_grad);
#pragma unroll
    for (int c = 0; c < 4; ++c)
      atomicAdd(t2 + e[c], make_float2(w[c] * d0, w[c] * d1));
#else
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      atomicAdd(table_grad + size_t(e[c]) * 2, w[c] * d0);
      atomicAdd(table_grad + size_t(e[c]) * 2 + 1, w[c] * d1);
    }
#endif
    return;
  }
  for (int32_t f = 0; f < F; ++f) {
    const float df = d[f];
#pragma unroll
    for (int c = 0; c < 4; ++c)
      atomicAdd(table_grad + size_t(e[c]) * F + f, w[c] * df);
  }
}

__global__ void gather_samples_kernel(const float* __restrict__ coords, const float* __restrict__ targets,
                                      int32_t channels, uint32_t n, uint64_t seed,
                                      const DeviceStepParams* __restrict__ step, int64_t row0, int64_t rows,
                                      float* __restrict__ out_coords, float* __restrict__ out_targets) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  const uint32_t k = minibatch_index(seed, step->step, row0 + i, n);
  out_coords[2 * i] = coords[2 * int64_t(k)];
  out_coords[2 * i + 1] = coords[2 * int64_t(k) + 1];
  for (int32_t c = 0; c < channels; ++c)
    out_targets[i * channels + c] = targets[int64_t(k) * channels + c];
}

dim3 level_grid(const HashGridParams& g, int64_t n) { return dim3(blocks_for(n), unsigned(g.n_levels)); }

} // namespace

void hash_grid_encode(cudaStream_t stream, const HashGridParams& g, const float* table, const float* coords, int64_t n,
                      float* out) {
  if (n == 0) return;
  encode_kernel<<<level_grid(g, n), k_threads, 0, stream>>>(g, table, coords, n, out);
  CUDA_CHECK_LAUNCH();
}

void hash_grid_encode_grid(cudaStream_t stream, const HashGridParams& g, const float* table, int32_t w, int32_t h,
                           int64_t p0, int64_t count, float* out) {
  if (count == 0) return;
  encode_grid_kernel<<<level_grid(g, count), k_threads, 0, stream>>>(g, table, w, h, p0, count, out);
  CUDA_CHECK_LAUNCH();
}

void hash_grid_backward(cudaStream_t stream, const HashGridParams& g, const float* coords, const float* d_out,
                        int64_t n, float* table_grad) {
  if (n == 0) return;
  backward_kernel<<<level_grid(g, n), k_threads, 0, stream>>>(g, coords, d_out, n, table_grad);
  CUDA_CHECK_LAUNCH();
}

void gather_minibatch_samples(cudaStream_t stream, const float* coords, const float* targets, int32_t channels,
                              uint32_t n, uint64_t seed, const DeviceStepParams* step, int64_t row0, int64_t rows,
                              float* out_coords, float* out_targets) {
  if (rows == 0) return;
  gather_samples_kernel<<<blocks_for(rows), k_threads, 0, stream>>>(coords, targets, channels, n, seed, step, row0,
                                                                    rows, out_coords, out_targets);
  CUDA_CHECK_LAUNCH();
}

} // namespace redraw::cuda
