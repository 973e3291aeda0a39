#include "engine/sad_lists.h"

#include "engine/errors.h"
#include "engine/sad_list_math.h"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <vector>

namespace redraw {
namespace {

/// An empty place of a SadLeast, and a NaN energy's key: after every other key.
constexpr uint64_t k_sad_none = ~uint64_t(0);

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
  SadKeyShape* shapes = w.shapes.data();
  const int32_t* id = w.id.data();
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < count; ++k) {
    const SadShape<float> s = sad_shape<float>(params + int64_t(id[k]) * k_sad_floats, p.cell);
    shapes[k] = {s.mx, s.my, s.inv_a, s.b, s.inv_c, s.radius, s.inv_tau, id[k]};
  }
}

/// Site k's energy at (x, y): sad_key of its shape, the same arithmetic.
inline float sad_ranked_key(const SadKeyShape& k, float x, float y) {
  const SadShape<float> s{k.mx, k.my, k.inv_a, k.b, k.inv_c, k.radius, k.inv_tau, 0.0f};
  return sad_key(s, x, y);
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

/// A node's candidates as it takes them, in locals (the stamps' stores would otherwise make the
/// compiler reload the tag and the count): at most grid^2 <= 2^22 nodes a pass, and
/// sad_candidates_ready leaves room for them all, so the tag never wraps.
struct SadTakes {
  uint32_t* stamp;
  int32_t* ranks;
  uint32_t tag;
  int64_t n = 0;
  explicit SadTakes(SadCandidates& c) : stamp(c.stamp.data()), ranks(c.ranks.data()), tag(++c.tag) { stamp[0] = tag; }
  /// Takes rank r (-1: none) unless the node took it already, without a branch.
  void take(int32_t r) {
    uint32_t& st = stamp[size_t(int64_t(r) + 1)];
    ranks[n] = r;
    n += st != tag;
    st = tag;
  }
  void take_list(const int32_t* list) {
    for (int32_t k = 0; k < k_sad_k; ++k) take(list[k]);
  }
};

/// A candidate's (energy, id) as one integer of the same order: SadNodeList's (energy, then id),
/// for any energy but NaN, which is never taken (k_sad_none, after all others). The energy's bits
/// are made monotone (a negative one's all flipped, a positive one's sign set) after -0 is taken
/// as +0 (they are equal energies, ordered by id), above the id.
inline uint64_t sad_order_key(float e, int32_t s) {
  uint32_t u;
  std::memcpy(&u, &e, sizeof u);
  u = u == 0x80000000u ? 0u : u;
  const uint32_t flip = uint32_t(int32_t(u) >> 31) | 0x80000000u;
  const bool nan = (u & 0x7fffffffu) > 0x7f800000u;
  return nan ? k_sad_none : (uint64_t(u ^ flip) << 32 | uint32_t(s));
}

/// The k_sad_k least order keys offered (sad_order_key), ascending: sad_pass_node's SadNodeList
/// (the k_sad_k least (energy, id) of the sites offered, each once) without a branch on the data,
/// so no mispredicted branch waits on the energies. It starts from the first k_sad_k keys, sorted
/// by a network; each later offer runs its key down the list, keeping the lesser at each place.
struct SadLeast {
  static_assert(k_sad_k == 8, "the starting network sorts 8 keys");
  uint64_t v[k_sad_k];
  /// The list of keys[0, n) for n <= k_sad_k (k_sad_none past them).
  void start(const uint64_t* keys, int64_t n) {
    for (int32_t k = 0; k < k_sad_k; ++k) v[k] = k < n ? keys[k] : k_sad_none;
    constexpr int32_t net[19][2] = {{0, 2}, {1, 3}, {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}, {0, 1}, {2, 3},
                                    {4, 5}, {6, 7}, {2, 4}, {3, 5}, {1, 4}, {3, 6}, {1, 2}, {3, 4}, {5, 6}};
    for (const auto& e : net) {
      const uint64_t a = v[e[0]], b = v[e[1]];
      v[e[0]] = a < b ? a : b;
      v[e[1]] = a < b ? b : a;
    }
  }
  void offer(uint64_t key) {
    for (int32_t k = 0; k < k_sad_k; ++k) {
      const uint64_t lo = v[k] < key ? v[k] : key;
      key = v[k] < key ? key : v[k];
      v[k] = lo;
    }
  }
  /// The list as ids, -1 past its end.
  void write(int32_t* out) const {
    for (int32_t k = 0; k < k_sad_k; ++k) out[k] = v[k] == k_sad_none ? -1 : int32_t(uint32_t(v[k]));
  }
};

/// The k_sad_k least of keys[0, n) into top (keys is scratch): the first k_sad_k start it, the
/// later ones below its last (an exact bar: the list only falls) are kept, in place, and offered.
inline void sad_least_of(uint64_t* keys, int64_t n, SadLeast& top) {
  const int64_t first = n < k_sad_k ? n : k_sad_k;
  top.start(keys, first);
  const uint64_t bar = top.v[k_sad_k - 1];
  int64_t m = 0;
  for (int64_t k = first; k < n; ++k) {
    keys[m] = keys[k];
    m += keys[k] < bar;
  }
  for (int64_t k = 0; k < m; ++k) top.offer(keys[k]);
}

/// What a pass reads: the sites by rank, and the lists it starts from, as ranks.
struct SadPassInput {
  const SadListsWork& sites;
  const int32_t* src; ///< grid * grid * k_sad_k ranks, -1 past a list's end
  int64_t count;
  int32_t grid, step;
  uint64_t pass;
};

/// A node's random candidates (sad_random_candidates): the place of an entry of a near node's
/// list and a site from all.
struct SadRandom {
  int64_t near_at;
  int32_t any;
};

/// sad_pass_node's list of node (i, j) (engine/sad_list_math.h), as ids into dst, its random
/// candidates `rnd`: the k_sad_k least (energy, id) of the sites it offers do not depend on the
/// order they come in, nor on how often each comes. The node's own list goes first: it holds most
/// of the new list, so few later candidates fall below the list it starts (sad_least_of).
void sad_pass_node_ranked(const SadPassInput& in, int32_t i, int32_t j, SadRandom rnd, SadCandidates& c,
                          int32_t* dst) {
  const int32_t G = in.grid, step = in.step;
  const int64_t node = int64_t(j) * G + i;
  const float x = pixel_centre<float>(i, G), y = pixel_centre<float>(j, G);
  SadTakes t(c);
  for (int64_t r = in.sites.start[size_t(node)]; r < in.sites.start[size_t(node) + 1]; ++r) t.take(int32_t(r));
  if (step > 0) {
    const int32_t* src = in.src;
    t.take_list(src + node * k_sad_k);
    const bool left = i >= step, right = i + step < G;
    for (int32_t nj : {j - step, j, j + step}) {
      if (nj < 0 || nj >= G) continue;
      const int32_t* row = src + int64_t(nj) * G * k_sad_k;
      if (left) t.take_list(row + int64_t(i - step) * k_sad_k);
      if (nj != j) t.take_list(row + int64_t(i) * k_sad_k);
      if (right) t.take_list(row + int64_t(i + step) * k_sad_k);
    }
    t.take(src[rnd.near_at]);
    t.take(in.sites.rank[size_t(rnd.any)]);
  }
  const int32_t* ranks = t.ranks;
  const SadKeyShape* shapes = in.sites.shapes.data();
  uint64_t* keys = c.keys.data();
  const int64_t n = t.n;
  for (int64_t k = 0; k < n; ++k) {
    const SadKeyShape& s = shapes[ranks[k]];
    keys[k] = sad_order_key(sad_ranked_key(s, x, y), s.id);
  }
  SadLeast top;
  sad_least_of(keys, n, top);
  top.write(dst + node * k_sad_k);
}

/// Nodes ahead whose random candidates a pass works out and asks the cache for: the entry of a
/// node up to grid/16 rows away, and the rank of a site from all, are loads from far memory.
constexpr int32_t k_sad_prefetch_nodes = 16;

/// Node (i, j)'s random candidates, their loads asked of the cache. Inlined: a call would be
/// dropped, as GCC takes a function whose only effects are prefetches for one without effects.
inline __attribute__((always_inline)) SadRandom sad_prefetch_random(const SadPassInput& in, int32_t i, int32_t j) {
  SadRandom r;
  sad_random_candidates(in.count, in.grid, in.pass, i, j, r.near_at, r.any);
  __builtin_prefetch(in.src + r.near_at);
  __builtin_prefetch(in.sites.rank.data() + r.any);
  return r;
}

/// Row j of a pass: each node's random candidates are worked out k_sad_prefetch_nodes nodes ahead
/// (their loads then come from the cache) and kept in a ring until the node is reached.
void sad_pass_row(const SadPassInput& in, int32_t j, SadCandidates& c, int32_t* dst) {
  const int32_t G = in.grid;
  SadRandom ring[k_sad_prefetch_nodes] = {};
  if (in.step > 0)
    for (int32_t i = 0; i < k_sad_prefetch_nodes && i < G; ++i) ring[i] = sad_prefetch_random(in, i, j);
  for (int32_t i = 0; i < G; ++i) {
    const SadRandom rnd = ring[i % k_sad_prefetch_nodes];
    if (in.step > 0 && i + k_sad_prefetch_nodes < G)
      ring[i % k_sad_prefetch_nodes] = sad_prefetch_random(in, i + k_sad_prefetch_nodes, j);
    sad_pass_node_ranked(in, i, j, rnd, c, dst);
  }
}

/// One jump-flooding pass of step `step` from the lists (ids) into w.other (see the header); `pass`
/// numbers the random candidates. Step 0 is the seeding pass: a node's own sites only. Every pass
/// offers them, so a site stays in its own node's list while it is among the nearest there, and
/// no site is lost from the lists (where it would take no gradient) while a fresh build would find
/// it. Only the rows sad_pass_renews_row(j, pass, stride) picks are passed; the others keep their
/// lists. w holds the ranked sites; w.ranked is scratch: the lists as ranks.
void sad_pass(const SadParams& p, SadListsWork& w, const std::vector<int32_t>& ids, int32_t step, uint64_t pass,
              int32_t stride) {
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
    for (int32_t j = 0; j < G; ++j) {
      if (sad_pass_renews_row(j, pass, stride)) {
        sad_pass_row(in, j, c, dst);
      } else {
        const size_t row = size_t(j) * size_t(G) * k_sad_k;
        std::memcpy(dst + row, ids.data() + row, size_t(G) * k_sad_k * sizeof(int32_t));
      }
    }
  }
}

/// The passes of `steps` from the lists (step 0: the seeding pass, which reads none), in the
/// lists' scratch, each renewing the rows sad_pass_renews_row picks for `stride`.
void sad_run_passes(const SadParams& p, const float* params, SadLists& lists, const std::vector<int32_t>& steps,
                    int32_t stride = 1) {
  SadListsWork& w = lists.work;
  sad_rank_sites(p, params, w);
  sad_resize(w.other, int64_t(lists.ids.size()));
  sad_resize(w.ranked, int64_t(lists.ids.size()));
  for (int32_t step : steps) {
    sad_pass(p, w, lists.ids, step, lists.passes++, stride);
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

void sad_refresh_lists(const SadParams& p, const float* params, SadLists& lists, int32_t stride) {
  if (!lists.built() || lists.grid != p.grid || lists.count != p.count) return sad_build_lists(p, params, lists);
  sad_run_passes(p, params, lists, {1}, stride);
}

void sad_check_lists(const SadParams& p, const SadLists& lists) {
  if (!lists.built() || lists.grid != p.grid || lists.count != p.count)
    throw BackendError("the sites' lists were built for another model");
}

} // namespace redraw
