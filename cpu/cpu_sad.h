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

/// The scratch of sad_encode_rows and sad_backward_rows, kept by the encoding between calls so
/// that a training step allocates nothing: the sites' shapes, each point's pairs and their sort.
struct SadRowsWork {
  std::vector<SadShape<float>> shapes;
  std::vector<int32_t> pair_site;
  std::vector<float> pair_w, pair_dl;
  std::vector<int64_t> first, cursor, order;
};

/// out (n x k_sad_channels) = the blend at each of the n coords (n x 2) of its node's list.
void sad_encode_rows(const SadParams& p, const float* params, const SadLists& lists, const float* coords, int64_t n,
                     float* out);
/// sad_encode_rows in the scratch `work`.
void sad_encode_rows(const SadParams& p, const float* params, const SadLists& lists, const float* coords, int64_t n,
                     float* out, SadRowsWork& work);

/// The sites' kernels behind the CPU's trained-family interface (cpu/cpu_family_encoders.h): they
/// keep the lists, refresh them as a step begins and after a relocation, and build them from
/// scratch when they have none (new parameters) and as a stateless render begins, unless they were
/// built for the same floats, so a render of given parameters is theirs alone.
std::unique_ptr<cpu::CpuTrainedEncoding> make_cpu_sad_encoding(const EncodingSpec& enc);

/// grads (count x k_sad_floats) += the sites' gradient given d_out = dLoss/dEncoding
/// (n x k_sad_channels) at coords; `grads` is set rather than added to unless `accumulate`.
void sad_backward_rows(const SadParams& p, const float* params, const SadLists& lists, const float* coords,
                       const float* d_out, int64_t n, float* grads, bool accumulate);
/// sad_backward_rows in the scratch `work`.
void sad_backward_rows(const SadParams& p, const float* params, const SadLists& lists, const float* coords,
                       const float* d_out, int64_t n, float* grads, bool accumulate, SadRowsWork& work);

} // namespace redraw
