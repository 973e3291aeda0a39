#include "cuda/activation_kernels.cuh"
#include "cuda/cuda_check.h"

#include <type_traits>

namespace redraw::cuda {

namespace {

constexpr int k_forward_threads = 256;
// Backward: a block covers 32 columns and k_rows_per_block rows; threads are 32 x k_row_threads.
constexpr int k_col_tile = 32;
constexpr int k_row_threads = 8;
constexpr int64_t k_rows_per_block = 256;

int64_t row_blocks(int64_t rows) { return (rows + k_rows_per_block - 1) / k_rows_per_block; }

template <Activation A>
__global__ void bias_activation_kernel(const float* __restrict__ bias, float* z, float* y, int64_t count, int32_t cols,
                                       float omega, float scale) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  // count <= 2^18 rows x 8192 columns < 2^32 (see cuda_backend.cu), so a 32-bit modulo suffices.
  const float v = z[i] + bias[uint32_t(i) % uint32_t(cols)];
  if (z != y) z[i] = v;
  y[i] = activate<float>(A, v, omega, scale);
}

template <Activation A>
__global__ void backward_bias_partial_kernel(const float* z, const float* y, float* __restrict__ g, int64_t rows,
                                             int32_t cols, float omega, float scale, float* __restrict__ partial) {
  __shared__ float sums[k_row_threads][k_col_tile + 1];
  const int32_t c = int32_t(blockIdx.y) * k_col_tile + int32_t(threadIdx.x);
  const int64_t r0 = int64_t(blockIdx.x) * k_rows_per_block;
  const int64_t r1 = min(rows, r0 + k_rows_per_block);
  float acc = 0.0f;
  if (c < cols) {
    for (int64_t r = r0 + threadIdx.y; r < r1; r += k_row_threads) {
      const int64_t e = r * cols + c;
      const float v = g[e] * activate_derivative<float>(A, z[e], y[e], omega, scale);
      g[e] = v;
      acc += v;
    }
  }
  sums[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y != 0 || c >= cols) return;
  float s = 0.0f;
  for (int k = 0; k < k_row_threads; ++k) s += sums[k][threadIdx.x];
  partial[int64_t(blockIdx.x) * cols + c] = s;
}

/// db[c] (+)= sum over b of partial[b * cols + c]. A block takes 32 columns; its 32 x k_reduce_lanes
/// threads each sum every k_reduce_lanes-th partial of one column, then a shared-memory tree adds
/// the lanes in a fixed order (deterministic). One thread per column summing every partial
/// serially was latency-bound: ~1,000 dependent loads per layer for 2^18 rows.
constexpr int k_reduce_lanes = 16;
__global__ void column_reduce_kernel(const float* __restrict__ partial, int64_t blocks, int32_t cols, float* db,
                                     bool accumulate) {
  // No early return: every thread takes part in the barriers below.
  __shared__ float sums[k_reduce_lanes][k_col_tile + 1];
  const int32_t c = int32_t(blockIdx.x) * k_col_tile + int32_t(threadIdx.x);
  float s = 0.0f;
  if (c < cols)
    for (int64_t b = threadIdx.y; b < blocks; b += k_reduce_lanes) s += partial[b * cols + c];
  sums[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  for (int stride = k_reduce_lanes / 2; stride > 0; stride /= 2) {
    if (int(threadIdx.y) < stride) sums[threadIdx.y][threadIdx.x] += sums[threadIdx.y + stride][threadIdx.x];
    __syncthreads();
  }
  if (threadIdx.y == 0 && c < cols) db[c] = accumulate ? db[c] + sums[0][threadIdx.x] : sums[0][threadIdx.x];
}

template <Activation A>
void launch_forward(cudaStream_t s, const float* bias, float* z, float* y, int64_t count, int32_t cols, float omega,
                    float scale) {
  const int64_t blocks = (count + k_forward_threads - 1) / k_forward_threads;
  bias_activation_kernel<A><<<unsigned(blocks), k_forward_threads, 0, s>>>(bias, z, y, count, cols, omega, scale);
}

template <Activation A>
void launch_backward(cudaStream_t s, const float* z, const float* y, float* g, int64_t rows, int32_t cols, float omega,
                     float scale, float* partial) {
  const dim3 grid(unsigned(row_blocks(rows)), unsigned((cols + k_col_tile - 1) / k_col_tile));
  const dim3 block(k_col_tile, k_row_threads);
  backward_bias_partial_kernel<A><<<grid, block, 0, s>>>(z, y, g, rows, cols, omega, scale, partial);
}

/// f(std::integral_constant<Activation, A>{}) for the activation `act`: one kernel per activation,
/// with the activation a compile-time constant in it.
template <class F> void for_activation(Activation act, F&& f) {
  using A = Activation;
  switch (act) {
  case A::Identity: f(std::integral_constant<A, A::Identity>{}); break;
  case A::Relu: f(std::integral_constant<A, A::Relu>{}); break;
  case A::LeakyRelu: f(std::integral_constant<A, A::LeakyRelu>{}); break;
  case A::Tanh: f(std::integral_constant<A, A::Tanh>{}); break;
  case A::Sigmoid: f(std::integral_constant<A, A::Sigmoid>{}); break;
  case A::Softplus: f(std::integral_constant<A, A::Softplus>{}); break;
  case A::Sine: f(std::integral_constant<A, A::Sine>{}); break;
  case A::Finer: f(std::integral_constant<A, A::Finer>{}); break;
  case A::Gauss: f(std::integral_constant<A, A::Gauss>{}); break;
  case A::Gabor: f(std::integral_constant<A, A::Gabor>{}); break;
  }
}

} // namespace

void bias_activation_forward(cudaStream_t s, const float* bias, float* z, float* y, int64_t rows, int32_t cols,
                             Activation act, float omega, float scale) {
  const int64_t count = rows * cols;
  if (count == 0) return;
  if (count >= (int64_t(1) << 32)) throw BackendError("bias_activation_forward: over 2^32 elements in one pass");
  for_activation(act, [&](auto a) { launch_forward<decltype(a)::value>(s, bias, z, y, count, cols, omega, scale); });
  CUDA_CHECK_LAUNCH();
}

int64_t bias_grad_scratch_count(int64_t rows, int32_t cols) { return row_blocks(rows) * cols; }

void activation_backward_bias_grad(cudaStream_t s, const float* z, const float* y, float* g, int64_t rows, int32_t cols,
                                   Activation act, float omega, float scale, float* scratch, float* db,
                                   bool accumulate) {
  if (rows == 0 || cols == 0) return;
  for_activation(act, [&](auto a) {
    launch_backward<decltype(a)::value>(s, z, y, g, rows, cols, omega, scale, scratch);
  });
  CUDA_CHECK_LAUNCH();
  column_reduce_kernel<<<unsigned((cols + k_col_tile - 1) / k_col_tile), dim3(k_col_tile, k_reduce_lanes), 0, s>>>(
      scratch, row_blocks(rows), cols, db, accumulate);
  CUDA_CHECK_LAUNCH();
}

} // namespace redraw::cuda
