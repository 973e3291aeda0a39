#include "cuda/cuda_check.h"
#include "cuda/optimizer_kernels.cuh"

#include <cmath>

namespace redraw::cuda {

namespace {

constexpr int k_threads = 256;

__global__ void adam_kernel(AdamParams a, float* __restrict__ params, const float* __restrict__ grads,
                            float* __restrict__ m, float* __restrict__ v, int64_t n,
                            const DeviceStepParams* __restrict__ step, LaneStep lanes) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const DeviceStepParams s = *step;
  float p = params[i], mi = m[i], vi = v[i];
  adam_update(a, adam_step(lanes.scales(i) ? s.lr * lanes.factor : s.lr, s.bias1, s.bias2), p, grads[i], mi, vi);
  params[i] = p;
  m[i] = mi;
  v[i] = vi;
}

__global__ void sgd_kernel(SgdParams sp, float* __restrict__ params, const float* __restrict__ grads,
                           float* __restrict__ velocity, int64_t n, const DeviceStepParams* __restrict__ step,
                           LaneStep lanes) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float p = params[i];
  float vel = velocity ? velocity[i] : 0.0f;
  sgd_update(sp, lanes.scales(i) ? step->lr * lanes.factor : step->lr, p, grads[i], vel);
  params[i] = p;
  if (velocity) velocity[i] = vel;
}

__global__ void set_step_params_kernel(DeviceStepParams* dst, DeviceStepParams value) { *dst = value; }

} // namespace

DeviceStepParams make_step_params(const AdamParams& adam, float lr, int64_t step, int64_t bias_step) {
  DeviceStepParams p;
  p.step = step;
  p.lr = lr;
  p.bias1 = float(1.0 - std::pow(double(adam.beta1), double(bias_step + 1)));
  p.bias2 = float(1.0 - std::pow(double(adam.beta2), double(bias_step + 1)));
  return p;
}

void set_step_params(cudaStream_t stream, DeviceStepParams* dst, const DeviceStepParams& value) {
  set_step_params_kernel<<<1, 1, 0, stream>>>(dst, value);
  CUDA_CHECK_LAUNCH();
}

cudaError_t probe_kernel_image(cudaFuncAttributes* attr) {
  return cudaFuncGetAttributes(attr, set_step_params_kernel);
}

void optimizer_update(cudaStream_t stream, bool adam, const AdamParams& adam_params, const SgdParams& sgd_params,
                      float* params, const float* grads, float* first, float* second, int64_t n,
                      const DeviceStepParams* step, LaneStep lanes) {
  if (n == 0) return;
  const unsigned blocks = unsigned((n + k_threads - 1) / k_threads);
  if (adam)
    adam_kernel<<<blocks, k_threads, 0, stream>>>(adam_params, params, grads, first, second, n, step, lanes);
  else
    sgd_kernel<<<blocks, k_threads, 0, stream>>>(sgd_params, params, grads, sgd_params.momentum != 0.0f ? first : nullptr,
                                                 n, step, lanes);
  CUDA_CHECK_LAUNCH();
}

} // namespace redraw::cuda
