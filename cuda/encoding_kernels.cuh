#pragma once
/// Input encodings on the device, one thread per output element, through encoding_value() from
/// engine/encoding_math.h (the CPU backend's function).
/// - encode: n given coordinates.
/// - encode_grid: pixel centres of a w x h image, for linear pixel indices [p0, p0 + count), row 0
///   at the top, as grid_coordinates() makes them; no coordinate buffer needed.
/// - gather_minibatch: row i of the batch is sample minibatch_index(seed, step, row0 + i, n), with
///   the step read from the device step block so one captured graph serves every step.
///
/// The hash-grid encoding on the device, through engine/hash_grid_math.h (the CPU backend's code).
/// - Forward kernels (cuda/hash_grid_choice.h picks): per-sample, one thread per sample looping
///   over the levels (hash_grid_encode_sample) and writing its row with 16-byte stores when the row
///   is 16-byte aligned; or per-level, one thread per (sample, level), blockIdx.y the level.
/// - The backward kernel scatters weight * dL/dEncoding into the four corner entries with atomics
///   (float2 atomics for two features on compute capability 9.0 and newer, one float at a time
///   elsewhere), or first adds the values of the lanes of a warp that hit the same entry
///   (warp-aggregated), or first sums the coarse dense levels per block in shared memory
///   (shared-dense, cuda/hash_grid_shared_levels.h), so table gradients are sums in an unspecified
///   order: not bit-reproducible, unlike the CPU backend's level-partitioned sums.
/// - table and table_grad start the parameter and gradient arrays (8-byte aligned there).
#include "cuda/hash_grid_choice.h"
#include "cuda/step_params.cuh"
#include "engine/encoding_math.h"
#include "engine/hash_grid_math.h"

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

// ---- hash grid ----------------------------------------------------------------------------

/// out (n x L*F) = the encoding of coords (n x 2, in [-1, 1]).
void hash_grid_encode(cudaStream_t stream, const HashGridParams& g, const float* table, const float* coords, int64_t n,
                      float* out);

/// The encoding of the pixel centres of a w x h image, linear pixel indices [p0, p0 + count).
void hash_grid_encode_grid(cudaStream_t stream, const HashGridParams& g, const float* table, int32_t w, int32_t h,
                           int64_t p0, int64_t count, float* out);

/// The same encodings in fp16 for the fused MLP: n rows of `ld` halves (a multiple of 8, at least
/// L*F; out 16-byte aligned), the columns past L*F zero. BackendError for rows that do not fit.
void hash_grid_encode_half(cudaStream_t stream, const HashGridParams& g, const float* table, const float* coords,
                           int64_t n, uint16_t* out, int32_t ld);
void hash_grid_encode_grid_half(cudaStream_t stream, const HashGridParams& g, const float* table, int32_t w, int32_t h,
                                int64_t p0, int64_t count, uint16_t* out, int32_t ld);

/// table_grad += the table gradient for d_out = dL/dEncoding (n x L*F) at coords (n x 2).
/// The caller clears table_grad before the first batch of a step.
void hash_grid_backward(cudaStream_t stream, const HashGridParams& g, const float* coords, const float* d_out,
                        int64_t n, float* table_grad);

/// Minibatch rows [row0, row0 + rows) without encoding them: row i is sample
/// minibatch_index(seed, step, row0 + i, n); its coordinates go to out_coords (rows x 2) and its
/// targets to out_targets (rows x channels). The step comes from the device step block.
void gather_minibatch_samples(cudaStream_t stream, const float* coords, const float* targets, int32_t channels,
                              uint32_t n, uint64_t seed, const DeviceStepParams* step, int64_t row0, int64_t rows,
                              float* out_coords, float* out_targets);

} // namespace redraw::cuda
