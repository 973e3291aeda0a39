#include "cuda/cuda_check.h"
#include "cuda/render_kernels.cuh"
#include "engine/hd_common.h"

namespace redraw::cuda {

namespace {

constexpr int k_threads = 256;

__device__ unsigned char to_byte(float v) { return (unsigned char)(rd_clamp(v, 0.0f, 1.0f) * 255.0f + 0.5f); }

__global__ void pack_rgba8_kernel(const float* __restrict__ values, int32_t channels, int64_t pixels,
                                  uchar4* __restrict__ dst) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= pixels) return;
  const float* v = values + i * channels;
  const unsigned char r = to_byte(v[0]);
  dst[i] = channels == 3 ? make_uchar4(r, to_byte(v[1]), to_byte(v[2]), 255) : make_uchar4(r, r, r, 255);
}

} // namespace

void pack_rgba8(cudaStream_t stream, const float* values, int32_t channels, int64_t pixels, uint8_t* dst) {
  if (pixels == 0) return;
  pack_rgba8_kernel<<<unsigned((pixels + k_threads - 1) / k_threads), k_threads, 0, stream>>>(
      values, channels, pixels, reinterpret_cast<uchar4*>(dst));
  CUDA_CHECK_LAUNCH();
}

} // namespace redraw::cuda
