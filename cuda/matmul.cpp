#include "cuda/matmul.h"

#include "cuda/cuda_check.h"

namespace redraw::cuda {

namespace {
/// C (m x n) = alpha op(A) op(B) + beta C, all fp32 and column-major.
void gemm(cublasHandle_t h, cublasComputeType_t compute, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
          int k, const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc) {
  const float alpha = 1.0f;
  CUBLAS_CHECK(cublasGemmEx(h, ta, tb, m, n, k, &alpha, a, CUDA_R_32F, lda, b, CUDA_R_32F, ldb, &beta, c, CUDA_R_32F,
                            ldc, compute, CUBLAS_GEMM_DEFAULT));
}
} // namespace

cublasComputeType_t compute_type_for(CudaPrecision p) {
  switch (p) {
  case CudaPrecision::Fp32:
  case CudaPrecision::Auto:
    return CUBLAS_COMPUTE_32F;
  case CudaPrecision::Tf32: return CUBLAS_COMPUTE_32F_FAST_TF32;
  case CudaPrecision::Bf16: return CUBLAS_COMPUTE_32F_FAST_16BF;
  }
  return CUBLAS_COMPUTE_32F;
}

void gemm_forward(cublasHandle_t h, cublasComputeType_t compute, const float* x, const float* w, float* z,
                  int64_t rows, int32_t in, int32_t out) {
  // Column-major: Z^T (out x rows) = W (stored as W^T, in x out) ^T * X^T (in x rows).
  gemm(h, compute, CUBLAS_OP_T, CUBLAS_OP_N, out, int(rows), in, w, in, x, in, 0.0f, z, out);
}

void gemm_weight_grad(cublasHandle_t h, cublasComputeType_t compute, const float* g, const float* x, float* dw,
                      int64_t rows, int32_t in, int32_t out, bool accumulate) {
  // Column-major: dW^T (in x out) = X^T (in x rows) * (G^T (out x rows))^T.
  gemm(h, compute, CUBLAS_OP_N, CUBLAS_OP_T, in, out, int(rows), x, in, g, out, accumulate ? 1.0f : 0.0f, dw, in);
}

void gemm_input_grad(cublasHandle_t h, cublasComputeType_t compute, const float* g, const float* w, float* dx,
                     int64_t rows, int32_t in, int32_t out) {
  // Column-major: dX^T (in x rows) = W^T (in x out) * G^T (out x rows).
  gemm(h, compute, CUBLAS_OP_N, CUBLAS_OP_N, in, int(rows), out, w, in, g, out, 0.0f, dx, in);
}

} // namespace redraw::cuda
