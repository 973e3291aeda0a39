// The CPU passes of the `sad` encoding (cpu/cpu_sad.cpp): the jump-flooded top-K lists against
// brute force (built, and refreshed after the sites move), the forward blend and the backward's
// sorted pairs against a float64 loop over the same lists, and the same bits at 1, 2 and 3
// threads.
#include "cpu/cpu_sad.h"
#include "engine/rng_math.h"
#include "primitive_fixtures.h"

#include <doctest/doctest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

using namespace redraw;

namespace {

/// `count` sites spread over the picture (a little past it), metrics from round to three to one,
/// radii and temperatures around their starting values, colours of either sign.
std::vector<float> spread_sites(int64_t count, uint64_t seed) { return test::drawn_sites(count, seed, {.stream = 41}); }

/// The fraction of the exact k_sad_k least-energy sites (brute force, float64) at every node
/// centre that the node's list holds.
double found_fraction(const SadParams& p, const std::vector<float>& params, const SadLists& lists) {
  std::vector<SadShape<double>> shapes;
  for (int64_t i = 0; i < p.count; ++i) shapes.push_back(sad_shape<double>(params.data() + i * k_sad_floats, double(p.cell)));
  int64_t found = 0, wanted = 0;
  for (int64_t node = 0; node < int64_t(p.grid) * p.grid; ++node) {
    const double x = pixel_centre<double>(node % p.grid, p.grid), y = pixel_centre<double>(node / p.grid, p.grid);
    std::vector<std::pair<double, int32_t>> all;
    for (int64_t i = 0; i < p.count; ++i) all.push_back({sad_key(shapes[size_t(i)], x, y), int32_t(i)});
    std::partial_sort(all.begin(), all.begin() + k_sad_k, all.end());
    const int32_t* list = lists.ids.data() + node * k_sad_k;
    for (int k = 0; k < k_sad_k; ++k) {
      ++wanted;
      found += std::find(list, list + k_sad_k, all[size_t(k)].second) != list + k_sad_k;
    }
  }
  return double(found) / double(wanted);
}

std::vector<float> grid_coords(int32_t side) {
  std::vector<float> c;
  for (int32_t j = 0; j < side; ++j)
    for (int32_t i = 0; i < side; ++i) c.push_back(pixel_centre<float>(i, side)), c.push_back(pixel_centre<float>(j, side));
  return c;
}

} // namespace

TEST_CASE("sad lists: jump flooding finds the exact top-K, built and refreshed as the sites move") {
  const int64_t count = 400;
  const SadParams p = sad_params(count);
  std::vector<float> params = spread_sites(count, 3);
  SadLists lists;
  sad_build_lists(p, params.data(), lists);
  const double built = found_fraction(p, params, lists);
  MESSAGE("built: " << built << " of the exact top-" << k_sad_k << " found on a " << p.grid << "^2 lattice");
  CHECK(built >= 0.97);
  // Every site moves by up to half a cell, and steps of training refresh the lists.
  for (int64_t i = 0; i < count; ++i) {
    params[size_t(i * k_sad_floats + k_sad_mx)] += p.cell * float(random_unit(9, 42, uint64_t(2 * i)) - 0.5);
    params[size_t(i * k_sad_floats + k_sad_my)] += p.cell * float(random_unit(9, 42, uint64_t(2 * i + 1)) - 0.5);
  }
  const double stale = found_fraction(p, params, lists);
  for (int step = 0; step < 3; ++step) sad_refresh_lists(p, params.data(), lists);
  const double refreshed = found_fraction(p, params, lists);
  MESSAGE("moved: " << stale << " before the refresh, " << refreshed << " after three");
  CHECK(stale < 0.9); // the move matters
  CHECK(refreshed >= 0.97);
}

TEST_CASE("sad passes: forward and backward match a float64 loop over the same lists") {
  const int64_t count = 150;
  const SadParams p = sad_params(count);
  const std::vector<float> params = spread_sites(count, 5);
  SadLists lists;
  sad_build_lists(p, params.data(), lists);
  const int32_t side = 61;
  const std::vector<float> coords = grid_coords(side);
  const int64_t n = int64_t(side) * side;
  std::vector<float> r(size_t(n * k_sad_channels));
  for (size_t i = 0; i < r.size(); ++i) r[i] = float(2 * random_unit(6, 43, i) - 1);
  std::vector<float> out(size_t(n * k_sad_channels)), grads(params.size(), NAN);
  sad_encode_rows(p, params.data(), lists, coords.data(), n, out.data());
  sad_backward_rows(p, params.data(), lists, coords.data(), r.data(), n, grads.data(), false);
  std::vector<double> ref_grads(params.size(), 0.0);
  double worst_out = 0;
  for (int64_t s = 0; s < n; ++s) {
    const float x = coords[size_t(2 * s)], y = coords[size_t(2 * s + 1)];
    const int32_t* list = lists.ids.data() + (int64_t(sad_node(y, p.grid)) * p.grid + sad_node(x, p.grid)) * k_sad_k;
    SadShape<double> sh[k_sad_k];
    const float* sites[k_sad_k];
    int m = 0;
    for (int k = 0; k < k_sad_k; ++k)
      if (list[k] >= 0) sh[m] = sad_shape<double>(params.data() + list[k] * k_sad_floats, double(p.cell)),
                        sites[m++] = params.data() + list[k] * k_sad_floats;
    REQUIRE(m == k_sad_k);
    double w[k_sad_k], o[k_sad_channels], dl[k_sad_k], d_out[k_sad_channels];
    for (int k = 0; k < k_sad_channels; ++k) d_out[k] = r[size_t(s * k_sad_channels + k)];
    sad_blend(sh, sites, m, double(x), double(y), w, o);
    for (int k = 0; k < k_sad_channels; ++k) worst_out = std::max(worst_out, std::abs(o[k] - out[size_t(s * k_sad_channels + k)]));
    sad_logit_grads(sites, m, w, d_out, dl);
    for (int k = 0; k < m; ++k)
      sad_pair_backward(sh[k], sites[k], double(p.cell), double(x), double(y), w[k], dl[k], d_out,
                        ref_grads.data() + list[k] * k_sad_floats);
  }
  CHECK(worst_out < 1e-5);
  double worst = 0, scale = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    worst = std::max(worst, std::abs(double(grads[i]) - ref_grads[i]));
    scale = std::max(scale, std::abs(ref_grads[i]));
  }
  MESSAGE("backward: worst difference " << worst << " on gradients up to " << scale);
  CHECK(scale > 1.0);
  CHECK(worst <= 1e-5 * scale);
}

TEST_CASE("sad passes: lists, forward and backward give the same bits at 1, 2 and 3 threads") {
  const int64_t count = 900;
  const SadParams p = sad_params(count);
  std::vector<float> params = spread_sites(count, 7);
  const std::vector<float> coords = grid_coords(97);
  const int64_t n = int64_t(coords.size() / 2);
  std::vector<float> r(size_t(n * k_sad_channels));
  for (size_t i = 0; i < r.size(); ++i) r[i] = float(2 * random_unit(8, 44, i) - 1);
  const int before = omp_get_max_threads();
  std::vector<int32_t> ids1;
  std::vector<float> out1, grad1;
  for (int threads : {1, 2, 3}) {
    CAPTURE(threads);
    omp_set_num_threads(threads);
    SadLists lists;
    sad_build_lists(p, params.data(), lists);
    std::vector<float> moved = params;
    for (size_t i = 0; i < moved.size(); i += k_sad_floats) moved[i] += 0.01f;
    sad_refresh_lists(p, moved.data(), lists);
    std::vector<float> out(size_t(n * k_sad_channels)), grads(params.size(), 0.25f);
    sad_encode_rows(p, moved.data(), lists, coords.data(), n, out.data());
    sad_backward_rows(p, moved.data(), lists, coords.data(), r.data(), n, grads.data(), true);
    if (threads == 1) {
      ids1 = lists.ids, out1 = out, grad1 = grads;
      continue;
    }
    CHECK(lists.ids == ids1);
    CHECK(std::memcmp(out.data(), out1.data(), out.size() * sizeof(float)) == 0);
    CHECK(std::memcmp(grads.data(), grad1.data(), grads.size() * sizeof(float)) == 0);
  }
  omp_set_num_threads(before);
  size_t changed = 0;
  for (float v : grad1) changed += v != 0.25f;
  CHECK(changed > grad1.size() / 2); // accumulate added something
}

TEST_CASE("sad lists: a training step's refreshes, half the rows each taking turns, follow the sites as well") {
  // Sites drift as Adam's steps move them, a tenth of a cell a step for 12 steps: lists refreshed
  // every step in full and lists refreshed on alternate rows both keep the exact top-K.
  const int64_t count = 400;
  const SadParams p = sad_params(count);
  std::vector<float> params = spread_sites(count, 5);
  SadLists full, half;
  sad_build_lists(p, params.data(), full);
  sad_build_lists(p, params.data(), half);
  for (int step = 0; step < 12; ++step) {
    for (int64_t i = 0; i < count; ++i) {
      const double a = 6.283185307179586 * random_unit(10, 43, uint64_t(i)); // each site its own heading
      params[size_t(i * k_sad_floats + k_sad_mx)] += float(0.1 * p.cell * std::cos(a));
      params[size_t(i * k_sad_floats + k_sad_my)] += float(0.1 * p.cell * std::sin(a));
    }
    sad_refresh_lists(p, params.data(), full);
    sad_refresh_lists(p, params.data(), half, k_sad_step_stride);
  }
  const double f_full = found_fraction(p, params, full), f_half = found_fraction(p, params, half);
  MESSAGE("after 12 steps of 1.2 cells in all: " << f_full << " of the exact top-" << k_sad_k << " in full, " << f_half
                                                << " on alternate rows");
  CHECK(f_full >= 0.97);
  CHECK(f_half >= 0.97);
  CHECK(half.ids != full.ids); // the alternate rows are another route
}

TEST_CASE("sad lists: no site is lost while it is among the nearest at its own node, however far the sites jump") {
  // A lost site takes no gradient, yet a render's fresh lists find it: every refresh offers each
  // node its own sites. Jumps of several cells outrun a pass at step 1; the own-node rule holds.
  const int64_t count = 300;
  const SadParams p = sad_params(count);
  std::vector<float> params = spread_sites(count, 21);
  SadLists lists;
  sad_build_lists(p, params.data(), lists);
  for (int64_t i = 0; i < count; ++i) {
    params[size_t(i * k_sad_floats + k_sad_mx)] += 4 * p.cell * float(random_unit(22, 45, uint64_t(2 * i)) - 0.5);
    params[size_t(i * k_sad_floats + k_sad_my)] += 4 * p.cell * float(random_unit(22, 45, uint64_t(2 * i + 1)) - 0.5);
  }
  sad_refresh_lists(p, params.data(), lists);
  int64_t checked = 0;
  for (int64_t s = 0; s < count; ++s) {
    const float* site = params.data() + s * k_sad_floats;
    const int32_t i = sad_node(site[k_sad_mx], p.grid), j = sad_node(site[k_sad_my], p.grid);
    const float x = pixel_centre<float>(i, p.grid), y = pixel_centre<float>(j, p.grid);
    const float mine = sad_key(sad_shape<float>(site, p.cell), x, y);
    int64_t nearer = 0;
    for (int64_t o = 0; o < count; ++o)
      nearer += o != s && sad_key(sad_shape<float>(params.data() + o * k_sad_floats, p.cell), x, y) < mine;
    if (nearer >= k_sad_k) continue;
    ++checked;
    const int32_t* list = lists.ids.data() + (int64_t(j) * p.grid + i) * k_sad_k;
    CHECK(std::find(list, list + k_sad_k, int32_t(s)) != list + k_sad_k);
  }
  CHECK(checked > count / 2);
}

namespace {

/// The lists as sad_pass_node (engine/sad_list_math.h) makes them, node after node, from the sites'
/// buckets in index order: the reference the CPU's passes (engine/sad_lists.cpp) must match bit
/// for bit, however they order and share their work.
struct NodePassLists {
  SadParams p;
  std::vector<int32_t> ids;
  uint64_t passes = 0;
  void pass(const std::vector<float>& params, int32_t step, int32_t stride = 1) {
    std::vector<SadShape<float>> shapes;
    for (int64_t i = 0; i < p.count; ++i) shapes.push_back(sad_shape<float>(params.data() + i * k_sad_floats, p.cell));
    const int64_t nodes = int64_t(p.grid) * p.grid;
    std::vector<int64_t> start(size_t(nodes) + 1, 0);
    std::vector<int32_t> order;
    for (int64_t node = 0; node < nodes; ++node) {
      start[size_t(node)] = int64_t(order.size());
      for (int64_t s = 0; s < p.count; ++s)
        if (sad_site_node(params.data() + s * k_sad_floats, p.grid) == node) order.push_back(int32_t(s));
    }
    start[size_t(nodes)] = int64_t(order.size());
    std::vector<int32_t> dst(size_t(nodes) * k_sad_k, -9);
    for (int64_t node = 0; node < nodes; ++node) {
      if (stride > 1 && (node / p.grid + int64_t(passes)) % stride != 0) { // a row this pass keeps
        std::copy(ids.begin() + node * k_sad_k, ids.begin() + (node + 1) * k_sad_k, dst.begin() + node * k_sad_k);
        continue;
      }
      sad_pass_node(shapes.data(), p.count, p.grid, start.data(), order.data(), ids.data(), dst.data(), step,
                    passes, node);
    }
    ++passes;
    ids.swap(dst);
  }
  void build(const std::vector<float>& params) {
    ids.assign(size_t(p.grid) * p.grid * k_sad_k, -9);
    passes = 0;
    pass(params, 0);
    for (int32_t s = std::max(1, p.grid / 2); s >= 1; s /= 2) pass(params, s);
    pass(params, 1);
  }
};

} // namespace

TEST_CASE("sad lists: the CPU's passes give sad_pass_node's lists, ties, crowds, NaN and infinite energies too") {
  const int64_t count = 500;
  const SadParams p = sad_params(count);
  std::vector<float> params = spread_sites(count, 31);
  auto site = [&](int64_t i) { return params.data() + i * k_sad_floats; };
  for (int64_t i = 10; i < 40; ++i) std::copy(site(9), site(9) + k_sad_floats, site(i)); // 31 coincident: ties by id
  for (int64_t i = 40; i < 70; ++i) site(i)[k_sad_mx] = 0.1f, site(i)[k_sad_my] = -0.2f;  // a crowd in one node
  site(3)[k_sad_mx] = NAN;                                                                 // in no node
  site(5)[k_sad_my] = INFINITY;
  site(7)[k_sad_radius] = NAN;                           // a NaN energy everywhere: never taken
  site(8)[k_sad_radius] = -3e38f, site(8)[k_sad_temp] = -20.0f; // +inf energies
  site(11)[k_sad_radius] = 3e38f, site(11)[k_sad_temp] = -20.0f; // -inf energies
  const int before = omp_get_max_threads();
  for (int threads : {1, 3}) {
    CAPTURE(threads);
    omp_set_num_threads(threads);
    std::vector<float> moved = params;
    NodePassLists ref{p, {}, 0};
    ref.build(moved);
    SadLists lists;
    sad_build_lists(p, moved.data(), lists);
    CHECK(lists.ids == ref.ids);
    // Refreshes of every row, and of the rows a training step renews (half, taking turns).
    for (int step = 0; step < 6; ++step) {
      for (int64_t i = 0; i < count; ++i) // sites jump by up to a cell, some out of their nodes
        moved[size_t(i * k_sad_floats + k_sad_mx)] += p.cell * float(random_unit(32, 46, uint64_t(i + step * count)) - 0.5);
      const int32_t stride = step < 3 ? 1 : k_sad_step_stride;
      CAPTURE(stride);
      const std::vector<int32_t> before_pass = lists.ids;
      ref.pass(moved, 1, stride);
      sad_refresh_lists(p, moved.data(), lists, stride);
      CHECK(lists.ids == ref.ids);
      if (stride > 1) { // the kept rows are as they were; the renewed ones moved with the sites
        const size_t row = size_t(p.grid) * k_sad_k;
        size_t kept_same = 0, renewed_changed = 0, renewed = 0;
        for (int32_t j = 0; j < p.grid; ++j) {
          const bool same = std::equal(lists.ids.begin() + j * row, lists.ids.begin() + (j + 1) * row,
                                       before_pass.begin() + j * row);
          if (sad_pass_renews_row(j, lists.passes - 1, stride)) renewed += 1, renewed_changed += !same;
          else kept_same += same;
        }
        CHECK(renewed == size_t((p.grid + 1 - (lists.passes - 1) % 2) / 2));
        CHECK(kept_same == size_t(p.grid) - renewed);
        CHECK(renewed_changed * 2 > renewed);
      }
    }
    int64_t nan_site = 0, inf_site = 0;
    for (int32_t id : lists.ids) nan_site += id == 7, inf_site += id == 11;
    CHECK(nan_site == 0);
    CHECK(inf_site > 0);
  }
  omp_set_num_threads(before);
}
