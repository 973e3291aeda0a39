#include "cuda/cuda_check.h"
#include "cuda/encoding_kernels.cuh"
#include "cuda/hash_grid_shared_levels.h"
#include "engine/rng_math.h"

#include <cuda_fp16.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>

namespace redraw::cuda {

namespace {

constexpr int k_threads = 256;

/// -1: not read from the environment yet.
std::atomic<int32_t> g_encode_kernel{-1}, g_backward_kernel{-1}, g_half_features{-1};
std::once_flag g_env_once;

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

/// Adds w[c] * d[f] to feature f of corner entry e[c] of table_grad: one 8-byte atomic per corner
/// for two features on compute capability 9.0 and newer, one float atomic per corner and feature
/// elsewhere.
template <int F>
__device__ inline void scatter_corners(float* __restrict__ table_grad, const uint32_t e[4], const float w[4],
                                       const float d[F]) {
  // The float2 atomicAdd exists only from compute capability 9.0 on. A discarded `if constexpr`
  // branch is still type-checked where it does not depend on F, so the older architectures must not
  // see the call at all: the preprocessor chooses.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (F == 2) {
    float2* t2 = reinterpret_cast<float2*>(table_grad);
#pragma unroll
    for (int c = 0; c < 4; ++c) atomicAdd(t2 + e[c], make_float2(w[c] * d[0], w[c] * d[1]));
  } else // the scalar adds below, for every other F (an else, not a return: no unreachable loop)
#endif
  {
#pragma unroll
    for (int c = 0; c < 4; ++c)
#pragma unroll
      for (int f = 0; f < F; ++f) atomicAdd(table_grad + size_t(e[c]) * F + f, w[c] * d[f]);
  }
}

/// backward_kernel with one thread per sample looping over the levels: the sample's coordinates
/// are read once and its gradient row front to back.
template <int F>
__global__ void backward_per_sample_kernel(HashGridParams g, const float* __restrict__ coords,
                                           const float* __restrict__ d_out, int64_t n, float* __restrict__ table_grad) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float x = coords[2 * i], y = coords[2 * i + 1];
  const float* row = d_out + i * (g.n_levels * F);
  for (int32_t l = 0; l < g.n_levels; ++l) {
    uint32_t e[4];
    float w[4];
    hash_grid_corners<float>(g, l, x, y, e, w);
    float d[F];
#pragma unroll
    for (int f = 0; f < F; ++f) d[f] = row[l * F + f];
    scatter_corners<F>(table_grad, e, w, d);
  }
}

/// Threads per block of the shared-dense backward: with 48 KiB each, four blocks (2048 threads,
/// the most an SM holds) could share an H100 SM's 228 KiB; hash_grid_shared_blocks launches at
/// most k_hash_grid_shared_blocks_per_sm of them per SM.
constexpr int k_shared_dense_threads = 512;

/// Adds the block's sums, acc[0, entries * F) feature-major (hash_grid_shared_index), to table_grad
/// (entry-major): one 8-byte atomic per entry for two features on compute capability 9.0 and newer,
/// else one float atomic per float; sums that stayed zero are skipped. Each block starts at its own
/// place, so blocks that finish together do not queue on the same addresses.
template <int F>
__device__ inline void flush_shared_sums(const float* acc, uint32_t entries, float* __restrict__ table_grad) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr bool pairs = F == 2;
#else
  constexpr bool pairs = false;
#endif
  constexpr uint32_t per_item = pairs ? 1u : uint32_t(F); // items: entries (pairs) or floats
  const uint32_t items = entries * per_item;
  const uint32_t start = uint32_t((uint64_t(blockIdx.x) * blockDim.x) % items);
  for (uint32_t k = threadIdx.x; k < items; k += blockDim.x) {
    const uint32_t j = k < items - start ? k + start : k - (items - start);
    // As in scatter_corners: the float2 atomicAdd must not reach the compiler below 9.0.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if constexpr (pairs) {
      const float2 v =
          make_float2(acc[hash_grid_shared_index(entries, j, 0)], acc[hash_grid_shared_index(entries, j, 1)]);
      if (v.x != 0.0f || v.y != 0.0f) atomicAdd(reinterpret_cast<float2*>(table_grad) + j, v);
      continue;
    }
#endif
    const float v = acc[hash_grid_shared_index(entries, j / uint32_t(F), int32_t(j % uint32_t(F)))];
    if (v != 0.0f) atomicAdd(table_grad + j, v);
  }
}

/// backward_per_sample_kernel with levels [0, shared_levels) (dense: table_grad's first
/// g.offset[shared_levels] entries, hash_grid_shared_levels) summed in the block's shared memory,
/// feature-major, with shared atomics and added to table_grad once per entry when the block is
/// done; the finer levels go straight to table_grad. The samples are strided over the grid
/// (hash_grid_shared_blocks: a few blocks per SM), so each thread sums several. Dynamic shared
/// memory: hash_grid_shared_bytes(g, shared_levels). Every thread reaches both barriers.
template <int F>
__global__ void __launch_bounds__(k_shared_dense_threads)
    backward_shared_dense_kernel(HashGridParams g, int32_t shared_levels, const float* __restrict__ coords,
                                 const float* __restrict__ d_out, int64_t n, float* __restrict__ table_grad) {
  extern __shared__ __align__(16) float acc[];
  const uint32_t entries = g.offset[shared_levels];
  for (uint32_t j = threadIdx.x; j < entries * F; j += blockDim.x) acc[j] = 0.0f;
  __syncthreads();
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const float x = coords[2 * i], y = coords[2 * i + 1];
    const float* row = d_out + i * (g.n_levels * F);
    for (int32_t l = 0; l < g.n_levels; ++l) {
      uint32_t e[4];
      float w[4];
      hash_grid_corners<float>(g, l, x, y, e, w);
      float d[F];
#pragma unroll
      for (int f = 0; f < F; ++f) d[f] = row[l * F + f];
      if (l < shared_levels) {
#pragma unroll
        for (int c = 0; c < 4; ++c)
#pragma unroll
          for (int f = 0; f < F; ++f) atomicAdd(acc + hash_grid_shared_index(entries, e[c], f), w[c] * d[f]);
      } else {
        scatter_corners<F>(table_grad, e, w, d);
      }
    }
  }
  __syncthreads();
  if (entries > 0) flush_shared_sums<F>(acc, entries, table_grad);
}

/// One sample's row (L*F floats at `row`), level after level (hash_grid_encode_row). With Vec4
/// (the row 16-byte aligned: its start and L*F both multiples of 4 floats) every four outputs
/// leave as one 16-byte store.
template <int F, bool Vec4>
__device__ inline void encode_row(const HashGridParams& g, const float* __restrict__ table, float x, float y,
                                  float* __restrict__ row) {
  auto load = [table](uint32_t entry, int f) { return __ldg(table + size_t(entry) * F + f); };
  hash_grid_encode_row<F, float>(
      g, x, y, load,
      [row](int32_t k, float a, float b, float c, float d) {
        if constexpr (Vec4) {
          *reinterpret_cast<float4*>(row + k) = make_float4(a, b, c, d);
        } else {
          row[k] = a;
          row[k + 1] = b;
          row[k + 2] = c;
          row[k + 3] = d;
        }
      },
      [row](int32_t k, float v) { row[k] = v; });
}

template <int F, bool Vec4>
__global__ void encode_per_sample_kernel(HashGridParams g, const float* __restrict__ table,
                                         const float* __restrict__ coords, int64_t n, float* __restrict__ out) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  encode_row<F, Vec4>(g, table, coords[2 * i], coords[2 * i + 1], out + i * (g.n_levels * F));
}

template <int F, bool Vec4>
__global__ void encode_grid_per_sample_kernel(HashGridParams g, const float* __restrict__ table, int32_t w, int32_t h,
                                              int64_t p0, int64_t n, float* __restrict__ out) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int64_t p = p0 + i;
  encode_row<F, Vec4>(g, table, pixel_centre<float>(p % w, w), pixel_centre<float>(p / w, h),
                      out + i * (g.n_levels * F));
}

/// encode_row in fp16 for the fused MLP: a row of `ld` halves (ld a multiple of 8, the row 16-byte
/// aligned), four outputs per 8-byte store, the columns past L*F zero.
template <int F>
__device__ inline void encode_row_half(const HashGridParams& g, const float* __restrict__ table, float x, float y,
                                       __half* __restrict__ row, int32_t ld) {
  auto load = [table](uint32_t entry, int f) { return __ldg(table + size_t(entry) * F + f); };
  hash_grid_encode_row<F, float>(
      g, x, y, load,
      [row](int32_t k, float a, float b, float c, float d) {
        const __half2 lo = __floats2half2_rn(a, b), hi = __floats2half2_rn(c, d);
        uint2 v;
        v.x = *reinterpret_cast<const uint32_t*>(&lo);
        v.y = *reinterpret_cast<const uint32_t*>(&hi);
        *reinterpret_cast<uint2*>(row + k) = v;
      },
      [row](int32_t k, float v) { row[k] = __float2half(v); });
  for (int32_t k = g.n_levels * F; k < ld; ++k) row[k] = __float2half(0.0f);
}

template <int F>
__global__ void encode_half_kernel(HashGridParams g, const float* __restrict__ table, const float* __restrict__ coords,
                                   int64_t n, __half* __restrict__ out, int32_t ld) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  encode_row_half<F>(g, table, coords[2 * i], coords[2 * i + 1], out + i * ld, ld);
}

template <int F>
__global__ void encode_grid_half_kernel(HashGridParams g, const float* __restrict__ table, int32_t w, int32_t h,
                                        int64_t p0, int64_t n, __half* __restrict__ out, int32_t ld) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int64_t p = p0 + i;
  encode_row_half<F>(g, table, pixel_centre<float>(p % w, w), pixel_centre<float>(p / w, h), out + i * ld, ld);
}

/// The backward scatter with the lanes of a warp that hit the same entry adding their values
/// first (in lane order), then one atomic per entry and feature. Every lane takes part in the
/// warp intrinsics (lanes past n carry a key no entry has), so the block size is a multiple of 32.
__global__ void backward_aggregated_kernel(HashGridParams g, const float* __restrict__ coords,
                                           const float* __restrict__ d_out, int64_t n, float* __restrict__ table_grad) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool valid = i < n;
  const int32_t l = int32_t(blockIdx.y);
  const int32_t F = g.n_features;
  const int lane = int(threadIdx.x) & 31;
  uint32_t e[4] = {~0u, ~0u, ~0u, ~0u};
  float w[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  if (valid) hash_grid_corners<float>(g, l, coords[2 * i], coords[2 * i + 1], e, w);
  const float* d = valid ? d_out + i * (g.n_levels * F) + l * F : nullptr;
#pragma unroll
  for (int c = 0; c < 4; ++c) {
    const unsigned peers = __match_any_sync(0xffffffffu, e[c]);
    const int leader = __ffs(int(peers)) - 1;
    for (int32_t f = 0; f < F; ++f) {
      const float v = valid ? w[c] * d[f] : 0.0f;
      float sum = 0.0f;
      for (unsigned m = peers; m; m &= m - 1) sum += __shfl_sync(peers, v, __ffs(int(m)) - 1);
      if (valid && lane == leader) atomicAdd(table_grad + size_t(e[c]) * F + f, sum);
    }
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

/// Calls f.template operator()<F, Vec4>() for the grid's feature count and the row alignment.
template <class Fn> void with_features(const HashGridParams& g, const float* out, Fn&& fn) {
  const bool vec4 = (g.n_levels * g.n_features) % 4 == 0 && reinterpret_cast<uintptr_t>(out) % 16 == 0;
  auto pick = [&]<int F>() {
    if (vec4)
      fn.template operator()<F, true>();
    else
      fn.template operator()<F, false>();
  };
  switch (g.n_features) {
  case 1: pick.template operator()<1>(); return;
  case 2: pick.template operator()<2>(); return;
  case 4: pick.template operator()<4>(); return;
  default: pick.template operator()<8>(); return;
  }
}

/// The shared-dense backward; false (nothing launched) when no level fits the budget, and the
/// caller runs the per-sample kernel. The grid: hash_grid_shared_blocks (persistent blocks, each
/// thread several samples), never more than stays resident at once.
bool backward_shared_dense(cudaStream_t stream, const HashGridParams& g, const float* coords, const float* d_out,
                           int64_t n, float* table_grad) {
  static_assert(k_hash_grid_shared_budget <= 48u * 1024u, "a larger budget needs cudaFuncSetAttribute");
  const int32_t levels = hash_grid_shared_levels(g, k_hash_grid_shared_budget);
  if (levels == 0) return false;
  const size_t bytes = size_t(hash_grid_shared_bytes(g, levels));
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  with_features(g, nullptr, [&]<int F, bool>() {
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, backward_shared_dense_kernel<F>,
                                                             k_shared_dense_threads, bytes));
    const int64_t blocks = hash_grid_shared_blocks(n, k_shared_dense_threads, sms, per_sm);
    backward_shared_dense_kernel<F>
        <<<unsigned(blocks), k_shared_dense_threads, bytes, stream>>>(g, levels, coords, d_out, n, table_grad);
  });
  return true;
}

void read_environment() {
  std::call_once(g_env_once, [] {
    const HashGridKernels k =
        parse_hash_grid_kernels(std::getenv("REDRAW_HASH_GRID_ENCODE"), std::getenv("REDRAW_HASH_GRID_BACKWARD"),
                                std::getenv("REDRAW_HASH_GRID_FEATURES"));
    int32_t unset = -1;
    g_encode_kernel.compare_exchange_strong(unset, int32_t(k.encode));
    unset = -1;
    g_backward_kernel.compare_exchange_strong(unset, int32_t(k.backward));
    unset = -1;
    g_half_features.compare_exchange_strong(unset, k.half_features ? 1 : 0);
  });
}

} // namespace

HashGridKernels hash_grid_kernels() {
  if (g_encode_kernel.load() < 0 || g_backward_kernel.load() < 0 || g_half_features.load() < 0) read_environment();
  HashGridKernels k;
  k.encode = HashGridEncodeKernel(g_encode_kernel.load());
  k.backward = HashGridBackwardKernel(g_backward_kernel.load());
  k.half_features = g_half_features.load() != 0;
  return k;
}

void set_hash_grid_kernels(const HashGridKernels& k) {
  g_encode_kernel.store(int32_t(k.encode));
  g_backward_kernel.store(int32_t(k.backward));
  g_half_features.store(k.half_features ? 1 : 0);
}

void hash_grid_encode(cudaStream_t stream, const HashGridParams& g, const float* table, const float* coords, int64_t n,
                      float* out) {
  if (n == 0) return;
  if (hash_grid_kernels().encode == HashGridEncodeKernel::PerLevel) {
    encode_kernel<<<level_grid(g, n), k_threads, 0, stream>>>(g, table, coords, n, out);
  } else {
    with_features(g, out, [&]<int F, bool Vec4>() {
      encode_per_sample_kernel<F, Vec4><<<blocks_for(n), k_threads, 0, stream>>>(g, table, coords, n, out);
    });
  }
  CUDA_CHECK_LAUNCH();
}

void hash_grid_encode_grid(cudaStream_t stream, const HashGridParams& g, const float* table, int32_t w, int32_t h,
                           int64_t p0, int64_t count, float* out) {
  if (count == 0) return;
  if (hash_grid_kernels().encode == HashGridEncodeKernel::PerLevel) {
    encode_grid_kernel<<<level_grid(g, count), k_threads, 0, stream>>>(g, table, w, h, p0, count, out);
  } else {
    with_features(g, out, [&]<int F, bool Vec4>() {
      encode_grid_per_sample_kernel<F, Vec4><<<blocks_for(count), k_threads, 0, stream>>>(g, table, w, h, p0, count,
                                                                                          out);
    });
  }
  CUDA_CHECK_LAUNCH();
}

void hash_grid_backward(cudaStream_t stream, const HashGridParams& g, const float* coords, const float* d_out,
                        int64_t n, float* table_grad) {
  if (n == 0) return;
  switch (hash_grid_kernels().backward) {
  case HashGridBackwardKernel::WarpAggregated:
    backward_aggregated_kernel<<<level_grid(g, n), k_threads, 0, stream>>>(g, coords, d_out, n, table_grad);
    break;
  case HashGridBackwardKernel::Atomic:
    backward_kernel<<<level_grid(g, n), k_threads, 0, stream>>>(g, coords, d_out, n, table_grad);
    break;
  case HashGridBackwardKernel::SharedDense:
    if (backward_shared_dense(stream, g, coords, d_out, n, table_grad)) break;
    [[fallthrough]]; // no level fits: the per-sample kernel
  case HashGridBackwardKernel::PerSample:
    with_features(g, nullptr, [&]<int F, bool>() {
      backward_per_sample_kernel<F><<<blocks_for(n), k_threads, 0, stream>>>(g, coords, d_out, n, table_grad);
    });
    break;
  }
  CUDA_CHECK_LAUNCH();
}

namespace {
void check_half_rows(const HashGridParams& g, const uint16_t* out, int32_t ld) {
  if (ld % 8 != 0 || ld < g.n_levels * g.n_features || reinterpret_cast<uintptr_t>(out) % 16 != 0)
    throw BackendError("hash grid: fp16 rows of " + std::to_string(ld) + " halves cannot hold " +
                       std::to_string(g.n_levels * g.n_features) + " features with 16-byte alignment");
}
} // namespace

void hash_grid_encode_half(cudaStream_t stream, const HashGridParams& g, const float* table, const float* coords,
                           int64_t n, uint16_t* out, int32_t ld) {
  if (n == 0) return;
  check_half_rows(g, out, ld);
  auto* o = reinterpret_cast<__half*>(out);
  with_features(g, nullptr, [&]<int F, bool>() {
    encode_half_kernel<F><<<blocks_for(n), k_threads, 0, stream>>>(g, table, coords, n, o, ld);
  });
  CUDA_CHECK_LAUNCH();
}

void hash_grid_encode_grid_half(cudaStream_t stream, const HashGridParams& g, const float* table, int32_t w, int32_t h,
                                int64_t p0, int64_t count, uint16_t* out, int32_t ld) {
  if (count == 0) return;
  check_half_rows(g, out, ld);
  auto* o = reinterpret_cast<__half*>(out);
  with_features(g, nullptr, [&]<int F, bool>() {
    encode_grid_half_kernel<F><<<blocks_for(count), k_threads, 0, stream>>>(g, table, w, h, p0, count, o, ld);
  });
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
