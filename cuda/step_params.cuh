#pragma once
/// The per-step values a captured training step reads from device memory, so one CUDA graph
/// replays every step: the host writes a fresh block before each launch (set_step_params passes it
/// by value as a kernel argument, so no host buffer has to outlive the call).
#include "engine/optimizer_math.h"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace redraw::cuda {

struct DeviceStepParams {
  int64_t step = 0;    ///< 0-based step index (minibatch RNG counter)
  float lr = 0.0f;     ///< learning rate of this step
  float bias1 = 1.0f;  ///< Adam: 1 - beta1^(step + 1)
  float bias2 = 1.0f;  ///< Adam: 1 - beta2^(step + 1)
};

/// Host: the block for a step (bias corrections in double, as the CPU backend computes them).
/// `step` feeds the minibatch RNG; `bias_step` (0-based updates since the optimizer state was
/// zeroed) feeds Adam's bias correction.
DeviceStepParams make_step_params(const AdamParams& adam, float lr, int64_t step, int64_t bias_step);
/// Writes `value` into *dst on `stream` (one tiny kernel; the value travels as a launch argument).
void set_step_params(cudaStream_t stream, DeviceStepParams* dst, const DeviceStepParams& value);
/// Attributes of one of this build's kernels on the current device: fails when the build has no
/// kernel image for the device's compute capability.
cudaError_t probe_kernel_image(cudaFuncAttributes* attr);

} // namespace redraw::cuda
