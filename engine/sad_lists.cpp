#include "engine/sad_lists.h"

#include "engine/errors.h"
#include "engine/rng_math.h"

#include <algorithm>
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

std::vector<SadShape<float>> sad_shapes(const SadParams& p, const float* params) {
  std::vector<SadShape<float>> shapes;
  sad_resize(shapes, p.count);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < p.count; ++i) shapes[size_t(i)] = sad_shape<float>(params + i * k_sad_floats, p.cell);
  return shapes;
}

namespace {

/// One node's list while it is merged: ascending by (energy, id), at most k_sad_k.
struct SadTopK {
  float key[k_sad_k];
  int32_t id[k_sad_k];
  int32_t size = 0;
  bool holds(int32_t s) const {
    for (int32_t i = 0; i < size; ++i)
      if (id[i] == s) return true;
    return false;
  }
  /// Offers site s of energy e; a NaN energy is never taken, nor a site held already.
  void offer(int32_t s, float e) {
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
constexpr uint64_t k_sad_jfa_seed = 0x5ad;

/// Nodes a random candidate may come from, along each side: up to grid/16 away.
int32_t sad_reach(int32_t grid) { return std::max(1, grid / 16); }

/// The sites by node: node k's sites (those whose positions fall in it) are
/// order[start[k] .. start[k + 1]), in index order (a counting sort); non-finite positions in none.
struct SadBuckets {
  std::vector<int64_t> start;
  std::vector<int32_t> order;
};

SadBuckets sad_buckets(const SadParams& p, const float* params) {
  const int32_t G = p.grid;
  const int64_t nodes = int64_t(G) * G;
  SadBuckets b;
  b.start.assign(size_t(nodes) + 1, 0);
  std::vector<int64_t> node_of(size_t(p.count));
  for (int64_t s = 0; s < p.count; ++s) {
    const float* site = params + s * k_sad_floats;
    const bool finite = rd_isfinite(site[k_sad_mx]) && rd_isfinite(site[k_sad_my]);
    node_of[size_t(s)] = finite ? int64_t(sad_node(site[k_sad_my], G)) * G + sad_node(site[k_sad_mx], G) : -1;
    if (finite) ++b.start[size_t(node_of[size_t(s)]) + 1];
  }
  for (int64_t k = 0; k < nodes; ++k) b.start[size_t(k + 1)] += b.start[size_t(k)];
  sad_resize(b.order, b.start[size_t(nodes)]);
  std::vector<int64_t> cursor(b.start.begin(), b.start.end() - 1);
  for (int64_t s = 0; s < p.count; ++s)
    if (node_of[size_t(s)] >= 0) b.order[size_t(cursor[size_t(node_of[size_t(s)])]++)] = int32_t(s);
  return b;
}

/// One jump-flooding pass of step `step` from src into dst (see the header); `pass` numbers the
/// random candidates. Step 0 is the seeding pass: a node's own sites only. Every pass offers them,
/// so a site stays in its own node's list while it is among the nearest there, and no site is lost
/// from the lists (where it would take no gradient) while a fresh build would find it.
void sad_pass(const SadParams& p, const std::vector<SadShape<float>>& shapes, const SadBuckets& buckets,
              const std::vector<int32_t>& src, std::vector<int32_t>& dst, int32_t step, uint64_t pass) {
  const int32_t G = p.grid, reach = sad_reach(G);
  const uint32_t span = uint32_t(2 * reach + 1);
#pragma omp parallel for schedule(static)
  for (int64_t node = 0; node < int64_t(G) * G; ++node) {
    const int32_t i = int32_t(node % G), j = int32_t(node / G);
    const float x = pixel_centre<float>(i, G), y = pixel_centre<float>(j, G);
    SadTopK top;
    auto offer = [&](int32_t s) {
      if (s < 0) return;
      top.offer(s, sad_key(shapes[size_t(s)], x, y));
    };
    for (int64_t k = buckets.start[size_t(node)]; k < buckets.start[size_t(node) + 1]; ++k)
      offer(buckets.order[size_t(k)]);
    if (step > 0) {
      auto offer_list = [&](int32_t ni, int32_t nj) {
        if (ni < 0 || nj < 0 || ni >= G || nj >= G) return;
        const int32_t* list = src.data() + (int64_t(nj) * G + ni) * k_sad_k;
        for (int32_t k = 0; k < k_sad_k; ++k) offer(list[k]);
      };
      offer_list(i, j);
      for (int32_t dj = -1; dj <= 1; ++dj)
        for (int32_t di = -1; di <= 1; ++di)
          if (di || dj) offer_list(i + di * step, j + dj * step);
      // Random candidates: an entry of a node nearby, and a site from all.
      const uint64_t c = (pass << 34) ^ (uint64_t(node) << 2);
      const int32_t ri =
          std::clamp(i - reach + int32_t(random_below(k_sad_jfa_seed, k_stream_sad_jfa, c, span)), 0, G - 1);
      const int32_t rj =
          std::clamp(j - reach + int32_t(random_below(k_sad_jfa_seed, k_stream_sad_jfa, c + 1, span)), 0, G - 1);
      offer(src[size_t((int64_t(rj) * G + ri) * k_sad_k +
                       random_below(k_sad_jfa_seed, k_stream_sad_jfa, c + 2, k_sad_k))]);
      offer(int32_t(random_below(k_sad_jfa_seed, k_stream_sad_jfa, c + 3, uint32_t(p.count))));
    }
    int32_t* out = dst.data() + node * k_sad_k;
    for (int32_t k = 0; k < k_sad_k; ++k) out[k] = k < top.size ? top.id[k] : -1;
  }
}

/// The passes of `steps` from the lists (step 0: the seeding pass, which reads none).
void sad_run_passes(const SadParams& p, const float* params, SadLists& lists, const std::vector<int32_t>& steps) {
  const std::vector<SadShape<float>> shapes = sad_shapes(p, params);
  const SadBuckets buckets = sad_buckets(p, params);
  std::vector<int32_t> other;
  sad_resize(other, int64_t(lists.ids.size()));
  for (int32_t step : steps) {
    sad_pass(p, shapes, buckets, lists.ids, other, step, lists.passes++);
    lists.ids.swap(other);
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
