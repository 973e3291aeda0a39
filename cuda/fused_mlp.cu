#include "cuda/cuda_check.h"
#include "cuda/fused_mlp.cuh"
#include "engine/activation_math.h"

#include <cuda_fp16.h>
#include <mma.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>

namespace redraw::cuda {

namespace {

using namespace nvcuda;
using AccFragment = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;
using AFragment = wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major>;

/// Block shape and shared-memory layout for one hidden width. A warp owns 16 rows of the tile.
template <int Width> struct Tile {
  static constexpr int warps = Width >= 128 ? 4 : 8;
  static constexpr int threads = warps * 32;
  static constexpr int rows = warps * 16;
  static constexpr int lda = Width + 8; ///< activation row stride in halves (skewed against bank conflicts)
  static constexpr int ldw = Width + 8; ///< weight row stride in halves
  static constexpr int ld_stage = 20;   ///< accumulator staging row stride in floats
  static constexpr int blocks_n = Width / 16;
  static constexpr size_t act_bytes = size_t(rows) * lda * 2;
  static constexpr size_t weight_bytes = size_t(Width) * ldw * 2;
  static constexpr size_t stage_bytes = size_t(warps) * 16 * ld_stage * 4;
  static constexpr size_t smem = act_bytes + weight_bytes + stage_bytes;
};

/// Copies a rows x cols fp16 matrix (contiguous, cols a multiple of 8) into shared memory with
/// row stride ldw, 16 bytes at a time, with every thread of the block.
__device__ inline void stage_weights(const __half* __restrict__ src, int rows, int cols, __half* dst, int ldw) {
  const int per_row = cols / 8;
  for (int v = int(threadIdx.x); v < rows * per_row; v += int(blockDim.x)) {
    const int r = v / per_row, c = (v - r * per_row) * 8;
    *reinterpret_cast<uint4*>(dst + r * ldw + c) = *reinterpret_cast<const uint4*>(src + size_t(r) * cols + c);
  }
}

/// acc[n] = strip (16 x 16*k_blocks, row-major, stride lda) times B, for n < n_blocks. B (k, n) is
/// w[n * ldw + k] when TransposedWeights (forward: X W^T), else w[k * ldw + n] (backward: dZ W).
template <int Width, bool TransposedWeights>
__device__ inline void warp_product(const __half* strip, const __half* w, int k_blocks, int n_blocks,
                                    AccFragment (&acc)[Tile<Width>::blocks_n]) {
  using T = Tile<Width>;
#pragma unroll
  for (int nb = 0; nb < T::blocks_n; ++nb)
    wmma::fill_fragment(acc[nb], 0.0f);
  for (int kb = 0; kb < k_blocks; ++kb) {
    AFragment a;
    wmma::load_matrix_sync(a, strip + kb * 16, T::lda);
#pragma unroll
    for (int nb = 0; nb < T::blocks_n; ++nb) {
      if (nb >= n_blocks) continue;
      if constexpr (TransposedWeights) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
        wmma::load_matrix_sync(b, w + nb * 16 * T::ldw + kb * 16, T::ldw);
        wmma::mma_sync(acc[nb], a, b, acc[nb]);
      } else {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
        wmma::load_matrix_sync(b, w + kb * 16 * T::ldw + nb * 16, T::ldw);
        wmma::mma_sync(acc[nb], a, b, acc[nb]);
      }
    }
  }
}

/// Offsets (in halves) of layer l's input in the activation buffer and of dZ of layer l.
__device__ __host__ inline int64_t activation_offset(const FusedMlpDesc& d, int64_t cap, int l) {
  return l == 0 ? 0 : cap * d.in_pad + int64_t(l - 1) * cap * d.width;
}
__device__ __host__ inline int64_t dz_offset(const FusedMlpDesc& d, int64_t cap, int l) {
  return int64_t(l) * cap * d.width; // l == hidden: the output layer's (rows x 16)
}

template <int Width>
__global__ void __launch_bounds__(Tile<Width>::threads)
    fused_forward_kernel(FusedMlpDesc d, const __half* __restrict__ weights, const float* __restrict__ params,
                         const float* __restrict__ input, const __half* __restrict__ input_half, int64_t rows,
                         int64_t cap, float* __restrict__ output, __half* __restrict__ acts) {
  using T = Tile<Width>;
  const int64_t tile0 = int64_t(blockIdx.x) * T::rows;
  if (tile0 >= rows) return;
  extern __shared__ __align__(128) unsigned char smem[];
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  __half* strip = reinterpret_cast<__half*>(smem) + warp * 16 * T::lda;
  __half* wsm = reinterpret_cast<__half*>(smem + T::act_bytes);
  float* stage = reinterpret_cast<float*>(smem + T::act_bytes + T::weight_bytes) + warp * 16 * T::ld_stage;
  const int64_t row0 = tile0 + warp * 16;

  if (input_half) {
    // fp16 inputs already padded to in_pad (rows x in_pad; the encoder wrote them, in the layer-0
    // activations when those are kept): 16 bytes at a time, zeros past the last row.
    const int per_row = d.in_pad / 8;
    for (int v = lane; v < 16 * per_row; v += 32) {
      const int r = v / per_row, c = (v - r * per_row) * 8;
      const int64_t row = row0 + r;
      *reinterpret_cast<uint4*>(strip + r * T::lda + c) =
          row < rows ? *reinterpret_cast<const uint4*>(input_half + row * d.in_pad + c) : make_uint4(0, 0, 0, 0);
    }
  } else {
    // The strip's inputs, fp32 -> fp16, zero-padded to in_pad and past the last row.
    for (int e = lane; e < 16 * d.in_pad; e += 32) {
      const int r = e / d.in_pad, c = e - r * d.in_pad;
      const int64_t row = row0 + r;
      const __half h = __float2half(row < rows && c < d.in ? input[row * d.in + c] : 0.0f);
      strip[r * T::lda + c] = h;
      if (acts && row < rows) acts[row * d.in_pad + c] = h;
    }
  }

  for (int l = 0; l <= d.hidden; ++l) {
    const bool last = l == d.hidden;
    __syncthreads(); // every warp is done with the previous layer's weights
    stage_weights(weights + d.packed_offset[l], d.packed_rows[l], d.packed_cols[l], wsm, T::ldw);
    __syncthreads();
    AccFragment acc[T::blocks_n];
    const int n_blocks = d.packed_rows[l] / 16;
    warp_product<Width, true>(strip, wsm, d.packed_cols[l] / 16, n_blocks, acc);
    __syncwarp(); // the strip is read; it now receives this layer's output
    const float* bias = params + d.bias_offset[l];
#pragma unroll
    for (int nb = 0; nb < T::blocks_n; ++nb) {
      if (nb >= n_blocks) continue;
      wmma::store_matrix_sync(stage, acc[nb], T::ld_stage, wmma::mem_row_major);
      __syncwarp();
      for (int e = lane; e < 256; e += 32) {
        const int r = e / 16, c = nb * 16 + (e & 15);
        const int64_t row = row0 + r;
        const float z = stage[r * T::ld_stage + (e & 15)];
        if (!last) {
          const __half h = __float2half(activate<float>(d.act[l], z + bias[c], 30.0f));
          strip[r * T::lda + c] = h;
          if (acts && row < rows) acts[activation_offset(d, cap, l + 1) + row * Width + c] = h;
        } else if (c < d.out && row < rows) {
          output[row * d.out + c] = activate<float>(d.act[l], z + bias[c], 30.0f);
        }
      }
      __syncwarp();
    }
  }
}

template <int Width>
__global__ void __launch_bounds__(Tile<Width>::threads)
    fused_backward_kernel(FusedMlpDesc d, const __half* __restrict__ weights, const float* __restrict__ g_out,
                          const float* __restrict__ y_out, float grad_scale, float input_scale, int64_t rows,
                          int64_t cap, const __half* __restrict__ acts, __half* __restrict__ dz,
                          float* __restrict__ input_grad) {
  using T = Tile<Width>;
  const int64_t tile0 = int64_t(blockIdx.x) * T::rows;
  if (tile0 >= rows) return;
  extern __shared__ __align__(128) unsigned char smem[];
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  __half* strip = reinterpret_cast<__half*>(smem) + warp * 16 * T::lda;
  __half* wsm = reinterpret_cast<__half*>(smem + T::act_bytes);
  float* stage = reinterpret_cast<float*>(smem + T::act_bytes + T::weight_bytes) + warp * 16 * T::ld_stage;
  const int64_t row0 = tile0 + warp * 16;

  // dLoss/dZ of the output layer, unscaled to O(1), into the strip's first 16 columns.
  __half* dz_out = dz + dz_offset(d, cap, d.hidden);
  for (int e = lane; e < 256; e += 32) {
    const int r = e / 16, c = e & 15;
    const int64_t row = row0 + r;
    float v = 0.0f;
    if (row < rows && c < d.out) {
      const float y = y_out[row * d.out + c];
      v = g_out[row * d.out + c] * grad_scale * activate_derivative<float>(d.act[d.hidden], y, y, 30.0f);
    }
    const __half h = __float2half(v);
    strip[r * T::lda + c] = h;
    if (row < rows) dz_out[row * k_fused_out_pad + c] = h;
  }

  // Layer src = l + 1 takes dZ_src back to dY_l = dZ_src W_src, then dZ_l = dY_l * act'(y_l);
  // l = -1 is the input gradient.
  for (int l = d.hidden - 1; l >= -1; --l) {
    if (l < 0 && !input_grad) break;
    const int src = l + 1;
    __syncthreads();
    stage_weights(weights + d.packed_offset[src], d.packed_rows[src], d.packed_cols[src], wsm, T::ldw);
    __syncthreads();
    AccFragment acc[T::blocks_n];
    const int n_blocks = d.packed_cols[src] / 16;
    warp_product<Width, false>(strip, wsm, d.packed_rows[src] / 16, n_blocks, acc);
    __syncwarp();
    const __half* y_l = l >= 0 ? acts + activation_offset(d, cap, l + 1) : nullptr;
    __half* dz_l = l >= 0 ? dz + dz_offset(d, cap, l) : nullptr;
#pragma unroll
    for (int nb = 0; nb < T::blocks_n; ++nb) {
      if (nb >= n_blocks) continue;
      wmma::store_matrix_sync(stage, acc[nb], T::ld_stage, wmma::mem_row_major);
      __syncwarp();
      for (int e = lane; e < 256; e += 32) {
        const int r = e / 16, c = nb * 16 + (e & 15);
        const int64_t row = row0 + r;
        const float g = stage[r * T::ld_stage + (e & 15)];
        if (l >= 0) {
          const float y = row < rows ? __half2float(y_l[row * Width + c]) : 0.0f;
          const __half h = __float2half(row < rows ? g * activate_derivative<float>(d.act[l], y, y, 30.0f) : 0.0f);
          strip[r * T::lda + c] = h;
          if (row < rows) dz_l[row * Width + c] = h;
        } else if (row < rows && c < d.in) {
          input_grad[row * d.in + c] = g * input_scale;
        }
      }
      __syncwarp();
    }
  }
}

// ---- fragment epilogue (FusedEpilogue::Fragment) ------------------------------------------------
// The same passes with: the bias loaded into the accumulators before the products (a replicated
// 16-row bias tile in shared memory) and the activation applied to the accumulator fragments'
// elements (elementwise, so the fragments' element order does not matter); each lane then turns 8
// staged values into one 16-byte store to the strip and one to global memory; a warp carries
// Strips 16-row tiles, so every B fragment loaded from shared memory serves Strips products, and a
// block's weights, staged once per layer, serve warps * Strips tiles.

/// Block shape and shared-memory layout of the fragment kernels.
template <int Width> struct Tile2 {
  static constexpr int warps = Width >= 128 ? 4 : 8;
  static constexpr int strips = Width >= 128 ? 1 : 2; ///< 16-row tiles per warp (registers: Width / 16 accumulators each)
  static constexpr int threads = warps * 32;
  static constexpr int rows = warps * strips * 16;
  static constexpr int lda = Width + 8;
  static constexpr int ldw = Width + 8;
  static constexpr int ld_stage = 20; ///< floats; a multiple of 4, so each staged row half is one float4 pair
  static constexpr int blocks_n = Width / 16;
  static constexpr size_t act_bytes = size_t(rows) * lda * 2;
  static constexpr size_t weight_bytes = size_t(Width) * ldw * 2;
  static constexpr size_t bias_bytes = size_t(16) * Width * 4;
  static constexpr size_t stage_bytes = size_t(warps) * 16 * ld_stage * 4;
  static constexpr size_t smem = act_bytes + weight_bytes + bias_bytes + stage_bytes;
};

/// acc[s][n] (+)= strip s (16 x 16*k_blocks, stride lda) times B for the warp's strips; the
/// accumulators keep what they hold (the bias, or zeros).
template <int Width, bool TransposedWeights>
__device__ inline void warp_product_strips(const __half* strips, const __half* w, int k_blocks, int n_blocks,
                                           AccFragment (&acc)[Tile2<Width>::strips][Tile2<Width>::blocks_n]) {
  using T = Tile2<Width>;
  for (int kb = 0; kb < k_blocks; ++kb) {
    AFragment a[T::strips];
#pragma unroll
    for (int s = 0; s < T::strips; ++s)
      wmma::load_matrix_sync(a[s], strips + s * 16 * T::lda + kb * 16, T::lda);
#pragma unroll
    for (int nb = 0; nb < T::blocks_n; ++nb) {
      if (nb >= n_blocks) continue;
      if constexpr (TransposedWeights) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
        wmma::load_matrix_sync(b, w + nb * 16 * T::ldw + kb * 16, T::ldw);
#pragma unroll
        for (int s = 0; s < T::strips; ++s) wmma::mma_sync(acc[s][nb], a[s], b, acc[s][nb]);
      } else {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
        wmma::load_matrix_sync(b, w + kb * 16 * T::ldw + nb * 16, T::ldw);
#pragma unroll
        for (int s = 0; s < T::strips; ++s) wmma::mma_sync(acc[s][nb], a[s], b, acc[s][nb]);
      }
    }
  }
}

/// 8 floats -> 8 halves in one 16-byte value.
__device__ inline uint4 pack_halves(const float (&v)[8]) {
  uint4 out;
  uint32_t* o = reinterpret_cast<uint32_t*>(&out);
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const __half2 h = __floats2half2_rn(v[2 * j], v[2 * j + 1]);
    o[j] = *reinterpret_cast<const uint32_t*>(&h);
  }
  return out;
}

/// The lane's 8 staged values: row lane / 2, columns (lane % 2) * 8 .. + 7 of the 16 x 16 stage.
__device__ inline void read_stage(const float* stage, int ld_stage, int lane, float (&v)[8]) {
  const float4* p = reinterpret_cast<const float4*>(stage + (lane >> 1) * ld_stage + (lane & 1) * 8);
  const float4 a = p[0], b = p[1];
  v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w, v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
}

/// The warp's first S * 16 inputs into its strips (fp16, zero-padded to in_pad and past the last
/// row); from fp32 inputs (also kept in acts, when given) or from fp16 rows already in place.
template <int Width>
__device__ inline void load_input_strips(const FusedMlpDesc& d, const float* __restrict__ input,
                                         const __half* __restrict__ input_half, int64_t rows, int64_t row0, int lane,
                                         __half* strips, __half* __restrict__ acts) {
  using T = Tile2<Width>;
  constexpr int R = T::strips * 16;
  if (input_half) {
    const int per_row = d.in_pad / 8;
    for (int v = lane; v < R * per_row; v += 32) {
      const int r = v / per_row, c = (v - r * per_row) * 8;
      const int64_t row = row0 + r;
      *reinterpret_cast<uint4*>(strips + r * T::lda + c) =
          row < rows ? *reinterpret_cast<const uint4*>(input_half + row * d.in_pad + c) : make_uint4(0, 0, 0, 0);
    }
    return;
  }
  for (int e = lane; e < R * d.in_pad; e += 32) {
    const int r = e / d.in_pad, c = e - r * d.in_pad;
    const int64_t row = row0 + r;
    const __half h = __float2half(row < rows && c < d.in ? input[row * d.in + c] : 0.0f);
    strips[r * T::lda + c] = h;
    if (acts && row < rows) acts[row * d.in_pad + c] = h;
  }
}

template <int Width>
__global__ void __launch_bounds__(Tile2<Width>::threads)
    fused_forward_fragment_kernel(FusedMlpDesc d, const __half* __restrict__ weights, const float* __restrict__ params,
                                  const float* __restrict__ input, const __half* __restrict__ input_half, int64_t rows,
                                  int64_t cap, float* __restrict__ output, __half* __restrict__ acts) {
  using T = Tile2<Width>;
  const int64_t tile0 = int64_t(blockIdx.x) * T::rows;
  if (tile0 >= rows) return;
  extern __shared__ __align__(128) unsigned char smem[];
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  __half* strips = reinterpret_cast<__half*>(smem) + warp * T::strips * 16 * T::lda;
  __half* wsm = reinterpret_cast<__half*>(smem + T::act_bytes);
  float* bias_tile = reinterpret_cast<float*>(smem + T::act_bytes + T::weight_bytes);
  float* stage = reinterpret_cast<float*>(smem + T::act_bytes + T::weight_bytes + T::bias_bytes) + warp * 16 * T::ld_stage;
  const int64_t row0 = tile0 + warp * T::strips * 16;
  load_input_strips<Width>(d, input, input_half, rows, row0, lane, strips, acts);

  for (int l = 0; l <= d.hidden; ++l) {
    const bool last = l == d.hidden;
    const int out_cols = d.packed_rows[l]; // Width, or 16 for the output layer
    __syncthreads(); // every warp is done with the previous layer's weights and bias
    stage_weights(weights + d.packed_offset[l], d.packed_rows[l], d.packed_cols[l], wsm, T::ldw);
    for (int e = int(threadIdx.x); e < 16 * out_cols; e += int(blockDim.x)) {
      const int c = e % out_cols;
      bias_tile[(e / out_cols) * Width + c] = c < d.real_out[l] ? params[d.bias_offset[l] + c] : 0.0f;
    }
    __syncthreads();
    const int n_blocks = out_cols / 16;
    AccFragment acc[T::strips][T::blocks_n];
#pragma unroll
    for (int s = 0; s < T::strips; ++s)
#pragma unroll
      for (int nb = 0; nb < T::blocks_n; ++nb)
        if (nb < n_blocks) wmma::load_matrix_sync(acc[s][nb], bias_tile + nb * 16, Width, wmma::mem_row_major);
    warp_product_strips<Width, true>(strips, wsm, d.packed_cols[l] / 16, n_blocks, acc);
    __syncwarp(); // the strips are read; they now receive this layer's outputs
    const Activation act = d.act[l];
#pragma unroll
    for (int s = 0; s < T::strips; ++s) {
#pragma unroll
      for (int nb = 0; nb < T::blocks_n; ++nb) {
        if (nb >= n_blocks) continue;
        for (int i = 0; i < acc[s][nb].num_elements; ++i) acc[s][nb].x[i] = activate<float>(act, acc[s][nb].x[i], 30.0f);
        wmma::store_matrix_sync(stage, acc[s][nb], T::ld_stage, wmma::mem_row_major);
        __syncwarp();
        const int r = lane >> 1, c = nb * 16 + (lane & 1) * 8;
        const int64_t row = row0 + s * 16 + r;
        if (!last) {
          float v[8];
          read_stage(stage, T::ld_stage, lane, v);
          const uint4 h = pack_halves(v);
          *reinterpret_cast<uint4*>(strips + (s * 16 + r) * T::lda + c) = h;
          if (acts && row < rows) *reinterpret_cast<uint4*>(acts + activation_offset(d, cap, l + 1) + row * Width + c) = h;
        } else {
          for (int e = lane; e < 256; e += 32) {
            const int rr = e / 16, cc = e & 15;
            const int64_t orow = row0 + s * 16 + rr;
            if (cc < d.out && orow < rows) output[orow * d.out + cc] = stage[rr * T::ld_stage + cc];
          }
        }
        __syncwarp();
      }
    }
  }
}

template <int Width>
__global__ void __launch_bounds__(Tile2<Width>::threads)
    fused_backward_fragment_kernel(FusedMlpDesc d, const __half* __restrict__ weights, const float* __restrict__ g_out,
                                   const float* __restrict__ y_out, float grad_scale, float input_scale, int64_t rows,
                                   int64_t cap, const __half* __restrict__ acts, __half* __restrict__ dz,
                                   float* __restrict__ input_grad) {
  using T = Tile2<Width>;
  const int64_t tile0 = int64_t(blockIdx.x) * T::rows;
  if (tile0 >= rows) return;
  extern __shared__ __align__(128) unsigned char smem[];
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  __half* strips = reinterpret_cast<__half*>(smem) + warp * T::strips * 16 * T::lda;
  __half* wsm = reinterpret_cast<__half*>(smem + T::act_bytes);
  float* stage = reinterpret_cast<float*>(smem + T::act_bytes + T::weight_bytes + T::bias_bytes) + warp * 16 * T::ld_stage;
  const int64_t row0 = tile0 + warp * T::strips * 16;

  // dLoss/dZ of the output layer, unscaled to O(1), into the strips' first 16 columns.
  __half* dz_out = dz + dz_offset(d, cap, d.hidden);
  for (int e = lane; e < T::strips * 256; e += 32) {
    const int r = e / 16, c = e & 15;
    const int64_t row = row0 + r;
    float v = 0.0f;
    if (row < rows && c < d.out) {
      const float y = y_out[row * d.out + c];
      v = g_out[row * d.out + c] * grad_scale * activate_derivative<float>(d.act[d.hidden], y, y, 30.0f);
    }
    const __half h = __float2half(v);
    strips[r * T::lda + c] = h;
    if (row < rows) dz_out[row * k_fused_out_pad + c] = h;
  }

  for (int l = d.hidden - 1; l >= -1; --l) {
    if (l < 0 && !input_grad) break;
    const int src = l + 1;
    __syncthreads();
    stage_weights(weights + d.packed_offset[src], d.packed_rows[src], d.packed_cols[src], wsm, T::ldw);
    __syncthreads();
    const int n_blocks = d.packed_cols[src] / 16;
    AccFragment acc[T::strips][T::blocks_n];
#pragma unroll
    for (int s = 0; s < T::strips; ++s)
#pragma unroll
      for (int nb = 0; nb < T::blocks_n; ++nb) wmma::fill_fragment(acc[s][nb], 0.0f);
    warp_product_strips<Width, false>(strips, wsm, d.packed_rows[src] / 16, n_blocks, acc);
    __syncwarp();
    const __half* y_l = l >= 0 ? acts + activation_offset(d, cap, l + 1) : nullptr;
    __half* dz_l = l >= 0 ? dz + dz_offset(d, cap, l) : nullptr;
    const Activation act = l >= 0 ? d.act[l] : Activation::Identity;
#pragma unroll
    for (int s = 0; s < T::strips; ++s) {
#pragma unroll
      for (int nb = 0; nb < T::blocks_n; ++nb) {
        if (nb >= n_blocks) continue;
        wmma::store_matrix_sync(stage, acc[s][nb], T::ld_stage, wmma::mem_row_major);
        __syncwarp();
        if (l >= 0) {
          const int r = lane >> 1, c = nb * 16 + (lane & 1) * 8;
          const int64_t row = row0 + s * 16 + r;
          float g[8];
          read_stage(stage, T::ld_stage, lane, g);
          uint4 yv = make_uint4(0, 0, 0, 0);
          if (row < rows) yv = *reinterpret_cast<const uint4*>(y_l + row * Width + c);
          const __half* y = reinterpret_cast<const __half*>(&yv);
#pragma unroll
          for (int j = 0; j < 8; ++j) {
            const float yf = __half2float(y[j]);
            g[j] = row < rows ? g[j] * activate_derivative<float>(act, yf, yf, 30.0f) : 0.0f;
          }
          const uint4 h = pack_halves(g);
          *reinterpret_cast<uint4*>(strips + (s * 16 + r) * T::lda + c) = h;
          if (row < rows) *reinterpret_cast<uint4*>(dz_l + row * Width + c) = h;
        } else {
          for (int e = lane; e < 256; e += 32) {
            const int r = e / 16, c = nb * 16 + (e & 15);
            const int64_t row = row0 + s * 16 + r;
            if (row < rows && c < d.in) input_grad[row * d.in + c] = stage[r * T::ld_stage + (e & 15)] * input_scale;
          }
        }
        __syncwarp();
      }
    }
  }
}

__global__ void pack_weights_kernel(FusedMlpDesc d, const float* __restrict__ params, __half* __restrict__ out,
                                    int32_t total) {
  const int32_t i = int32_t(blockIdx.x) * int32_t(blockDim.x) + int32_t(threadIdx.x);
  if (i >= total) return;
  int l = 0;
  while (l < d.hidden && i >= d.packed_offset[l + 1])
    ++l;
  const int32_t local = i - d.packed_offset[l];
  const int32_t o = local / d.packed_cols[l], c = local - o * d.packed_cols[l];
  float v = 0.0f;
  if (o < d.real_out[l] && c < d.real_in[l]) v = params[d.weight_offset[l] + int64_t(o) * d.real_in[l] + c];
  out[i] = __float2half(v);
}

__global__ void fill_ones_kernel(__half* __restrict__ out, int64_t n) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = __float2half(1.0f);
}

FusedMlpDesc describe(const ModelSpec& model) {
  const auto layers = dense_layers(model);
  FusedMlpDesc d;
  d.width = model.hidden.front();
  d.in = model.encoding.width();
  d.in_pad = fused_round16(d.in);
  d.hidden = int32_t(model.hidden.size());
  d.out = model.output_channels;
  int32_t offset = 0;
  for (int32_t l = 0; l <= d.hidden; ++l) {
    const DenseLayer& L = layers[size_t(l)];
    d.act[l] = L.activation;
    d.weight_offset[l] = L.weight_offset;
    d.bias_offset[l] = L.bias_offset;
    d.real_out[l] = L.out;
    d.real_in[l] = L.in;
    d.packed_rows[l] = l == d.hidden ? k_fused_out_pad : d.width;
    d.packed_cols[l] = l == 0 ? d.in_pad : d.width;
    d.packed_offset[l] = offset;
    offset += d.packed_rows[l] * d.packed_cols[l];
  }
  d.packed_offset[d.hidden + 1] = offset;
  return d;
}

template <int Width> void set_shared_limit() {
  const int bytes = int(Tile<Width>::smem);
  CUDA_CHECK(cudaFuncSetAttribute(fused_forward_kernel<Width>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  CUDA_CHECK(cudaFuncSetAttribute(fused_backward_kernel<Width>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
}

/// Sets the fragment kernels' shared-memory limit; false when the device has too little shared
/// memory per block for them (compute capability 7.5 at width 128), which then run staged.
template <int Width> bool set_fragment_shared_limit() {
  int device = 0, optin = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const int bytes = int(Tile2<Width>::smem);
  if (bytes > optin) return false;
  CUDA_CHECK(
      cudaFuncSetAttribute(fused_forward_fragment_kernel<Width>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  CUDA_CHECK(
      cudaFuncSetAttribute(fused_backward_fragment_kernel<Width>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  return true;
}

/// -1: not read from the environment yet.
std::atomic<int32_t> g_epilogue{-1};
std::once_flag g_epilogue_once;

/// Calls f.template operator()<Width>() for the runtime width.
template <class F> void with_width(int32_t width, F&& f) {
  switch (width) {
  case 16:
    f.template operator()<16>();
    return;
  case 32:
    f.template operator()<32>();
    return;
  case 64:
    f.template operator()<64>();
    return;
  default:
    f.template operator()<128>();
    return;
  }
}

/// C (m x n, column-major, fp32) = alpha A B + beta C with fp16 A and B (cuBLAS, fp32 accumulation).
void gemm_half(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, float alpha,
               const __half* a, int lda, const __half* b, int ldb, float beta, float* c, int ldc) {
  CUBLAS_CHECK(cublasGemmEx(h, ta, tb, m, n, k, &alpha, a, CUDA_R_16F, lda, b, CUDA_R_16F, ldb, &beta, c, CUDA_R_32F,
                            ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

} // namespace

FusedEpilogue fused_epilogue() {
  if (g_epilogue.load() < 0)
    std::call_once(g_epilogue_once, [] {
      int32_t unset = -1;
      g_epilogue.compare_exchange_strong(unset, int32_t(parse_fused_epilogue(std::getenv("REDRAW_FUSED_MLP_EPILOGUE"))));
    });
  return FusedEpilogue(g_epilogue.load());
}

void set_fused_epilogue(FusedEpilogue e) { g_epilogue.store(int32_t(e)); }

size_t fused_mlp_shared_bytes(int32_t width) {
  size_t bytes = 0;
  with_width(width, [&]<int W>() { bytes = Tile<W>::smem; });
  return bytes;
}

uint64_t FusedMlp::bytes_needed(const ModelSpec& model, int64_t rows, bool with_backward) {
  const FusedMlpDesc d = describe(model);
  uint64_t halves = uint64_t(d.packed_offset[d.hidden + 1]);
  if (with_backward) {
    halves += uint64_t(rows) * uint64_t(d.in_pad + d.hidden * d.width);        // activations
    halves += uint64_t(rows) * uint64_t(d.hidden * d.width + k_fused_out_pad); // dZ
    halves += uint64_t(rows);                                                  // ones
  } else {
    halves += uint64_t(rows) * uint64_t(d.in_pad); // fp16 inputs (with backward: the layer-0 activations)
  }
  return halves * 2;
}

void FusedMlp::allocate(const DevicePool& pool, cudaStream_t stream, const ModelSpec& model, int64_t rows,
                        bool with_backward) {
  const std::string why = fused_mlp_unsupported(model);
  if (!why.empty()) throw BackendError("fused MLP: " + why);
  m_desc = describe(model);
  m_rows = rows;
  const FusedMlpDesc& d = m_desc;
  with_width(d.width, [&]<int W>() {
    set_shared_limit<W>();
    m_fragment_ok = set_fragment_shared_limit<W>();
  });
  m_weights = DeviceBuffer<uint16_t>(pool, stream, size_t(d.packed_offset[d.hidden + 1]), "fp16 weights");
  m_half_input = with_backward ? DeviceBuffer<uint16_t>()
                               : DeviceBuffer<uint16_t>(pool, stream, size_t(rows) * size_t(d.in_pad), "fp16 inputs");
  if (with_backward) {
    m_activations =
        DeviceBuffer<uint16_t>(pool, stream, size_t(rows) * size_t(d.in_pad + d.hidden * d.width), "fp16 activations");
    m_dz = DeviceBuffer<uint16_t>(pool, stream, size_t(rows) * size_t(d.hidden * d.width + k_fused_out_pad),
                                  "fp16 activation gradients");
    m_ones = DeviceBuffer<uint16_t>(pool, stream, size_t(rows), "fp16 ones");
    fill_ones_kernel<<<unsigned((rows + 255) / 256), 256, 0, stream>>>(reinterpret_cast<__half*>(m_ones.data()), rows);
    CUDA_CHECK_LAUNCH();
  } else {
    m_activations = {};
    m_dz = {};
    m_ones = {};
  }
}

void FusedMlp::forward(cudaStream_t stream, const float* params, const float* input, int64_t rows, float* output,
                       bool keep_activations) {
  if (!allocated()) throw BackendError("fused MLP: forward() before allocate()");
  if (!input && !half_input()) throw BackendError("fused MLP: no inputs");
  if (const std::string why = fused_rows_problem(rows, m_rows); !why.empty()) throw BackendError(why);
  if (rows == 0) return;
  if (keep_activations && m_activations.empty()) throw BackendError("fused MLP: no activation buffers");
  const FusedMlpDesc& d = m_desc;
  const int32_t total = d.packed_offset[d.hidden + 1];
  auto* w = reinterpret_cast<__half*>(m_weights.data());
  pack_weights_kernel<<<unsigned((total + 255) / 256), 256, 0, stream>>>(d, params, w, total);
  CUDA_CHECK_LAUNCH();
  __half* acts = keep_activations ? reinterpret_cast<__half*>(m_activations.data()) : nullptr;
  const __half* input_half = input ? nullptr : reinterpret_cast<const __half*>(half_input());
  const bool fragment = m_fragment_ok && fused_epilogue() == FusedEpilogue::Fragment;
  with_width(d.width, [&]<int W>() {
    if (fragment) {
      using T = Tile2<W>;
      const unsigned blocks = unsigned((rows + T::rows - 1) / T::rows);
      fused_forward_fragment_kernel<W>
          <<<blocks, T::threads, T::smem, stream>>>(d, w, params, input, input_half, rows, m_rows, output, acts);
    } else {
      using T = Tile<W>;
      const unsigned blocks = unsigned((rows + T::rows - 1) / T::rows);
      fused_forward_kernel<W>
          <<<blocks, T::threads, T::smem, stream>>>(d, w, params, input, input_half, rows, m_rows, output, acts);
    }
  });
  CUDA_CHECK_LAUNCH();
}

void FusedMlp::backward(cudaStream_t stream, cublasHandle_t blas, const float* g_out, const float* y_out, int64_t rows,
                        float inv_count, float* grads, bool accumulate, float* input_grad) {
  if (!allocated()) throw BackendError("fused MLP: backward() before allocate()");
  if (const std::string why = fused_rows_problem(rows, m_rows); !why.empty()) throw BackendError(why);
  if (rows == 0) return;
  if (m_dz.empty()) throw BackendError("fused MLP: no gradient buffers");
  const FusedMlpDesc& d = m_desc;
  const auto* w = reinterpret_cast<const __half*>(m_weights.data());
  const auto* acts = reinterpret_cast<const __half*>(m_activations.data());
  auto* dz = reinterpret_cast<__half*>(m_dz.data());
  const float grad_scale = 1.0f / inv_count;
  const bool fragment = m_fragment_ok && fused_epilogue() == FusedEpilogue::Fragment;
  with_width(d.width, [&]<int W>() {
    if (fragment) {
      using T = Tile2<W>;
      const unsigned blocks = unsigned((rows + T::rows - 1) / T::rows);
      fused_backward_fragment_kernel<W><<<blocks, T::threads, T::smem, stream>>>(
          d, w, g_out, y_out, grad_scale, inv_count, rows, m_rows, acts, dz, input_grad);
    } else {
      using T = Tile<W>;
      const unsigned blocks = unsigned((rows + T::rows - 1) / T::rows);
      fused_backward_kernel<W><<<blocks, T::threads, T::smem, stream>>>(d, w, g_out, y_out, grad_scale, inv_count,
                                                                        rows, m_rows, acts, dz, input_grad);
    }
  });
  CUDA_CHECK_LAUNCH();
  // dW_l (out x in, row-major) = inv_count * dZ_l^T X_l: column-major dW^T (in x out) = X^T dZ.
  // db_l = inv_count * dZ_l^T 1.
  const float beta = accumulate ? 1.0f : 0.0f;
  const auto* ones = reinterpret_cast<const __half*>(m_ones.data());
  for (int32_t l = 0; l <= d.hidden; ++l) {
    const __half* x = acts + activation_offset(d, m_rows, l);
    const int ldx = l == 0 ? d.in_pad : d.width;
    const __half* g = dz + dz_offset(d, m_rows, l);
    const int ldg = l == d.hidden ? k_fused_out_pad : d.width;
    gemm_half(blas, CUBLAS_OP_N, CUBLAS_OP_T, d.real_in[l], d.real_out[l], int(rows), inv_count, x, ldx, g, ldg, beta,
              grads + d.weight_offset[l], d.real_in[l]);
    gemm_half(blas, CUBLAS_OP_N, CUBLAS_OP_N, d.real_out[l], 1, int(rows), inv_count, g, ldg, ones, int(rows), beta,
              grads + d.bias_offset[l], d.real_out[l]);
  }
}

} // namespace redraw::cuda
