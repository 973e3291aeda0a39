#include "cuda/matmul.h"

#include "cuda/cuda_check.h"

namespace redraw::cuda {

void gemm_forward(cublasHandle_t h, const float* x, const float* w, float* z, int64_t rows, int32_t in, int32_t out) {
  // Column-major: Z^T (out x rows) = W (stored as W^T, in x out) ^T * X^T (in x rows).
  const float one = 1.0f, zero = 0.0f;
  CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, out, int(rows), in, &one, w, in, x, in, &zero, z, out));
}

void gemm_weight_grad(cublasHandle_t h, const float* g, const float* x, float* dw, int64_t rows, int32_t in,
                      int32_t out, bool accumulate) {
  // Column-major: dW^T (in x out) = X^T (in x rows) * (G^T (out x rows))^T.
  const float one = 1.0f, beta = accumulate ? 1.0f : 0.0f;
  CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, in, out, int(rows), &one, x, in, g, out, &beta, dw, in));
}

void gemm_input_grad(cublasHandle_t h, const float* g, const float* w, float* dx, int64_t rows, int32_t in,
                     int32_t out) {
  // Column-major: dX^T (in x rows) = W^T (in x out) * G^T (out x rows).
  const float one = 1.0f, zero = 0.0f;
  CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, in, int(rows), out, &one, w, in, g, out, &zero, dx, in));
}

} // namespace redraw::cuda
