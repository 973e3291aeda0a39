#pragma once
/// Input encodings on the device, one thread per output element, through encoding_value() from
/// engine/encoding_math.h (the CPU backend's function).
/// - encode: n given coordinates.
/// - encode_grid: pixel centres of a w x h image, for linear pixel indices [p0, p0 + count), row 0
///   at the top, as grid_coordinates() makes them; no coordinate buffer needed.
/// - gather_minibatch: row i of the batch is sample minibatch_index(seed, step, row0 + i, n), with
///   the step read from the device step block so one captured graph serves every step.
#include "cuda/step_params.cuh"
#include "engine/encoding_math.h"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace redraw::cuda {

void encode(cudaStream_t stream, const EncodingParams& enc, const float* fourier_b, const float* coords, int64_t n,
            float* out);

void encode_grid(cudaStream_t stream, const EncodingParams& enc, const float* fourier_b, int32_t w, int32_t h,
                 int64_t p0, int64_t count, float* out);

/// Writes the encoded inputs (rows x width) to out_x and the targets (rows x channels) to out_t.
void gather_minibatch(cudaStream_t stream, const EncodingParams& enc, const float* fourier_b, const float* coords,
                      const float* targets, int32_t channels, uint32_t n, uint64_t seed,
                      const DeviceStepParams* step, int64_t row0, int64_t rows, float* out_x, float* out_t);

} // namespace redraw::cuda
