#pragma once
/// One launch updates every parameter of the flat array with adam_update() or sgd_update() from
/// engine/optimizer_math.h; the learning rate and Adam's bias corrections come from the device step
/// block, so a captured graph replays with new values.
#include "cuda/step_params.cuh"
#include "engine/optimizer_math.h"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace redraw::cuda {

/// Adam when `adam` is true (first = m, second = v), else SGD (first = velocity, may be null when
/// the momentum is 0). `lanes` scales some elements' learning rate (engine/optimizer_math.h).
void optimizer_update(cudaStream_t stream, bool adam, const AdamParams& adam_params, const SgdParams& sgd_params,
                      float* params, const float* grads, float* first, float* second, int64_t n,
                      const DeviceStepParams* step, LaneStep lanes = {});

} // namespace redraw::cuda
