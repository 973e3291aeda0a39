#pragma once
/// The `sad` encoding's top-K lists, node by node and point by point: one node's jump-flooding
/// pass, one point's blend from its node's list and the backward pass's per-point and per-site
/// steps, as REDRAW_HD functions shared by the CPU's
/// lists (engine/sad_lists.h) and the CUDA kernels (cuda/sad_kernels.cuh), so both build the same
/// lists from the same energies and the CPU tests check the device's arithmetic
/// (docs/contributing.md, 5). The schedule of passes is engine/sad_lists.h's.
/// - A list is k_sad_k site ids of a node, ascending by (energy at the node's centre, id), -1 past
///   its end.
/// - The sites by node ("buckets"): node k's sites (those whose positions fall in it) are
///   order[start[k] .. start[k + 1]), in index order; a site with a non-finite position is in none.
/// - The backward pass, deterministic without atomics: each point's k_sad_k pairs (site, weight,
///   dLoss/dlogit; sad_point_pairs), the pairs sorted stably by site, and each site adding its
///   pairs in point order (sad_site_gradient).
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
    insert(s, e);
  }
  /// offer for a site never offered before: the list is then the k_sad_k least (energy, id) of
  /// the sites offered, whatever their order.
  REDRAW_HD void offer_new(int32_t s, float e) {
    if (!(e == e)) return;
    if (size == k_sad_k && !(e < key[size - 1] || (e == key[size - 1] && s < id[size - 1]))) return;
    insert(s, e);
  }
  /// Puts site s of energy e in its place, the last dropped when the list is full.
  REDRAW_HD void insert(int32_t s, float e) {
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

/// A later pass's random candidates of node (i, j) of a grid x grid lattice: near_at, the place
/// in the lists (grid * grid * k_sad_k ids) of a random entry of a node up to sad_candidate_reach
/// away, and `any`, one of all `count` sites; `pass` numbers them.
REDRAW_HD inline void sad_random_candidates(int64_t count, int32_t grid, uint64_t pass, int32_t i, int32_t j,
                                            int64_t& near_at, int32_t& any) {
  const int32_t G = grid, reach = sad_candidate_reach(G);
  const uint32_t span = uint32_t(2 * reach + 1);
  const int64_t node = int64_t(j) * G + i;
  const uint64_t c = (pass << 34) ^ (uint64_t(node) << 2);
  const int32_t ri =
      rd_clamp(i - reach + int32_t(random_below(k_sad_candidate_seed, k_stream_sad_jfa, c, span)), 0, G - 1);
  const int32_t rj =
      rd_clamp(j - reach + int32_t(random_below(k_sad_candidate_seed, k_stream_sad_jfa, c + 1, span)), 0, G - 1);
  near_at = (int64_t(rj) * G + ri) * k_sad_k + random_below(k_sad_candidate_seed, k_stream_sad_jfa, c + 2, k_sad_k);
  any = int32_t(random_below(k_sad_candidate_seed, k_stream_sad_jfa, c + 3, uint32_t(count)));
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
  const int32_t G = grid;
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
    int64_t near_at;
    int32_t any;
    sad_random_candidates(count, G, pass, i, j, near_at, any);
    const int32_t near = src[near_at];
    if (near >= 0) top.offer(near, sad_key(shapes[near], x, y));
    top.offer(any, sad_key(shapes[any], x, y));
  }
  int32_t* out = dst + node * k_sad_k;
  for (int32_t k = 0; k < k_sad_k; ++k) out[k] = k < top.size ? top.id[k] : -1;
}

/// A training step's refresh renews the lists of one row of the lattice in k_sad_step_stride, the
/// rows taking turns (sad_pass_renews_row): a site moves a small part of a node in a step, and
/// on camera, chelsea and horse at 256 x 256, 200 steps of `sad` ended 0.19-0.33 dB higher with
/// half the rows renewed a step than with all (lists that change less often change the blend
/// less often), for half the refresh's cost. Builds and a relocation's pass renew every row.
constexpr int32_t k_sad_step_stride = 2;

/// Whether pass number `pass` renews row j of the lattice: every row for a stride of 1 (or less),
/// else the rows with (j + pass) % stride == 0.
REDRAW_HD inline bool sad_pass_renews_row(int32_t j, uint64_t pass, int32_t stride) {
  return stride <= 1 || (uint64_t(j) + pass) % uint64_t(stride) == 0;
}

/// One node of a refresh that renews the rows sad_pass_renews_row picks: sad_pass_node where the
/// pass renews the node's row, else the node's list as it was (src's, copied into dst).
template <class Index>
REDRAW_HD inline void sad_refresh_node(const SadShape<float>* shapes, int64_t count, int32_t grid,
                                       const Index* bucket_start, const int32_t* bucket_order, const int32_t* src,
                                       int32_t* dst, int32_t step, uint64_t pass, int32_t stride, int64_t node) {
  if (sad_pass_renews_row(int32_t(node / grid), pass, stride))
    return sad_pass_node(shapes, count, grid, bucket_start, bucket_order, src, dst, step, pass, node);
  for (int32_t k = 0; k < k_sad_k; ++k) dst[node * k_sad_k + k] = src[node * k_sad_k + k];
}

/// The list of the node nearest (x, y) in the lists `ids` of a grid x grid lattice.
REDRAW_HD inline const int32_t* sad_node_list(const int32_t* ids, int32_t grid, float x, float y) {
  return ids + (int64_t(sad_node(y, grid)) * grid + sad_node(x, grid)) * k_sad_k;
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

/// Place j (0 .. total) of a sorted key list's starts: start[k] (k in [0, keys]) is the first place
/// in `sorted` (total keys, ascending, none above keys) whose key is at least k. Place j writes the
/// starts of the keys after the one before it up to its own (keys past the end), so each start is
/// written by one place: the device runs one thread per place, a host loop all of them.
template <class Key, class Index>
REDRAW_HD inline void sad_sorted_starts_at(const Key* sorted, int64_t total, int64_t keys, int64_t j, Index* start) {
  const int64_t key = j < total && int64_t(sorted[j]) < keys ? int64_t(sorted[j]) : keys;
  const int64_t before = j == 0 ? -1 : (int64_t(sorted[j - 1]) < keys ? int64_t(sorted[j - 1]) : keys);
  for (int64_t k = before + 1; k <= key; ++k) start[k] = Index(j);
}

/// Point (x, y)'s k_sad_k gradient pairs from its node's list, given its dLoss/dout d_out
/// (k_sad_channels): the sites blended there (site[k], -1 past the m it blends), their weights w
/// and dLoss/dlogit dl (0 past m). Returns m.
REDRAW_HD inline int32_t sad_point_pairs(const SadShape<float>* shapes, const float* params, const int32_t* list,
                                         float x, float y, const float* d_out, int32_t* site, float* w, float* dl) {
  float out[k_sad_channels];
  const int32_t m = sad_point_blend(shapes, params, list, x, y, site, w, out);
  const float* sites[k_sad_k];
  for (int32_t k = 0; k < m; ++k) sites[k] = params + int64_t(site[k]) * k_sad_floats;
  if (m > 0) sad_logit_grads(sites, m, w, d_out, dl);
  for (int32_t k = m; k < k_sad_k; ++k) site[k] = -1, w[k] = 0.0f, dl[k] = 0.0f;
  return m;
}

/// Site `i`'s gradient (k_sad_floats into g, set, or added when `accumulate`) from its pairs
/// order[first, last): pair indices point * k_sad_k + k, in point order, whose weights and
/// dLoss/dlogit are pair_w and pair_dl; coords and d_out are the points'. `Index` is the pairs'
/// index type (the CPU's int64_t, the device's int32_t).
template <class Index>
REDRAW_HD inline void sad_site_gradient(const SadShape<float>& shape, const float* site, float cell,
                                        const Index* order, Index first, Index last, const float* pair_w,
                                        const float* pair_dl, const float* coords, const float* d_out, float* g,
                                        bool accumulate) {
  float acc[k_sad_floats] = {};
  for (Index k = first; k < last; ++k) {
    const int64_t pair = order[k], s = pair / k_sad_k;
    sad_pair_backward(shape, site, cell, coords[2 * s], coords[2 * s + 1], pair_w[pair], pair_dl[pair],
                      d_out + s * k_sad_channels, acc);
  }
  for (int32_t f = 0; f < k_sad_floats; ++f) g[f] = accumulate ? g[f] + acc[f] : acc[f];
}

} // namespace redraw
