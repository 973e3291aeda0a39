// The CUDA backend's order of work for the `sad` encoding (cuda/sad_kernels.cu), run on the host:
// what its kernels do per thread is engine/sad_list_math.h's, so a loop over the threads with
// std::stable_sort in place of cub's stable radix sort gives what the device computes up to
// float rounding (expf, sqrtf, FMA). Here that order, its int32 indices, its sort keys with a
// sentinel past the last key (a site without a node, a pair past a point's list) and the starts
// of sad_sorted_starts_at, the build's ping-pong landing in the lists' own buffer and a refresh
// copied back, must give the CPU backend's bits (cpu/cpu_sad.h): lists, blend and gradient. The
// device itself runs tests/cuda/test_cuda_sad.cpp.
#include "cpu/cpu_sad.h"
#include "engine/rng_math.h"
#include "engine/sad_list_math.h"
#include "primitive_fixtures.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

using namespace redraw;

namespace {

/// `count` sites over the picture and a little past it, metrics, radii, temperatures and colours
/// spread, one with a NaN position.
std::vector<float> order_test_sites(int64_t count, uint64_t seed) {
  std::vector<float> p = test::drawn_sites(count, seed, {.stream = 71});
  if (count > 2) p[size_t(k_sad_floats + k_sad_mx)] = std::numeric_limits<float>::quiet_NaN();
  return p;
}

/// The device's stable sort by key (cub's radix sort), on the host: the values in key order, ties
/// in their given order, and the sorted keys.
void order_stable_sort(const std::vector<uint32_t>& key, std::vector<uint32_t>& sorted_key,
                       std::vector<int32_t>& sorted_value) {
  sorted_value.resize(key.size());
  std::iota(sorted_value.begin(), sorted_value.end(), 0);
  std::stable_sort(sorted_value.begin(), sorted_value.end(),
                   [&](int32_t a, int32_t b) { return key[size_t(a)] < key[size_t(b)]; });
  sorted_key.resize(key.size());
  for (size_t j = 0; j < key.size(); ++j) sorted_key[j] = key[size_t(sorted_value[j])];
}

/// The starts kernel: one "thread" per place j in [0, total].
std::vector<int32_t> order_starts(const std::vector<uint32_t>& sorted, int64_t keys) {
  std::vector<int32_t> start(size_t(keys) + 1, -7);
  for (int64_t j = 0; j <= int64_t(sorted.size()); ++j)
    sad_sorted_starts_at(sorted.data(), int64_t(sorted.size()), keys, j, start.data());
  return start;
}

/// SadLattice on the host: shapes and buckets as its kernels make them, and its passes.
struct HostLattice {
  SadParams p;
  std::vector<SadShape<float>> shapes;
  std::vector<int32_t> order, start, ids, other;
  uint64_t passes = 0;

  void shape(const std::vector<float>& sites) {
    shapes.resize(size_t(p.count));
    std::vector<uint32_t> node(size_t(p.count)), sorted;
    const int64_t nodes = int64_t(p.grid) * p.grid;
    for (int64_t i = 0; i < p.count; ++i) {
      shapes[size_t(i)] = sad_shape<float>(sites.data() + i * k_sad_floats, p.cell);
      const int64_t k = sad_site_node(sites.data() + i * k_sad_floats, p.grid);
      node[size_t(i)] = uint32_t(k >= 0 ? k : nodes);
    }
    order_stable_sort(node, sorted, order);
    start = order_starts(sorted, nodes);
  }
  void pass(const std::vector<int32_t>& src, std::vector<int32_t>& dst, int32_t step, int32_t stride = 1) {
    for (int64_t node = 0; node < int64_t(p.grid) * p.grid; ++node)
      sad_refresh_node(shapes.data(), p.count, p.grid, start.data(), order.data(), src.data(), dst.data(), step,
                       passes, stride, node);
    ++passes;
  }
  void build() {
    const size_t entries = size_t(p.grid) * size_t(p.grid) * k_sad_k;
    ids.assign(entries, -9);
    other.assign(entries, -9);
    passes = 0;
    std::vector<int32_t> steps = {0};
    for (int32_t s = std::max(1, p.grid / 2); s >= 1; s /= 2) steps.push_back(s);
    steps.push_back(1);
    std::vector<int32_t>* bufs[2] = {&ids, &other};
    int cur = steps.size() % 2 == 0 ? 0 : 1; // SadLattice::build's choice: the last pass writes ids
    for (int32_t step : steps) {
      pass(*bufs[cur], *bufs[1 - cur], step);
      cur = 1 - cur;
    }
  }
  void refresh(int32_t stride) {
    pass(ids, other, 1, stride);
    ids = other;
  }
  /// The backward kernels: pairs per point, the stable sort by site, the sites' gradients.
  std::vector<float> backward(const std::vector<float>& sites, const std::vector<float>& coords,
                              const std::vector<float>& d_out, int64_t n) {
    const size_t pairs = size_t(n) * k_sad_k;
    std::vector<uint32_t> key(pairs), sorted;
    std::vector<float> w(pairs), dl(pairs);
    for (int64_t s = 0; s < n; ++s) {
      int32_t site[k_sad_k];
      const size_t at = size_t(s) * k_sad_k;
      const float x = coords[size_t(2 * s)], y = coords[size_t(2 * s + 1)];
      sad_point_pairs(shapes.data(), sites.data(), sad_node_list(ids.data(), p.grid, x, y), x, y,
                      d_out.data() + s * k_sad_channels, site, w.data() + at, dl.data() + at);
      for (int k = 0; k < k_sad_k; ++k) key[at + size_t(k)] = site[k] >= 0 ? uint32_t(site[k]) : uint32_t(p.count);
    }
    std::vector<int32_t> sorted_pair;
    order_stable_sort(key, sorted, sorted_pair);
    const std::vector<int32_t> first = order_starts(sorted, p.count);
    std::vector<float> g(sites.size(), 5.0f);
    for (int64_t i = 0; i < p.count; ++i)
      sad_site_gradient(shapes[size_t(i)], sites.data() + i * k_sad_floats, p.cell, sorted_pair.data(),
                        first[size_t(i)], first[size_t(i) + 1], w.data(), dl.data(), coords.data(), d_out.data(),
                        g.data() + i * k_sad_floats, false);
    return g;
  }
};

} // namespace

TEST_CASE("sad device order: sad_sorted_starts_at gives every key's first place, empty keys and a sentinel too") {
  // Keys 0..5, the sentinel 6 past them: 1 and 4 empty, 5 empty at the end, two sentinels.
  const std::vector<uint32_t> sorted = {0, 0, 2, 3, 3, 3, 6, 6};
  const auto start = order_starts(sorted, 6);
  CHECK(start == std::vector<int32_t>{0, 2, 2, 3, 6, 6, 6});
  CHECK(order_starts({}, 3) == std::vector<int32_t>{0, 0, 0, 0});
  CHECK(order_starts({3, 3}, 3) == std::vector<int32_t>{0, 0, 0, 0});
}

TEST_CASE("sad device order: the device's lists, blend and gradient are the CPU's bits") {
  for (int64_t count : {int64_t(1), int64_t(9), int64_t(700), int64_t(3000)}) {
    CAPTURE(count);
    const SadParams p = sad_params(count);
    std::vector<float> sites = order_test_sites(count, 3);
    HostLattice device;
    device.p = p;
    device.shape(sites);
    device.build();
    SadLists cpu;
    sad_build_lists(p, sites.data(), cpu);
    CHECK(device.ids == cpu.ids);
    for (int round = 0; round < 4; ++round) { // the sites move, the lists follow: all rows, then half
      for (size_t i = 0; i < sites.size(); i += k_sad_floats)
        sites[i] += float(0.3 * p.cell * (random_unit(9, 72, i + size_t(round) * sites.size()) - 0.5));
      const int32_t stride = round < 2 ? 1 : k_sad_step_stride;
      CAPTURE(stride);
      device.shape(sites);
      device.refresh(stride);
      sad_refresh_lists(p, sites.data(), cpu, stride);
      CHECK(device.passes == cpu.passes);
      CHECK(device.ids == cpu.ids);
    }
    const int64_t n = 3000;
    std::vector<float> coords(size_t(n) * 2), d_out(size_t(n) * k_sad_channels);
    for (size_t i = 0; i < coords.size(); ++i) coords[i] = float(2.2 * random_unit(4, 73, i) - 1.1);
    for (size_t i = 0; i < d_out.size(); ++i) d_out[i] = float(random_unit(5, 74, i) - 0.5);
    std::vector<float> want(size_t(n) * k_sad_channels), got(want.size());
    sad_encode_rows(p, sites.data(), cpu, coords.data(), n, want.data());
    for (int64_t s = 0; s < n; ++s) {
      int32_t site[k_sad_k];
      float w[k_sad_k];
      const float x = coords[size_t(2 * s)], y = coords[size_t(2 * s + 1)];
      sad_point_blend(device.shapes.data(), sites.data(), sad_node_list(device.ids.data(), p.grid, x, y), x, y, site, w,
                      got.data() + s * k_sad_channels);
    }
    CHECK(got == want);
    std::vector<float> grads(sites.size());
    sad_backward_rows(p, sites.data(), cpu, coords.data(), d_out.data(), n, grads.data(), false);
    const auto device_grads = device.backward(sites, coords, d_out, n);
    CHECK(device_grads == grads);
    bool moved = false;
    for (float g : grads) moved = moved || g != 0.0f;
    CHECK(moved); // the comparison is of a gradient, not of zeros
  }
}
