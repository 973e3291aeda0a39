#pragma once
/// The CPU backend's passes for the `gaussians` encoding (engine/gaussian_math.h), tiled and on
/// every core with OpenMP.
/// - Tiles: [-1, 1]^2 is cut into GaussianParams::bins bins per side. Each call bins the Gaussians
///   by the boxes that hold their supports (a CSR list per bin, Gaussians in index order), for the
///   bins its samples fall in only (the parameters move every step, and a chunk of a full batch
///   covers a band of the picture), and each sample visits only its bin's list. Culling by box
///   drops only zero terms, so the result is the all-pairs sum's. Samples may be any coordinates.
/// - Forward: samples are split among threads; each output is its bin's list summed in order.
/// - Backward, deterministic without atomics: the samples are sorted by bin (stably), each
///   (bin, Gaussian) pair sums its bin's samples' contributions in that order into a partial of its
///   own, and each Gaussian adds its partials in bin order. Every gradient is the same sum in the
///   same order whatever the thread count.
#include "engine/gaussian_math.h"

#include <cstdint>
#include <memory>

namespace redraw {
struct EncodingSpec;
namespace cpu {
class CpuTrainedEncoding;
}

/// out (n x k_gaussian_channels) = the sum of the Gaussians (params: count x k_gaussian_floats) at
/// coords (n x 2).
void gaussian_encode_rows(const GaussianParams& g, const float* params, const float* coords, int64_t n, float* out);

/// grads (count x k_gaussian_floats) += the Gaussians' gradient given d_out = dLoss/dEncoding
/// (n x k_gaussian_channels) at coords; `grads` is set rather than added to unless `accumulate`.
void gaussian_backward_rows(const GaussianParams& g, const float* params, const float* coords, const float* d_out,
                            int64_t n, float* grads, bool accumulate);

/// The Gaussians' kernels behind the CPU's trained-family interface (cpu/cpu_family_encoders.h).
std::unique_ptr<cpu::CpuTrainedEncoding> make_cpu_gaussians_encoding(const EncodingSpec& enc);

} // namespace redraw
