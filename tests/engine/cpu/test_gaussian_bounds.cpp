// The bound on how much of the picture a model's Gaussians may cover (engine/gaussian_bounds.h):
// the pair count against a closed form (Gaussians that cover every bin) and a per-bin float64
// count; the CPU passes refuse past the bound with a BackendError before sizing anything (no
// terminate from an OpenMP region). The model check's side is in
// tests/engine/model_files/test_model_check.cpp.
#include "test_support.h"

#include "cpu/cpu_gaussians.h"
#include "engine/errors.h"
#include "engine/gaussian_bounds.h"
#include "engine/rng_math.h"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

using namespace redraw;

namespace {

/// `count` Gaussians spread over the picture, each `size` cells across (raw Cholesky values).
std::vector<float> gaussians_of_size(int64_t count, float size) {
  std::vector<float> p(size_t(count * k_gaussian_floats));
  for (int64_t i = 0; i < count; ++i) {
    float* g = p.data() + i * k_gaussian_floats;
    g[k_gauss_mx] = float(-1.0 + 2.0 * random_unit(7, 1, uint64_t(i)));
    g[k_gauss_my] = float(-1.0 + 2.0 * random_unit(7, 2, uint64_t(i)));
    g[k_gauss_l11] = size, g[k_gauss_l21] = 0.1f, g[k_gauss_l22] = size;
    for (int k = 0; k < k_gaussian_channels; ++k) g[k_gauss_colour + k] = 0.1f;
  }
  return p;
}

/// The bins along one axis that [lo, hi] reaches, counted in float64 bin by bin (not through
/// gaussian_bin): bin b spans [-1 + 2b/bins, -1 + 2(b+1)/bins), the border bins open-ended.
int64_t bins_reached(double lo, double hi, int32_t bins) {
  int64_t n = 0;
  for (int32_t b = 0; b < bins; ++b) {
    const double b0 = b == 0 ? -1e300 : -1.0 + 2.0 * b / bins, b1 = b == bins - 1 ? 1e300 : -1.0 + 2.0 * (b + 1) / bins;
    n += (hi >= b0 && lo < b1) ? 1 : 0;
  }
  return n;
}

} // namespace

TEST_CASE("gaussian bounds: the pair count is each box's bins, counted another way") {
  const GaussianParams g = gaussian_params(900); // 15 bins a side
  const std::vector<float> p = gaussians_of_size(900, 1.5f);
  int64_t expected = 0;
  for (int64_t i = 0; i < g.count; ++i) {
    const float* q = p.data() + i * k_gaussian_floats;
    const double f = k_gaussian_diag_floor, cell = g.cell;
    const double a = cell * std::sqrt(double(q[2]) * q[2] + f * f), b = cell * q[3],
                 c = cell * std::sqrt(double(q[4]) * q[4] + f * f);
    const double hx = 3.0 * a * 1.001 + 1e-6, hy = 3.0 * std::sqrt(b * b + c * c) * 1.001 + 1e-6;
    expected += bins_reached(q[0] - hx, q[0] + hx, g.bins) * bins_reached(q[1] - hy, q[1] + hy, g.bins);
  }
  CHECK(gaussian_pair_count(g, p.data()) == expected);
  CHECK(gaussian_pairs_problem(expected, g.count).empty());
}

TEST_CASE("gaussian bounds: Gaussians that cover the whole picture are refused past the bound, by count") {
  // 1,000 cells across: every box covers every bin, so a count of N makes N * bins^2 pairs.
  for (const int64_t count : {int64_t(100), int64_t(4000), int64_t(5000), int64_t(150000)}) {
    const GaussianParams g = gaussian_params(count);
    const std::vector<float> p = gaussians_of_size(count, 1000.0f);
    const int64_t pairs = gaussian_pair_count(g, p.data());
    CHECK(pairs == count * int64_t(g.bins) * g.bins);
    const bool within = pairs <= std::max<int64_t>(int64_t(1) << 22, 128 * count);
    CAPTURE(count);
    CHECK(gaussian_pairs_problem(pairs, count).empty() == within);
  }
  // a few Gaussians may each cover all of a small grid; thousands may not
  CHECK(gaussian_pairs_problem(100 * 25, 100).empty());
  const std::string why = gaussian_pairs_problem(5000LL * 36 * 36, 5000);
  CHECK(why.find("the 5000 Gaussians cover 6.48e+06 (bin, Gaussian) pairs, more than the 4.19e+06") == 0);
  CHECK(why.find("Gaussians far larger than the picture") != std::string::npos);
}

TEST_CASE("gaussian bounds: the CPU passes refuse Gaussians past the bound before sizing a buffer") {
  // 20,000 Gaussians covering every one of 71 x 71 bins: 1e8 pairs (1.6 GB of lists and partials
  // without the bound); the refusal is a BackendError from no parallel region, never a terminate.
  const int64_t count = 20000;
  const GaussianParams g = gaussian_params(count);
  const std::vector<float> p = gaussians_of_size(count, 1000.0f);
  const std::vector<float> coords = test::uniform_values(2 * 64, 3, 4, -1.0f, 1.0f);
  std::vector<float> out(64 * k_gaussian_channels), d_out(64 * k_gaussian_channels, 0.5f),
      grads(size_t(count * k_gaussian_floats));
  CHECK_THROWS_WITH_AS(gaussian_encode_rows(g, p.data(), coords.data(), 64, out.data()),
                       doctest::Contains("Gaussians far larger than the picture"), BackendError);
  CHECK_THROWS_AS(gaussian_backward_rows(g, p.data(), coords.data(), d_out.data(), 64, grads.data(), false),
                  BackendError);
  // the same count at a cell across passes
  const std::vector<float> fine = gaussians_of_size(count, 1.0f);
  CHECK_NOTHROW(gaussian_encode_rows(g, fine.data(), coords.data(), 64, out.data()));
}
