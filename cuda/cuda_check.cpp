#include "cuda/cuda_check.h"

namespace redraw::cuda {

namespace {
std::string where(const char* expr, const char* file, int line) {
  return std::string(" in ") + expr + " (" + file + ":" + std::to_string(line) + ")";
}
} // namespace

void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line) {
  // Clears a non-sticky error so the next call does not report it again.
  (void)cudaGetLastError();
  throw BackendError(std::string("cuda: ") + cudaGetErrorName(err) + ": " + cudaGetErrorString(err) +
                     where(expr, file, line));
}

const char* cublas_status_name(cublasStatus_t st) {
  switch (st) {
  case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
  case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
  case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
  case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
  case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
  case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
  case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
  case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
  case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
  default: return "CUBLAS_STATUS_UNKNOWN";
  }
}

void throw_cublas_error(cublasStatus_t st, const char* expr, const char* file, int line) {
  (void)cudaGetLastError();
  throw BackendError(std::string("cublas: ") + cublas_status_name(st) + where(expr, file, line));
}

} // namespace redraw::cuda
