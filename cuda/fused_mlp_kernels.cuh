#pragma once
// Private to the fused MLP's .cu files (fused_mlp.cu: the forward kernels, buffers and dispatch;
// fused_mlp_backward.cu: the backward kernels and the gradient products): the tile shapes of the
// staged and fragment kernels and the device helpers both passes use.
#include "cuda/fused_mlp.cuh"

#include <cuda_fp16.h>
#include <mma.h>

#include <cstdint>

namespace redraw::cuda::fused_mlp_detail {

namespace wmma = nvcuda::wmma;
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

/// Set the backward kernels' dynamic shared-memory limits: the staged kernel's (Tile<Width>::smem)
/// and the fragment kernel's (Tile2<Width>::smem). Defined with the kernels in
/// fused_mlp_backward.cu, for the widths with_width() dispatches to (16, 32, 64, 128).
template <int Width> void set_backward_shared_limit();
template <int Width> void set_backward_fragment_shared_limit();

} // namespace redraw::cuda::fused_mlp_detail
