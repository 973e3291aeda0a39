#include "engine/sad_lists.h"

#include "engine/errors.h"
#include "engine/sad_list_math.h"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

namespace redraw {
namespace {

template <class T> void sad_resize(std::vector<T>& v, int64_t n) {
  try {
    v.resize(size_t(n));
  } catch (const std::bad_alloc&) {
    throw BackendError("out of memory for the sites' lists (" +
                       std::to_string(n * int64_t(sizeof(T)) >> 20) + " MiB)");
  }
}

} // namespace

void sad_shapes_into(const SadParams& p, const float* params, std::vector<SadShape<float>>& shapes) {
  sad_resize(shapes, p.count);
  SadShape<float>* out = shapes.data();
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < p.count; ++i) out[i] = sad_shape<float>(params + i * k_sad_floats, p.cell);
}

std::vector<SadShape<float>> sad_shapes(const SadParams& p, const float* params) {
  std::vector<SadShape<float>> shapes;
  sad_shapes_into(p, params, shapes);
  return shapes;
}

namespace {

/// The sites in the order of their nodes, as the passes visit them, into w's start, id, rank and
/// shapes: node k's sites (those whose positions fall in it) are ranks [start[k], start[k + 1]),
/// in index order (a counting sort), and the sites in no node (a non-finite position) take the
/// ranks after them, in index order. A pass works on ranks, so the sites a node meets lie
/// together in memory (a site's index says nothing of where it is); the lists keep ids, and ids
/// break ties.
void sad_rank_sites(const SadParams& p, const float* params, SadListsWork& w) {
  const int32_t G = p.grid;
  const int64_t nodes = int64_t(G) * G, count = p.count;
  sad_resize(w.start, nodes + 1);
  sad_resize(w.id, count);
  sad_resize(w.rank, count);
  sad_resize(w.node_of, count);
  sad_resize(w.cursor, nodes);
  std::fill(w.start.begin(), w.start.end(), int64_t(0));
  for (int64_t s = 0; s < count; ++s) {
    w.node_of[size_t(s)] = sad_site_node(params + s * k_sad_floats, G);
    if (w.node_of[size_t(s)] >= 0) ++w.start[size_t(w.node_of[size_t(s)]) + 1];
  }
  for (int64_t k = 0; k < nodes; ++k) w.start[size_t(k + 1)] += w.start[size_t(k)];
  std::copy(w.start.begin(), w.start.end() - 1, w.cursor.begin());
  int64_t outside = w.start[size_t(nodes)];
  for (int64_t s = 0; s < count; ++s) {
    const int64_t node = w.node_of[size_t(s)];
    const int64_t at = node >= 0 ? w.cursor[size_t(node)]++ : outside++;
    w.id[size_t(at)] = int32_t(s);
    w.rank[size_t(s)] = int32_t(at);
  }
  sad_resize(w.shapes, count);
  SadShape<float>* shapes = w.shapes.data();
  const int32_t* id = w.id.data();
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < count; ++k) shapes[k] = sad_shape<float>(params + int64_t(id[k]) * k_sad_floats, p.cell);
}

/// Readies one thread's candidates (engine/sad_lists.h) for a pass of `nodes` nodes over `count`
/// sites: a node's stamps are one tag, new each node, so the stamps are cleared only when the
/// count changes or the tags would wrap within the pass.
void sad_candidates_ready(SadCandidates& c, int64_t count, int64_t nodes) {
  if (int64_t(c.stamp.size()) != count + 1) {
    sad_resize(c.stamp, count + 1);
    sad_resize(c.ranks, count + 1);
    sad_resize(c.keys, count);
    std::fill(c.stamp.begin(), c.stamp.end(), 0u);
    c.tag = 0;
  } else if (uint64_t(c.tag) + uint64_t(nodes) >= uint64_t(UINT32_MAX)) {
    std::fill(c.stamp.begin(), c.stamp.end(), 0u);
    c.tag = 0;
  }
}

/// A node's candidates begin: at most grid^2 <= 2^22 nodes a pass, and sad_candidates_ready
/// leaves room for them all, so the tag never wraps.
inline void sad_candidates_begin(SadCandidates& c) {
  c.stamp[0] = ++c.tag;
  c.n = 0;
}

/// Takes rank r (-1: none) unless the node took it already, without a branch.
inline void sad_candidates_take(SadCandidates& c, int32_t r) {
  uint32_t& st = c.stamp[size_t(int64_t(r) + 1)];
  c.ranks[size_t(c.n)] = r;
  c.n += st != c.tag;
  st = c.tag;
}

/// What a pass reads: the sites by rank, and the lists it starts from, as ranks.
struct SadPassInput {
  const SadListsWork& sites;
  const int32_t* src; ///< grid * grid * k_sad_k ranks, -1 past a list's end
  int64_t count;
  int32_t grid, step;
  uint64_t pass;
};

/// sad_pass_node's list of `node` (engine/sad_list_math.h), as ids into dst: the k_sad_k least
/// (energy, id) of the sites it offers do not depend on the order they come in, nor on how often
/// each comes. The node's own list goes first: it holds most of the new list, so few later
/// candidates get in, and the test that turns them away is seldom wrong.
void sad_pass_node_ranked(const SadPassInput& in, int32_t i, int32_t j, SadCandidates& c, int32_t* dst) {
  const int32_t G = in.grid, step = in.step;
  const int64_t node = int64_t(j) * G + i;
  const float x = pixel_centre<float>(i, G), y = pixel_centre<float>(j, G);
  sad_candidates_begin(c);
  for (int64_t r = in.sites.start[size_t(node)]; r < in.sites.start[size_t(node) + 1]; ++r) sad_candidates_take(c, int32_t(r));
  if (step > 0) {
    const int32_t* src = in.src;
    for (int32_t k = 0; k < k_sad_k; ++k) sad_candidates_take(c, src[node * k_sad_k + k]);
    for (int32_t dj = -1; dj <= 1; ++dj) {
      const int32_t nj = j + dj * step;
      if (nj < 0 || nj >= G) continue;
      for (int32_t di = -1; di <= 1; ++di) {
        const int32_t ni = i + di * step;
        if (ni < 0 || ni >= G || (di == 0 && dj == 0)) continue;
        const int32_t* list = src + (int64_t(nj) * G + ni) * k_sad_k;
        for (int32_t k = 0; k < k_sad_k; ++k) sad_candidates_take(c, list[k]);
      }
    }
    int64_t near_at;
    int32_t any;
    sad_random_candidates(in.count, G, in.pass, i, j, near_at, any);
    sad_candidates_take(c, src[near_at]);
    sad_candidates_take(c, in.sites.rank[size_t(any)]);
  }
  SadNodeList top;
  const int32_t* ranks = c.ranks.data();
  const SadShape<float>* shapes = in.sites.shapes.data();
  const int32_t* id = in.sites.id.data();
  float* keys = c.keys.data();
  const int64_t n = c.n;
  for (int64_t k = 0; k < n; ++k) keys[k] = sad_key(shapes[ranks[k]], x, y); // apart: no branch waits on them
  for (int64_t k = 0; k < n; ++k) top.offer_new(id[ranks[k]], keys[k]);
  int32_t* out = dst + node * k_sad_k;
  for (int32_t k = 0; k < k_sad_k; ++k) out[k] = k < top.size ? top.id[k] : -1;
}

/// Nodes ahead whose random candidates a pass asks the cache for: the entry of a node up to
/// grid/16 rows away, and the rank of a site from all, are loads from far memory.
constexpr int32_t k_sad_prefetch_nodes = 16;

/// Inlined: a call would be dropped, as GCC takes a function whose only effects are prefetches
/// for one without effects.
inline __attribute__((always_inline)) void sad_prefetch_random(const SadPassInput& in, int32_t i, int32_t j) {
  int64_t near_at;
  int32_t any;
  sad_random_candidates(in.count, in.grid, in.pass, i, j, near_at, any);
  __builtin_prefetch(in.src + near_at);
  __builtin_prefetch(in.sites.rank.data() + any);
}

/// One jump-flooding pass of step `step` from the lists (ids) into w.other (see the header); `pass`
/// numbers the random candidates. Step 0 is the seeding pass: a node's own sites only. Every pass
/// offers them, so a site stays in its own node's list while it is among the nearest there, and
/// no site is lost from the lists (where it would take no gradient) while a fresh build would find
/// it. w holds the ranked sites; w.ranked is scratch: the lists as ranks.
void sad_pass(const SadParams& p, SadListsWork& w, const std::vector<int32_t>& ids, int32_t step, uint64_t pass) {
  const int32_t G = p.grid;
  const int64_t entries = int64_t(G) * G * k_sad_k;
  if (step > 0) {
    int32_t* ranked = w.ranked.data();
    const int32_t* rank = w.rank.data();
    const int32_t* from = ids.data();
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < entries; ++k) ranked[k] = from[k] >= 0 ? rank[from[k]] : -1;
  }
  const SadPassInput in{w, w.ranked.data(), p.count, p.grid, step, pass};
  int32_t* dst = w.other.data();
  if (w.threads.size() < size_t(omp_get_max_threads())) w.threads.resize(size_t(omp_get_max_threads()));
#pragma omp parallel
  {
    SadCandidates& c = w.threads[size_t(omp_get_thread_num())];
    sad_candidates_ready(c, p.count, int64_t(G) * G);
#pragma omp for schedule(static)
    for (int32_t j = 0; j < G; ++j)
      for (int32_t i = 0; i < G; ++i) {
        if (step > 0 && i + k_sad_prefetch_nodes < G) sad_prefetch_random(in, i + k_sad_prefetch_nodes, j);
        sad_pass_node_ranked(in, i, j, c, dst);
      }
  }
}

/// The passes of `steps` from the lists (step 0: the seeding pass, which reads none), in the
/// lists' scratch.
void sad_run_passes(const SadParams& p, const float* params, SadLists& lists, const std::vector<int32_t>& steps) {
  SadListsWork& w = lists.work;
  sad_rank_sites(p, params, w);
  sad_resize(w.other, int64_t(lists.ids.size()));
  sad_resize(w.ranked, int64_t(lists.ids.size()));
  for (int32_t step : steps) {
    sad_pass(p, w, lists.ids, step, lists.passes++);
    lists.ids.swap(w.other);
  }
}

} // namespace

void sad_build_lists(const SadParams& p, const float* params, SadLists& lists) {
  lists.grid = p.grid;
  lists.count = p.count;
  lists.passes = 0;
  sad_resize(lists.ids, int64_t(p.grid) * p.grid * k_sad_k);
  std::vector<int32_t> steps = {0};
  for (int32_t s = std::max(1, p.grid / 2); s >= 1; s /= 2) steps.push_back(s);
  steps.push_back(1);
  sad_run_passes(p, params, lists, steps);
}

void sad_refresh_lists(const SadParams& p, const float* params, SadLists& lists) {
  if (!lists.built() || lists.grid != p.grid || lists.count != p.count) return sad_build_lists(p, params, lists);
  sad_run_passes(p, params, lists, {1});
}

void sad_check_lists(const SadParams& p, const SadLists& lists) {
  if (!lists.built() || lists.grid != p.grid || lists.count != p.count)
    throw BackendError("the sites' lists were built for another model");
}

} // namespace redraw
