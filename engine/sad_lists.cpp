#include "engine/sad_lists.h"

#include "engine/errors.h"
#include "engine/sad_list_math.h"

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
    node_of[size_t(s)] = sad_site_node(params + s * k_sad_floats, G);
    if (node_of[size_t(s)] >= 0) ++b.start[size_t(node_of[size_t(s)]) + 1];
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
  const int64_t nodes = int64_t(p.grid) * p.grid;
#pragma omp parallel for schedule(static)
  for (int64_t node = 0; node < nodes; ++node)
    sad_pass_node(shapes.data(), p.count, p.grid, buckets.start.data(), buckets.order.data(), src.data(), dst.data(),
                  step, pass, node);
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
