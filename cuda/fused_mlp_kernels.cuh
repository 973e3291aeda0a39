#pragma once
// Private to the fused MLP's .cu files (fused_mlp.cu: the forward kernels, buffers and dispatch;
// fused_mlp_backward.cu: the backward kernels and the gradient products): the tile shapes of the
// staged and fragment kernels and the device helpers both passes use.
#include "cuda/fused_mlp.cuh"
#include "engine/activation_math.h"

#include <cuda_fp16.h>
#include <mma.h>

#include <cstdint>

namespace redraw::cuda::fused_mlp_detail {

namespace wmma = nvcuda::wmma;
using AccFragment = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;
using AFragment = wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major>;

/// Block shape and shared-memory layout for one hidden width. A warp owns 16 rows of the tile.
template <int Width> struct Tile {
  static constexpr int width = Width;
  static constexpr bool fragment = false; ///< the staged epilogue
  static constexpr int warps = Width >= 128 ? 4 : 8;
  static constexpr int threads = warps * 32;
  static constexpr int rows = warps * 16;
  static constexpr int lda = Width + 8; ///< activation row stride in halves (skewed against bank conflicts)
  static constexpr int ldw = Width + 8; ///< weight row stride in halves
  static constexpr int ld_stage = 20;   ///< accumulator staging row stride in floats
  static constexpr int blocks_n = Width / 16;
  static constexpr int strips = 1; ///< 16-row tiles per warp
  static constexpr size_t act_bytes = size_t(rows) * lda * 2;
  static constexpr size_t weight_bytes = size_t(Width) * ldw * 2;
  static constexpr size_t bias_bytes = 0; ///< no bias tile: the bias is added while staging
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

/// Offsets (in halves) of layer l's input in the activation buffer and of dZ of layer l.
__device__ __host__ inline int64_t activation_offset(const FusedMlpDesc& d, int64_t cap, int l) {
  return l == 0 ? 0 : cap * d.in_pad + int64_t(l - 1) * cap * d.width;
}
__device__ __host__ inline int64_t dz_offset(const FusedMlpDesc& d, int64_t cap, int l) {
  return int64_t(l) * cap * d.width; // l == hidden: the output layer's (rows x 16)
}

/// The backward kernels' first stage: dLoss/dZ of the output layer for a warp's strip_rows rows
/// from row0, unscaled to O(1), into the first 16 columns of its strip(s) (row stride lda) and to
/// the output layer's dZ (dz_out, rows x k_fused_out_pad).
__device__ inline void seed_output_dz(const FusedMlpDesc& d, const float* __restrict__ g_out,
                                      const float* __restrict__ y_out, float grad_scale, int64_t row0, int64_t rows,
                                      int strip_rows, int lane, __half* strip, int lda, __half* dz_out) {
  for (int e = lane; e < strip_rows * 16; e += 32) {
    const int r = e / 16, c = e & 15;
    const int64_t row = row0 + r;
    float v = 0.0f;
    if (row < rows && c < d.out) {
      const float y = y_out[row * d.out + c];
      v = g_out[row * d.out + c] * grad_scale * activate_derivative<float>(d.act[d.hidden], y, y, 30.0f, 1.0f);
    }
    const __half h = __float2half(v);
    strip[r * lda + c] = h;
    if (row < rows) dz_out[row * k_fused_out_pad + c] = h;
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
  static constexpr int width = Width;
  static constexpr bool fragment = true; ///< the fragment epilogue
  static constexpr int warps = Width >= 128 ? 4 : 8;
  static constexpr int strips =
      Width >= 128 ? 1 : 2; ///< 16-row tiles per warp (registers: Width / 16 accumulators each)
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

/// A warp's share of its block in the fused kernels (layout T: Tile or Tile2), in the dynamic
/// shared memory: its strips of the activation tile (T::strips x 16 rows, stride T::lda), the
/// block's staged weights and bias tile (Tile2), the warp's float staging area, and the first row
/// of the batch it owns.
struct WarpShare {
  int lane;
  __half* strips;
  __half* weights;
  float* bias_tile;
  float* stage;
  int64_t row0;
};
template <class T> __device__ inline WarpShare warp_share(int64_t tile0) {
  extern __shared__ __align__(128) unsigned char smem[];
  const int warp = int(threadIdx.x) / 32;
  return WarpShare{int(threadIdx.x) % 32,
                   reinterpret_cast<__half*>(smem) + warp * T::strips * 16 * T::lda,
                   reinterpret_cast<__half*>(smem + T::act_bytes),
                   reinterpret_cast<float*>(smem + T::act_bytes + T::weight_bytes),
                   reinterpret_cast<float*>(smem + T::act_bytes + T::weight_bytes + T::bias_bytes) +
                       warp * 16 * T::ld_stage,
                   tile0 + warp * T::strips * 16};
}

/// acc[s][n] (+)= strip s (16 x 16*k_blocks, row-major, stride lda) times B for the warp's T::strips
/// strips and n < n_blocks; the accumulators keep what they hold (the bias, or zeros). B (k, n) is
/// w[n * ldw + k] when TransposedWeights (forward: X W^T), else w[k * ldw + n] (backward: dZ W).
template <class T, bool TransposedWeights>
__device__ inline void warp_product_strips(const __half* strips, const __half* w, int k_blocks, int n_blocks,
                                           AccFragment (&acc)[T::strips][T::blocks_n]) {
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
        for (int s = 0; s < T::strips; ++s)
          wmma::mma_sync(acc[s][nb], a[s], b, acc[s][nb]);
      } else {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
        wmma::load_matrix_sync(b, w + kb * 16 * T::ldw + nb * 16, T::ldw);
#pragma unroll
        for (int s = 0; s < T::strips; ++s)
          wmma::mma_sync(acc[s][nb], a[s], b, acc[s][nb]);
      }
    }
  }
}

/// acc[n] = strip times B (as above) for the staged kernels' one strip, from zero.
template <int Width, bool TransposedWeights>
__device__ inline void warp_product(const __half* strip, const __half* w, int k_blocks, int n_blocks,
                                    AccFragment (&acc)[Tile<Width>::blocks_n]) {
  using T = Tile<Width>;
#pragma unroll
  for (int nb = 0; nb < T::blocks_n; ++nb)
    wmma::fill_fragment(acc[nb], 0.0f);
  warp_product_strips<T, TransposedWeights>(strip, w, k_blocks, n_blocks,
                                            reinterpret_cast<AccFragment(&)[1][T::blocks_n]>(acc));
}

/// The staged epilogue: each of the warp's n_blocks accumulator blocks through its float staging
/// area, then f(r, c, value) for the block's 256 values (row r of the strip, column c of the layer),
/// 8 per lane.
template <class T, class F>
__device__ inline void staged_epilogue(float* stage, AccFragment (&acc)[T::blocks_n], int n_blocks, int lane, F&& f) {
#pragma unroll
  for (int nb = 0; nb < T::blocks_n; ++nb) {
    if (nb >= n_blocks) continue;
    wmma::store_matrix_sync(stage, acc[nb], T::ld_stage, wmma::mem_row_major);
    __syncwarp();
    for (int e = lane; e < 256; e += 32)
      f(e / 16, nb * 16 + (e & 15), stage[(e / 16) * T::ld_stage + (e & 15)]);
    __syncwarp();
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

/// f.template operator()<T>() with the tile layout of the width and the epilogue: Tile2<W> for the
/// fragment epilogue, else Tile<W>.
template <class F> void with_tile(int32_t width, bool fragment, F&& f) {
  with_width(width, [&]<int W>() {
    if (fragment)
      f.template operator()<Tile2<W>>();
    else
      f.template operator()<Tile<W>>();
  });
}

/// Blocks of T::rows rows that cover `rows`.
template <class T> unsigned tile_blocks(int64_t rows) { return unsigned((rows + T::rows - 1) / T::rows); }

/// Set the backward kernels' dynamic shared-memory limits: the staged kernel's (Tile<Width>::smem)
/// and the fragment kernel's (Tile2<Width>::smem). Defined with the kernels in
/// fused_mlp_backward.cu, for the widths with_width() dispatches to (16, 32, 64, 128).
template <int Width> void set_backward_shared_limit();
template <int Width> void set_backward_fragment_shared_limit();

} // namespace redraw::cuda::fused_mlp_detail
