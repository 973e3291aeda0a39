// The cuBLAS sgemm reference rate for the benchmark: the same product shapes as a training step,
// timed with CUDA events on the same device in the same run.
#include "cuda/cuda_backend.h"
#include "cuda/cuda_check.h"
#include "cuda/device_buffer.h"
#include "cuda/matmul.h"

#include <algorithm>
#include <random>
#include <vector>

namespace redraw {

using namespace cuda;

double cuda_sgemm_seconds(const std::vector<GemmShape>& shapes, CudaPrecision precision, int repeats) {
  std::string why;
  if (cuda_device_count(&why) == 0) throw BackendError("cuda: no device: " + why);
  if (shapes.empty() || repeats < 1) return 0.0;
  CUDA_CHECK(cudaSetDevice(0));
  size_t a = 0, b = 0, c = 0;
  for (const auto& s : shapes) {
    a = std::max(a, size_t(s.m) * size_t(s.k));
    b = std::max(b, size_t(s.k) * size_t(s.n));
    c = std::max(c, size_t(s.m) * size_t(s.n));
  }
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cublasHandle_t h = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  std::vector<float> times;
  try {
    DevicePool pool(0);
    DeviceBuffer<float> A(pool, stream, a, "benchmark matrix A"), B(pool, stream, b, "benchmark matrix B"),
        C(pool, stream, c, "benchmark matrix C");
    // Random operands, as in training: all-zero matrices draw less power and can clock higher,
    // which would flatter the reference rate.
    {
      std::mt19937 rng(12345);
      std::uniform_real_distribution<float> u(-1.0f, 1.0f);
      std::vector<float> host(std::max(a, b));
      for (auto& v : host) v = u(rng);
      CUDA_CHECK(cudaMemcpyAsync(A.data(), host.data(), A.bytes(), cudaMemcpyHostToDevice, stream));
      CUDA_CHECK(cudaMemcpyAsync(B.data(), host.data(), B.bytes(), cudaMemcpyHostToDevice, stream));
      CUDA_CHECK(cudaStreamSynchronize(stream)); // `host` is pageable and goes out of scope
    }
    CUBLAS_CHECK(cublasCreate(&h));
    CUBLAS_CHECK(cublasSetStream(h, stream));
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    const float one = 1.0f, zero = 0.0f;
    const cublasComputeType_t compute = compute_type_for(precision);
    auto pass = [&] {
      for (const auto& s : shapes) {
        const int lda = s.trans_a ? s.k : s.m, ldb = s.trans_b ? s.n : s.k;
        CUBLAS_CHECK(cublasGemmEx(h, s.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, s.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, s.m,
                                  s.n, s.k, &one, A.data(), CUDA_R_32F, lda, B.data(), CUDA_R_32F, ldb, &zero,
                                  C.data(), CUDA_R_32F, s.m, compute, CUBLAS_GEMM_DEFAULT));
      }
    };
    for (int i = 0; i < 3; ++i) pass(); // warm-up: heuristics, clocks
    for (int r = 0; r < repeats; ++r) {
      CUDA_CHECK(cudaEventRecord(start, stream));
      pass();
      CUDA_CHECK(cudaEventRecord(stop, stream));
      CUDA_CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
      times.push_back(ms);
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
  } catch (...) {
    if (h) cublasDestroy(h);
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    cudaStreamSynchronize(stream);
    cudaStreamDestroy(stream);
    throw;
  }
  cublasDestroy(h);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaStreamDestroy(stream);
  std::sort(times.begin(), times.end());
  return double(times[times.size() / 2]) * 1e-3;
}

} // namespace redraw
