#include "cuda/cuda_check.h"
#include "cuda/loss_kernels.cuh"

namespace redraw::cuda {

namespace {

constexpr int k_threads = 256;
constexpr int k_items = 8;                                    ///< elements per thread
constexpr int64_t k_block_elements = int64_t(k_threads) * k_items;
constexpr int k_reduce_threads = 1024;

/// Tree sum of one value per thread in shared memory; thread 0 gets the block's total.
template <int Threads> __device__ float block_sum(float v, float* shared) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (int stride = Threads / 2; stride > 0; stride /= 2) {
    if (int(threadIdx.x) < stride) shared[threadIdx.x] += shared[threadIdx.x + stride];
    __syncthreads();
  }
  return shared[0];
}

__global__ void loss_gradient_kernel(LossParams loss, const float* __restrict__ pred,
                                     const float* __restrict__ target, float* __restrict__ g, int64_t count,
                                     float inv_count, float* __restrict__ partial, float* __restrict__ error_partial) {
  __shared__ float shared[k_threads];
  const int64_t base = int64_t(blockIdx.x) * k_block_elements;
  float acc = 0.0f, err = 0.0f;
  for (int k = 0; k < k_items; ++k) {
    const int64_t e = base + int64_t(k) * k_threads + threadIdx.x; // coalesced per k
    if (e >= count) break;
    const float p = pred[e], t = target[e];
    acc += loss_value<float>(loss, p, t);
    g[e] = loss_gradient<float>(loss, p, t) * inv_count;
    const float d = rd_clamp(p, 0.0f, 1.0f) - t;
    err += d * d;
  }
  const float s = block_sum<k_threads>(acc, shared);
  if (threadIdx.x == 0) partial[blockIdx.x] = s;
  if (error_partial == nullptr) return; // the same for the whole grid, so no thread skips a barrier alone
  __syncthreads();                      // shared[0] was read above
  const float e = block_sum<k_threads>(err, shared);
  if (threadIdx.x == 0) error_partial[blockIdx.x] = e;
}

__global__ void clamped_squared_error_kernel(const float* __restrict__ pred, const float* __restrict__ target,
                                             int64_t count, float* __restrict__ partial) {
  __shared__ float shared[k_threads];
  const int64_t base = int64_t(blockIdx.x) * k_block_elements;
  float acc = 0.0f;
  for (int k = 0; k < k_items; ++k) {
    const int64_t e = base + int64_t(k) * k_threads + threadIdx.x;
    if (e >= count) break;
    const float d = rd_clamp(pred[e], 0.0f, 1.0f) - target[e];
    acc += d * d;
  }
  const float s = block_sum<k_threads>(acc, shared);
  if (threadIdx.x == 0) partial[blockIdx.x] = s;
}

__global__ void reduce_sum_kernel(const float* __restrict__ partial, int64_t n, float* out, float* nonfinite_flag) {
  __shared__ float shared[k_reduce_threads];
  float acc = 0.0f;
  for (int64_t i = threadIdx.x; i < n; i += k_reduce_threads) acc += partial[i];
  const float s = block_sum<k_reduce_threads>(acc, shared);
  if (threadIdx.x == 0) {
    *out = s;
    if (nonfinite_flag && !isfinite(s)) *nonfinite_flag = 1.0f; // sticky until the host clears it
  }
}

} // namespace

int64_t loss_partial_count(int64_t count) { return (count + k_block_elements - 1) / k_block_elements; }

void loss_and_gradient(cudaStream_t stream, const LossParams& loss, const float* pred, const float* target, float* g,
                       int64_t count, float inv_count, float* partial, float* error_partial) {
  if (count == 0) return;
  loss_gradient_kernel<<<unsigned(loss_partial_count(count)), k_threads, 0, stream>>>(loss, pred, target, g, count,
                                                                                     inv_count, partial, error_partial);
  CUDA_CHECK_LAUNCH();
}

void clamped_squared_error(cudaStream_t stream, const float* pred, const float* target, int64_t count,
                           float* partial) {
  if (count == 0) return;
  clamped_squared_error_kernel<<<unsigned(loss_partial_count(count)), k_threads, 0, stream>>>(pred, target, count,
                                                                                             partial);
  CUDA_CHECK_LAUNCH();
}

void reduce_sum(cudaStream_t stream, const float* partial, int64_t n, float* out, float* nonfinite_flag) {
  reduce_sum_kernel<<<1, k_reduce_threads, 0, stream>>>(partial, n, out, nonfinite_flag);
  CUDA_CHECK_LAUNCH();
}

} // namespace redraw::cuda
