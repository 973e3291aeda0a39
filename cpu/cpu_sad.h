#pragma once
/// The CPU backend's passes for the `sad` encoding (engine/sad_math.h), on every core with OpenMP,
/// the same bits on any thread count.
/// The top-K lists are engine/sad_lists.h's.
/// - Backward, deterministic without atomics: each point's K pairs (its weights and dLoss/dlogit)
///   are worked out per point, the pairs are sorted stably by site (a counting sort in point
///   order), and each site sums its pairs in point order.
#include "engine/sad_lists.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace redraw {
struct EncodingSpec;
namespace cpu {
class CpuTrainedEncoding;
}

/// out (n x k_sad_channels) = the blend at each of the n coords (n x 2) of its node's list.
void sad_encode_rows(const SadParams& p, const float* params, const SadLists& lists, const float* coords, int64_t n,
                     float* out);

/// The sites' kernels behind the CPU's trained-family interface (cpu/cpu_family_encoders.h): they
/// keep the lists, refresh them as a step begins, and build them from scratch when they have none
/// (a stateless call, new parameters), so a render of given parameters is theirs alone.
std::unique_ptr<cpu::CpuTrainedEncoding> make_cpu_sad_encoding(const EncodingSpec& enc);

/// grads (count x k_sad_floats) += the sites' gradient given d_out = dLoss/dEncoding
/// (n x k_sad_channels) at coords; `grads` is set rather than added to unless `accumulate`.
void sad_backward_rows(const SadParams& p, const float* params, const SadLists& lists, const float* coords,
                       const float* d_out, int64_t n, float* grads, bool accumulate);

} // namespace redraw
