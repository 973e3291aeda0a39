// The CPU's Gaussians grid (cpu/cpu_gaussian_grid.h), beyond what tests/engine/bench/test_gaussians.cpp
// checks of the passes against float64: its exp against the float64 one, its AVX2 kernels against
// the baseline's bit for bit, and the CPU encoding's grid, built once a step, never read stale.
#include "primitive_fixtures.h"
#include "test_support.h"

#include "cpu/cpu_family_encoders.h"
#include "cpu/cpu_gaussian_grid.h"
#include "cpu/cpu_gaussians.h"
#include "engine/model_spec.h"
#include "engine/rng_math.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <vector>

using namespace redraw;

namespace {

/// `count` Gaussians over [-1.1, 1.1]^2, sizes from the floor to a few cells, colours of either sign.
std::vector<float> grid_test_gaussians(int64_t count, uint64_t seed) {
  return test::drawn_gaussians(count, seed, {.stream = 31});
}

/// The float's distance in units in the last place from a positive double.
double ulps_from(float got, double want) {
  const float below = std::nextafter(float(want), 0.0f), near = float(want);
  const double ulp = double(near) - double(below);
  return std::abs(double(got) - want) / (ulp > 0 ? ulp : 1e-45);
}

} // namespace

TEST_CASE("gaussian grid: its exp is within 2 ulp of the float64 exp from -87 to 0, and exactly 1 at 0") {
  double worst = 0;
  for (int64_t i = 0; i <= 2000000; ++i) {
    const float x = float(-87.0 * double(i) / 2000000.0);
    worst = std::max(worst, ulps_from(cpu::gaussian_cpu_exp(x), std::exp(double(x))));
  }
  MESSAGE("worst " << worst << " ulp");
  CHECK(worst <= 2.0);
  CHECK(cpu::gaussian_cpu_exp(0.0f) == 1.0f);
  CHECK(cpu::gaussian_cpu_exp(-4.5f) == doctest::Approx(std::exp(-4.5)).epsilon(1e-7));
}

TEST_CASE("gaussian grid: the AVX2 kernels give the baseline's bits, forward and backward") {
  if (!cpu::GaussianGrid::avx2_available()) {
    MESSAGE("skipped: this CPU has no AVX2");
    return;
  }
  for (const int64_t count : {int64_t(1), int64_t(50), int64_t(3000)}) {
    CAPTURE(count);
    const GaussianParams g = gaussian_params(count);
    const std::vector<float> p = grid_test_gaussians(count, 5 + uint64_t(count));
    const int64_t n = 4000;
    const std::vector<float> coords = test::uniform_values(size_t(2 * n), 6, 22, -1.2f, 1.2f);
    const std::vector<float> d_out = test::uniform_values(size_t(n * k_gaussian_channels), 7, 23, -1.0f, 1.0f);
    const test::GridPasses base = test::cpu_grid_passes(g, p, coords, n, d_out, false);
    const test::GridPasses avx2 = test::cpu_grid_passes(g, p, coords, n, d_out, true);
    CHECK(test::same_bits(base.out, avx2.out));
    CHECK(test::same_bits(base.grads, avx2.grads));
    size_t seen = 0;
    for (float v : base.out) seen += v != 0.0f;
    CHECK(seen > base.out.size() / 4); // the samples meet Gaussians
  }
}

TEST_CASE("gaussian grid: the CPU encoding bins at the step's start and bins again when the floats move") {
  EncodingSpec enc;
  enc.kind = EncodingKind::Gaussians;
  enc.gaussians = 400;
  const GaussianParams g = gaussian_params(enc.gaussians);
  std::vector<float> p = grid_test_gaussians(enc.gaussians, 9);
  const int64_t n = 2000;
  const std::vector<float> coords = test::uniform_values(size_t(2 * n), 10, 22, -1.0f, 1.0f);
  auto fresh = [&](const std::vector<float>& params) {
    std::vector<float> out(size_t(n * k_gaussian_channels));
    gaussian_encode_rows(g, params.data(), coords.data(), n, out.data());
    return out;
  };
  auto encoding = cpu::cpu_trained_encoding(enc);
  REQUIRE(encoding);
  std::vector<float> out(size_t(n * k_gaussian_channels));
  encoding->step_begins(p.data());
  encoding->encode(p.data(), coords.data(), n, out.data());
  CHECK(out == fresh(p));
  // An update moves every mean a bin's width (as the optimizer does after the step's passes):
  // the next call must see them where they are now, not in the bins of the step's start.
  const std::vector<float> before = out;
  for (int64_t i = 0; i < enc.gaussians; ++i) p[size_t(i * k_gaussian_floats + k_gauss_mx)] += 2.0f / float(g.bins);
  encoding->encode(p.data(), coords.data(), n, out.data());
  CHECK(out == fresh(p));
  CHECK(out != before);
  encoding->parameters_replaced();
  encoding->encode(p.data(), coords.data(), n, out.data());
  CHECK(out == fresh(p));
}
