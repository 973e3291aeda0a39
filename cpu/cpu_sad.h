#pragma once
/// The CPU backend's passes for the `sad` encoding (engine/sad_math.h), on every core with OpenMP,
/// the same bits on any thread count.
/// - Top-K lists: each node of SadParams' grid x grid lattice keeps the k_sad_k sites of least
///   energy at its centre found so far (ascending by energy, then by id; -1 past the end). A point
///   blends its nearest node's list (sad_node), its energies worked out at the point itself.
/// - Jump flooding builds them: a seeding pass (each node takes the sites whose positions fall in
///   it), then passes with steps grid/2, grid/4, ..., 1 and one more at 1, each node merging its
///   own list with those of the 8 nodes a step away. Every pass also injects random candidates
///   from a hash of (pass, node): a random entry of a node up to grid/16 away and one site drawn
///   from all, so the lists keep improving as the sites move. Passes read one buffer and write
///   the other: every node's result is its own, whatever the team.
/// - Refreshing (once per training step) runs one pass at step 1 with injection from
///   the current lists: sites move little per step, so their lists follow them. Every pass also
///   offers each node the sites whose positions fall in it, so a site is never lost from the
///   lists (where it would take no gradient, yet a render's fresh lists would find it).
/// - Backward, deterministic without atomics: each point's K pairs (its weights and dLoss/dlogit)
///   are worked out per point, the pairs are sorted stably by site (a counting sort in point
///   order), and each site sums its pairs in point order.
#include "engine/sad_math.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace redraw {
struct EncodingSpec;
namespace cpu {
class CpuTrainedEncoding;
}

/// The lists of a lattice (see the header).
struct SadLists {
  int32_t grid = 0;
  int64_t count = 0;         ///< the sites' count they were built for
  std::vector<int32_t> ids;  ///< grid * grid * k_sad_k site ids, -1 past a list's end
  uint64_t passes = 0;       ///< passes run since the build: the random candidates' counter
  bool built() const { return grid > 0 && !ids.empty(); }
};

/// Builds the lists from scratch for the sites in params (count x k_sad_floats): seeding, the
/// full jump-flooding schedule, and a last pass at step 1.
void sad_build_lists(const SadParams& p, const float* params, SadLists& lists);
/// Follows the sites after they moved: one pass at step 1 from the current lists;
/// a build when the lists are for another lattice or count, or none yet.
void sad_refresh_lists(const SadParams& p, const float* params, SadLists& lists);

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
