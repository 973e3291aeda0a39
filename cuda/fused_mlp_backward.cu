// The fused MLP's backward kernels (staged and fragment), their shared-memory limits and
// FusedMlp::backward: dLoss/dZ per layer in the kernels, then the weight and bias gradients as
// cuBLAS products.
#include "cuda/cuda_check.h"
#include "cuda/fused_mlp.cuh"
#include "cuda/fused_mlp_kernels.cuh"
#include "engine/activation_math.h"

#include <cuda_fp16.h>
#include <mma.h>

namespace redraw::cuda {

using namespace fused_mlp_detail;

namespace {

/// The backward pass of one tile of rows, T = Tile<Width> (staged epilogue) or Tile2<Width>
/// (fragment epilogue): dZ of every layer, and the input gradient when input_grad is given.
template <class T>
__global__ void __launch_bounds__(T::threads)
    fused_backward_kernel(FusedMlpDesc d, const __half* __restrict__ weights, const float* __restrict__ g_out,
                          const float* __restrict__ y_out, float grad_scale, float input_scale, int64_t rows,
                          int64_t cap, const __half* __restrict__ acts, __half* __restrict__ dz,
                          float* __restrict__ input_grad) {
  constexpr int Width = T::width;
  const int64_t tile0 = int64_t(blockIdx.x) * T::rows;
  if (tile0 >= rows) return;
  [[maybe_unused]] const auto [lane, strips, wsm, bias_tile, stage, row0] = warp_share<T>(tile0);

  // dLoss/dZ of the output layer, unscaled to O(1), into the strips' first 16 columns.
  seed_output_dz(d, g_out, y_out, grad_scale, row0, rows, T::strips * 16, lane, strips, T::lda,
                 dz + dz_offset(d, cap, d.hidden));
  // Layer src = l + 1 takes dZ_src back to dY_l = dZ_src W_src, then dZ_l = dY_l * act'(y_l);
  // l = -1 is the input gradient.
  for (int l = d.hidden - 1; l >= -1; --l) {
    if (l < 0 && !input_grad) break;
    const int src = l + 1;
    __syncthreads();
    stage_weights(weights + d.packed_offset[src], d.packed_rows[src], d.packed_cols[src], wsm, T::ldw);
    __syncthreads();
    const int n_blocks = d.packed_cols[src] / 16;
    const __half* y_l = l >= 0 ? acts + activation_offset(d, cap, l + 1) : nullptr;
    __half* dz_l = l >= 0 ? dz + dz_offset(d, cap, l) : nullptr;
    if constexpr (T::fragment) {
      AccFragment acc[T::strips][T::blocks_n];
#pragma unroll
      for (int s = 0; s < T::strips; ++s)
#pragma unroll
        for (int nb = 0; nb < T::blocks_n; ++nb)
          wmma::fill_fragment(acc[s][nb], 0.0f);
      warp_product_strips<T, false>(strips, wsm, d.packed_rows[src] / 16, n_blocks, acc);
      __syncwarp();
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
              g[j] = row < rows ? g[j] * activate_derivative<float>(act, yf, yf, 30.0f, 1.0f) : 0.0f;
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
    } else {
      AccFragment acc[T::blocks_n];
      warp_product<Width, false>(strips, wsm, d.packed_rows[src] / 16, n_blocks, acc);
      __syncwarp();
      staged_epilogue<T>(stage, acc, n_blocks, lane, [&](int r, int c, float g) {
        const int64_t row = row0 + r;
        if (l >= 0) {
          const float y = row < rows ? __half2float(y_l[row * Width + c]) : 0.0f;
          const __half h =
              __float2half(row < rows ? g * activate_derivative<float>(d.act[l], y, y, 30.0f, 1.0f) : 0.0f);
          strips[r * T::lda + c] = h;
          if (row < rows) dz_l[row * Width + c] = h;
        } else if (row < rows && c < d.in) {
          input_grad[row * d.in + c] = g * input_scale;
        }
      });
    }
  }
}

/// C (m x n, column-major, fp32) = alpha A B + beta C with fp16 A and B (cuBLAS, fp32 accumulation).
void gemm_half(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, float alpha,
               const __half* a, int lda, const __half* b, int ldb, float beta, float* c, int ldc) {
  CUBLAS_CHECK(cublasGemmEx(h, ta, tb, m, n, k, &alpha, a, CUDA_R_16F, lda, b, CUDA_R_16F, ldb, &beta, c, CUDA_R_32F,
                            ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

} // namespace

namespace fused_mlp_detail {

template <int Width> void set_backward_shared_limit() {
  CUDA_CHECK(cudaFuncSetAttribute(fused_backward_kernel<Tile<Width>>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  int(Tile<Width>::smem)));
}

template <int Width> void set_backward_fragment_shared_limit() {
  CUDA_CHECK(cudaFuncSetAttribute(fused_backward_kernel<Tile2<Width>>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  int(Tile2<Width>::smem)));
}

template void set_backward_shared_limit<16>();
template void set_backward_shared_limit<32>();
template void set_backward_shared_limit<64>();
template void set_backward_shared_limit<128>();
template void set_backward_fragment_shared_limit<16>();
template void set_backward_fragment_shared_limit<32>();
template void set_backward_fragment_shared_limit<64>();
template void set_backward_fragment_shared_limit<128>();

} // namespace fused_mlp_detail

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
  with_tile(d.width, fragment, [&]<class T>() {
    fused_backward_kernel<T><<<tile_blocks<T>(rows), T::threads, T::smem, stream>>>(
        d, w, g_out, y_out, grad_scale, inv_count, rows, m_rows, acts, dz, input_grad);
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
