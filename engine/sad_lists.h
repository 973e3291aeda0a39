#pragma once
/// The `sad` encoding's top-K lists (engine/sad_math.h), built and followed on the host with
/// OpenMP, the same bits on any thread count: the CPU backend blends with them, and the app's
/// sites view draws the owner map from them.
/// - Top-K lists: each node of SadParams' grid x grid lattice keeps the k_sad_k sites of least
///   energy at its centre found so far (ascending by energy, then by id; -1 past the end). A point
///   blends its nearest node's list (sad_node), its energies worked out at the point itself.
/// - Jump flooding builds them: a seeding pass (each node takes the sites whose positions fall in
///   it), then passes with steps grid/2, grid/4, ..., 1 and one more at 1, each node merging its
///   own list with those of the 8 nodes a step away. Every pass also injects random candidates
///   from a hash of (pass, node): a random entry of a node up to grid/16 away and one site drawn
///   from all, so the lists keep improving as the sites move. Passes read one buffer and write
///   the other: every node's result is its own, whatever the team.
/// - The host's passes give sad_pass_node's lists (engine/sad_list_math.h) by another route: each
///   node takes its candidates once, works out their energies once and offers its own list first,
///   on the sites renumbered in the order of their nodes (the lists keep ids), and picks the k_sad_k
///   least without a branch on the energies (each (energy, id) one integer of the same order). The
///   k_sad_k least (energy, id) of a set do not depend on the order or repetition of the offers.
/// - Refreshing runs one pass at step 1 with injection from the current lists: sites move little
///   per step, so their lists follow them. Every pass also offers each node the sites whose
///   positions fall in it, so a site is never lost from the lists (where it would take no
///   gradient, yet a render's fresh lists would find it). A training step's refresh renews one row
///   in k_sad_step_stride, the rows taking turns (engine/sad_list_math.h: half the cost, and the
///   same or better pictures); a site that crossed into a row kept this step is offered there at
///   the next. A relocation's refresh renews every row, so each moved site is at its new node.
#include "engine/sad_list_math.h"

#include <cstdint>
#include <vector>

namespace redraw {

/// One thread's candidates of a node during a pass, each site once (engine/sad_lists.cpp): a
/// stamp per rank (slot r + 1 holds the tag of the node that last took rank r; slot 0, the -1 past
/// a list's end, always the current one), their ranks and their energies. Kept between passes.
struct SadCandidates {
  std::vector<uint32_t> stamp; ///< count + 1
  std::vector<int32_t> ranks;  ///< count + 1: the node's distinct sites, then one slot written past
  std::vector<uint64_t> keys;  ///< count: their (energy at the node's centre, id), as order keys
  uint32_t tag = 0;            ///< the current node's stamp
};

/// What a pass reads of a site to work out its energy at a node (sad_key) and to order it by id:
/// one aligned half of a cache line, so a candidate costs one line from memory, not two.
struct alignas(32) SadKeyShape {
  float mx, my, inv_a, b, inv_c, radius, inv_tau; ///< SadShape's fields of sad_key
  int32_t id;                                     ///< the site's id
};

/// The scratch of the lists' passes, kept with them so that a refresh (once a training step)
/// allocates nothing: the sites in the order of their nodes and one SadCandidates a thread.
/// Nothing in it outlives a pass's meaning: every pass writes what it reads.
struct SadListsWork {
  std::vector<int64_t> start, node_of, cursor; ///< nodes + 1, count, nodes
  std::vector<int32_t> id, rank;               ///< the site of each rank, the rank of each site
  std::vector<SadKeyShape> shapes;             ///< by rank
  std::vector<int32_t> other, ranked;          ///< the pass's output lists, its input as ranks
  std::vector<SadCandidates> threads;          ///< one a thread of the team
};

/// The lists of a lattice (see the header).
struct SadLists {
  int32_t grid = 0;
  int64_t count = 0;         ///< the sites' count they were built for
  std::vector<int32_t> ids;  ///< grid * grid * k_sad_k site ids, -1 past a list's end
  uint64_t passes = 0;       ///< passes run since the build: the random candidates' counter
  SadListsWork work;         ///< the passes' scratch
  bool built() const { return grid > 0 && !ids.empty(); }
};

/// Builds the lists from scratch for the sites in params (count x k_sad_floats): seeding, the
/// full jump-flooding schedule, and a last pass at step 1.
void sad_build_lists(const SadParams& p, const float* params, SadLists& lists);
/// Follows the sites after they moved: one pass at step 1 from the current lists, renewing the
/// rows sad_pass_renews_row picks for `stride` (1: all of them; a training step's,
/// k_sad_step_stride); a build when the lists are for another lattice or count, or none yet.
void sad_refresh_lists(const SadParams& p, const float* params, SadLists& lists, int32_t stride = 1);
/// BackendError unless the lists were built for p's lattice and count.
void sad_check_lists(const SadParams& p, const SadLists& lists);

/// Every site's shape (sad_shape), worked out once per pass.
std::vector<SadShape<float>> sad_shapes(const SadParams& p, const float* params);
/// sad_shapes into `shapes` (resized to the count), whose storage a caller keeps between calls.
void sad_shapes_into(const SadParams& p, const float* params, std::vector<SadShape<float>>& shapes);

/// The node list of coordinate (x, y).
inline const int32_t* sad_list_at(const SadLists& lists, float x, float y) {
  return sad_node_list(lists.ids.data(), lists.grid, x, y);
}

/// The blend at (x, y) of its node's list: returns n, the sites blended (their ids in ids[0, n),
/// ascending by energy at the node), their weights w and the colour out (0 when none).
inline int32_t sad_point(const std::vector<SadShape<float>>& shapes, const float* params, const SadLists& lists,
                         float x, float y, int32_t* ids, float* w, float* out) {
  return sad_point_blend(shapes.data(), params, sad_list_at(lists, x, y), x, y, ids, w, out);
}

} // namespace redraw
