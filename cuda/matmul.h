#pragma once
/// The three matrix products of a dense layer, row-major, through cuBLAS sgemm.
/// cuBLAS is column-major: a row-major (r x c) matrix is the column-major (c x r) matrix, its
/// transpose, at the same address with leading dimension c, so each product below is written as
/// the transposed product of the transposed operands (the "transposition trick").
/// The handle's stream is set by the caller; `compute` picks fp32, or tf32/bf16 tensor cores
/// (cublasGemmEx on fp32 matrices: inputs are rounded inside cuBLAS, outputs stay fp32).
#include "cuda/cuda_backend.h"

#include <cublas_v2.h>

#include <cstdint>

namespace redraw::cuda {

cublasComputeType_t compute_type_for(CudaPrecision p);

/// Z (rows x out) = X (rows x in) * W^T, W is out x in.
void gemm_forward(cublasHandle_t h, cublasComputeType_t compute, const float* x, const float* w, float* z, int64_t rows, int32_t in, int32_t out);
/// dW (out x in) (+)= G^T (out x rows) * X (rows x in).
void gemm_weight_grad(cublasHandle_t h, cublasComputeType_t compute, const float* g, const float* x, float* dw, int64_t rows, int32_t in,
                      int32_t out, bool accumulate);
/// dX (rows x in) = G (rows x out) * W (out x in).
void gemm_input_grad(cublasHandle_t h, cublasComputeType_t compute, const float* g, const float* w, float* dx, int64_t rows, int32_t in,
                     int32_t out);

} // namespace redraw::cuda
