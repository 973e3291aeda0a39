#pragma once
/// The CPU backend's passes for the `gaussians` encoding (engine/gaussian_math.h), on every core
/// with OpenMP: cpu::GaussianGrid (cpu/cpu_gaussian_grid.h) bins the Gaussians over the whole grid
/// and runs the passes. The functions below bin for one call; the trained encoding
/// (make_cpu_gaussians_encoding) bins once per training step (step_begins) and again only when a
/// call's Gaussians differ from the ones it binned. Every result is the same whatever the team.
#include "engine/gaussian_math.h"

#include <cstdint>
#include <memory>

namespace redraw {
struct EncodingSpec;
namespace cpu {
class CpuTrainedEncoding;
}

/// out (n x k_gaussian_channels) = the sum of the Gaussians (params: count x g.floats) at
/// coords (n x 2).
void gaussian_encode_rows(const GaussianParams& g, const float* params, const float* coords, int64_t n, float* out);

/// grads (count x g.floats) += the Gaussians' gradient given d_out = dLoss/dEncoding
/// (n x k_gaussian_channels) at coords; `grads` is set rather than added to unless `accumulate`.
void gaussian_backward_rows(const GaussianParams& g, const float* params, const float* coords, const float* d_out,
                            int64_t n, float* grads, bool accumulate);

/// The Gaussians' kernels behind the CPU's trained-family interface (cpu/cpu_family_encoders.h).
std::unique_ptr<cpu::CpuTrainedEncoding> make_cpu_gaussians_encoding(const EncodingSpec& enc);

} // namespace redraw
