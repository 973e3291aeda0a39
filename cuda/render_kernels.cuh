#pragma once
/// Packs network outputs into 8-bit RGBA for display: each value clamped to [0, 1], times 255,
/// rounded to nearest; one channel is replicated to gray RGB; alpha is 255.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace redraw::cuda {

/// values: pixels x channels (1 or 3) floats; dst: pixels x 4 bytes (R, G, B, A in memory order).
void pack_rgba8(cudaStream_t stream, const float* values, int32_t channels, int64_t pixels, uint8_t* dst);

} // namespace redraw::cuda
