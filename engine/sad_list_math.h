#pragma once
/// The `sad` encoding's top-K lists, node by node and point by point: one node's jump-flooding
/// pass and one point's blend from its node's list, as REDRAW_HD functions shared by the CPU's
/// lists (engine/sad_lists.h) and the CUDA kernels (cuda/sad_kernels.cuh), so both build the same
/// lists from the same energies and the CPU tests check the device's arithmetic
/// (docs/contributing.md, 5). The schedule of passes is engine/sad_lists.h's.
/// - A list is k_sad_k site ids of a node, ascending by (energy at the node's centre, id), -1 past
///   its end.
/// - The sites by node ("buckets"): node k's sites (those whose positions fall in it) are
///   order[start[k] .. start[k + 1]), in index order; a site with a non-finite position is in none.
#include "engine/rng_math.h"
#include "engine/sad_math.h"

#include <cstdint>

namespace redraw {

/// One node's list while it is merged: ascending by (energy, id), at most k_sad_k.
struct SadNodeList {
  float key[k_sad_k];
  int32_t id[k_sad_k];
  int32_t size = 0;
  REDRAW_HD bool holds(int32_t s) const {
    for (int32_t i = 0; i < size; ++i)
      if (id[i] == s) return true;
    return false;
  }
  /// Offers site s of energy e; a NaN energy is never taken, nor a site held already.
  REDRAW_HD void offer(int32_t s, float e) {
    if (!(e == e)) return;
    if (size == k_sad_k && !(e < key[size - 1] || (e == key[size - 1] && s < id[size - 1]))) return;
    if (holds(s)) return;
    int32_t at = size < k_sad_k ? size++ : size - 1;
    while (at > 0 && (e < key[at - 1] || (e == key[at - 1] && s < id[at - 1]))) {
      key[at] = key[at - 1], id[at] = id[at - 1];
      --at;
    }
    key[at] = e, id[at] = s;
  }
};

/// The random candidates' seed: the lists are the model's, not the run's.
constexpr uint64_t k_sad_candidate_seed = 0x5ad;

/// Nodes a random candidate may come from, along each side: up to grid/16 away.
REDRAW_HD inline int32_t sad_candidate_reach(int32_t grid) { return grid / 16 > 1 ? grid / 16 : 1; }

/// The node of a site's position (row-major, grid x grid), or -1 for a non-finite position.
REDRAW_HD inline int64_t sad_site_node(const float* site, int32_t grid) {
  if (!rd_isfinite(site[k_sad_mx]) || !rd_isfinite(site[k_sad_my])) return -1;
  return int64_t(sad_node(site[k_sad_my], grid)) * grid + sad_node(site[k_sad_mx], grid);
}

/// Node `node`'s list after one jump-flooding pass of step `step` (0: the seeding pass) from the
/// lists src into dst (grid * grid * k_sad_k ids each); `pass` numbers the random candidates.
/// Every pass offers the node's own sites, so a site stays in its own node's list while it is
/// among the nearest there, and no site is lost from the lists (where it would take no gradient)
/// while a fresh build would find it. A later pass also merges the node's own list, those of the
/// 8 nodes `step` away, a random entry of a node up to sad_candidate_reach away and one site drawn
/// from all `count`. Reads src only: every node's result is its own, whatever the team or grid of
/// threads. `Index` is the buckets' start type (the CPU's int64_t, the device's int32_t).
template <class Index>
REDRAW_HD inline void sad_pass_node(const SadShape<float>* shapes, int64_t count, int32_t grid,
                                    const Index* bucket_start, const int32_t* bucket_order, const int32_t* src,
                                    int32_t* dst, int32_t step, uint64_t pass, int64_t node) {
  const int32_t G = grid, reach = sad_candidate_reach(G);
  const uint32_t span = uint32_t(2 * reach + 1);
  const int32_t i = int32_t(node % G), j = int32_t(node / G);
  const float x = pixel_centre<float>(i, G), y = pixel_centre<float>(j, G);
  SadNodeList top;
  for (Index k = bucket_start[node]; k < bucket_start[node + 1]; ++k) {
    const int32_t s = bucket_order[k];
    top.offer(s, sad_key(shapes[s], x, y));
  }
  if (step > 0) {
    auto offer_list = [&](int32_t ni, int32_t nj) {
      if (ni < 0 || nj < 0 || ni >= G || nj >= G) return;
      const int32_t* list = src + (int64_t(nj) * G + ni) * k_sad_k;
      for (int32_t k = 0; k < k_sad_k; ++k)
        if (list[k] >= 0) top.offer(list[k], sad_key(shapes[list[k]], x, y));
    };
    offer_list(i, j);
    for (int32_t dj = -1; dj <= 1; ++dj)
      for (int32_t di = -1; di <= 1; ++di)
        if (di || dj) offer_list(i + di * step, j + dj * step);
    // Random candidates: an entry of a node nearby, and a site from all.
    const uint64_t c = (pass << 34) ^ (uint64_t(node) << 2);
    const int32_t ri =
        rd_clamp(i - reach + int32_t(random_below(k_sad_candidate_seed, k_stream_sad_jfa, c, span)), 0, G - 1);
    const int32_t rj =
        rd_clamp(j - reach + int32_t(random_below(k_sad_candidate_seed, k_stream_sad_jfa, c + 1, span)), 0, G - 1);
    const int32_t near =
        src[(int64_t(rj) * G + ri) * k_sad_k + random_below(k_sad_candidate_seed, k_stream_sad_jfa, c + 2, k_sad_k)];
    if (near >= 0) top.offer(near, sad_key(shapes[near], x, y));
    const int32_t any = int32_t(random_below(k_sad_candidate_seed, k_stream_sad_jfa, c + 3, uint32_t(count)));
    top.offer(any, sad_key(shapes[any], x, y));
  }
  int32_t* out = dst + node * k_sad_k;
  for (int32_t k = 0; k < k_sad_k; ++k) out[k] = k < top.size ? top.id[k] : -1;
}

/// The blend at (x, y) of its node's list `list` (k_sad_k ids, -1 past the end) of the sites
/// (their shapes and the parameter array): returns n, the sites blended (their ids in ids[0, n),
/// ascending by energy at the node), their weights w and the colour out (0 when none).
REDRAW_HD inline int32_t sad_point_blend(const SadShape<float>* shapes, const float* params, const int32_t* list,
                                         float x, float y, int32_t* ids, float* w, float* out) {
  SadShape<float> sh[k_sad_k];
  const float* sites[k_sad_k];
  int32_t n = 0;
  for (int32_t k = 0; k < k_sad_k; ++k)
    if (list[k] >= 0) {
      ids[n] = list[k];
      sh[n] = shapes[list[k]];
      sites[n] = params + int64_t(list[k]) * k_sad_floats;
      ++n;
    }
  if (n == 0) {
    for (int32_t k = 0; k < k_sad_channels; ++k) out[k] = 0.0f;
    return 0;
  }
  sad_blend(sh, sites, n, x, y, w, out);
  return n;
}

} // namespace redraw
