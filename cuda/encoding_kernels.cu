#include "cuda/cuda_check.h"
#include "cuda/encoding_kernels.cuh"
#include "engine/rng_math.h"

namespace redraw::cuda {

namespace {

constexpr int k_threads = 256;

unsigned blocks_for(int64_t count) { return unsigned((count + k_threads - 1) / k_threads); }

__global__ void encode_kernel(EncodingParams enc, const float* __restrict__ b, const float* __restrict__ coords,
                              int64_t count, int32_t width, float* __restrict__ out) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const int64_t row = i / width;
  const int32_t j = int32_t(i - row * width);
  out[i] = encoding_value<float>(enc, b, coords[2 * row], coords[2 * row + 1], j);
}

__global__ void encode_grid_kernel(EncodingParams enc, const float* __restrict__ b, int32_t w, int32_t h, int64_t p0,
                                   int64_t count, int32_t width, float* __restrict__ out) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const int64_t row = i / width;
  const int32_t j = int32_t(i - row * width);
  const int64_t p = p0 + row;
  const float x = pixel_centre<float>(p % w, w);
  const float y = pixel_centre<float>(p / w, h);
  out[i] = encoding_value<float>(enc, b, x, y, j);
}

/// One thread per (row, j) with j < max(width, channels): j < width writes the input, j < channels
/// the target.
__global__ void gather_minibatch_kernel(EncodingParams enc, const float* __restrict__ b,
                                        const float* __restrict__ coords, const float* __restrict__ targets,
                                        int32_t channels, uint32_t n, uint64_t seed,
                                        const DeviceStepParams* __restrict__ step, int64_t row0, int64_t count,
                                        int32_t lanes, int32_t width, float* __restrict__ out_x,
                                        float* __restrict__ out_t) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const int64_t row = i / lanes;
  const int32_t j = int32_t(i - row * lanes);
  const uint32_t k = minibatch_index(seed, step->step, row0 + row, n);
  if (j < width) out_x[row * width + j] = encoding_value<float>(enc, b, coords[2 * int64_t(k)], coords[2 * int64_t(k) + 1], j);
  if (j < channels) out_t[row * channels + j] = targets[int64_t(k) * channels + j];
}

} // namespace

void encode(cudaStream_t stream, const EncodingParams& enc, const float* fourier_b, const float* coords, int64_t n,
            float* out) {
  const int32_t width = encoding_width(enc);
  const int64_t count = n * width;
  if (count == 0) return;
  encode_kernel<<<blocks_for(count), k_threads, 0, stream>>>(enc, fourier_b, coords, count, width, out);
  CUDA_CHECK_LAUNCH();
}

void encode_grid(cudaStream_t stream, const EncodingParams& enc, const float* fourier_b, int32_t w, int32_t h,
                 int64_t p0, int64_t n, float* out) {
  const int32_t width = encoding_width(enc);
  const int64_t count = n * width;
  if (count == 0) return;
  encode_grid_kernel<<<blocks_for(count), k_threads, 0, stream>>>(enc, fourier_b, w, h, p0, count, width, out);
  CUDA_CHECK_LAUNCH();
}

void gather_minibatch(cudaStream_t stream, const EncodingParams& enc, const float* fourier_b, const float* coords,
                      const float* targets, int32_t channels, uint32_t n, uint64_t seed,
                      const DeviceStepParams* step, int64_t row0, int64_t rows, float* out_x, float* out_t) {
  const int32_t width = encoding_width(enc);
  const int32_t lanes = width > channels ? width : channels;
  const int64_t count = rows * lanes;
  if (count == 0) return;
  gather_minibatch_kernel<<<blocks_for(count), k_threads, 0, stream>>>(enc, fourier_b, coords, targets, channels, n,
                                                                      seed, step, row0, count, lanes, width, out_x,
                                                                      out_t);
  CUDA_CHECK_LAUNCH();
}

} // namespace redraw::cuda
