#pragma once
/// Error checks for the CUDA runtime and cuBLAS (cuda/ only: this header includes CUDA headers).
/// - CUDA_CHECK(expr) / CUBLAS_CHECK(expr) throw redraw::BackendError naming the file, the line,
///   the failing expression and the library's error string. An interactive app throws, never aborts,
///   so it can fall back to the CPU (docs/contributing.md, 6).
/// - CUDA_CHECK_LAUNCH() checks the last kernel launch (cudaGetLastError), without synchronising.
#include "engine/errors.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <string>

namespace redraw::cuda {

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line);
[[noreturn]] void throw_cublas_error(cublasStatus_t st, const char* expr, const char* file, int line);
const char* cublas_status_name(cublasStatus_t st);

} // namespace redraw::cuda

#define CUDA_CHECK(expr)                                                                                             \
  do {                                                                                                               \
    const cudaError_t redraw_err_ = (expr);                                                                          \
    if (redraw_err_ != cudaSuccess) ::redraw::cuda::throw_cuda_error(redraw_err_, #expr, __FILE__, __LINE__);        \
  } while (0)

#define CUBLAS_CHECK(expr)                                                                                           \
  do {                                                                                                               \
    const cublasStatus_t redraw_st_ = (expr);                                                                        \
    if (redraw_st_ != CUBLAS_STATUS_SUCCESS) ::redraw::cuda::throw_cublas_error(redraw_st_, #expr, __FILE__, __LINE__); \
  } while (0)

#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
