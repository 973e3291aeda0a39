// The GPU's one-thread-per-sample hash-grid encoding, as shared host/device code
// (engine/hash_grid_math.h: hash_grid_encode_sample and hash_grid_encode_row, which the CUDA kernel
// runs with 16-byte stores), checked on the CPU against the CPU backend's level-by-level encoder
// (bit for bit: the same sums in the same order) and a float64 evaluation; the CPU's AVX2 passes
// against its scalar ones; and the switch between the GPU's kernels (cuda/hash_grid_choice.h).
#include "cuda/hash_grid_choice.h"
#include "cpu/cpu_hash_grid.h"
#include "engine/hash_grid_math.h"
#include "engine/model_spec.h"
#include "engine/rng_math.h"
#include "test_support.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

using namespace redraw;

namespace {

// per_level_scale 1.5: 4 .. 1750 cells per side over 16 levels
EncodingSpec grid(int32_t levels, int32_t features) { return test::hash_grid_spec(levels, features, 10, 4); }

/// Rows the way the GPU kernel writes them: four outputs per store, then the remainder.
template <int F>
std::vector<float> encode_rows_grouped(const HashGridParams& g, const std::vector<float>& table,
                                       const std::vector<float>& coords, int64_t n, std::vector<int>& writes) {
  const int32_t width = g.n_levels * F;
  std::vector<float> out(size_t(n) * size_t(width), NAN);
  writes.assign(out.size(), 0);
  auto load = [&](uint32_t entry, int f) { return table[size_t(entry) * F + size_t(f)]; };
  for (int64_t i = 0; i < n; ++i) {
    float* row = out.data() + i * width;
    int* w = writes.data() + i * width;
    hash_grid_encode_row<F, float>(
        g, coords[size_t(2 * i)], coords[size_t(2 * i + 1)], load,
        [&](int32_t k, float a, float b, float c, float d) {
          CHECK(k % 4 == 0);
          const float v[4] = {a, b, c, d};
          for (int j = 0; j < 4; ++j) {
            row[k + j] = v[j];
            ++w[k + j];
          }
        },
        [&](int32_t k, float v) {
          CHECK(k >= (width & ~3));
          row[k] = v;
          ++w[k];
        });
  }
  return out;
}

template <int F> void check_features(int32_t levels) {
  CAPTURE(F);
  CAPTURE(levels);
  const EncodingSpec e = grid(levels, F);
  const HashGridParams g = hash_grid_params(e);
  const int64_t n = 333;
  std::vector<float> coords(size_t(n) * 2), table(size_t(encoding_parameter_count(e)));
  for (size_t i = 0; i < coords.size(); ++i)
    coords[i] = float(2 * random_unit(21, 1, i) - 1);
  coords[0] = -1.0f; // the image's corners: the last cell of every level
  coords[1] = 1.0f;
  for (size_t i = 0; i < table.size(); ++i)
    table[i] = float(2 * random_unit(22, 2, i) - 1);
  std::vector<int> writes;
  const std::vector<float> got = encode_rows_grouped<F>(g, table, coords, n, writes);
  for (int w : writes)
    REQUIRE(w == 1); // every output written exactly once

  std::vector<float> want(got.size());
  hash_grid_encode_rows(g, table.data(), coords.data(), n, want.data());
  CHECK(got == want); // bit for bit: the CPU backend's level-major loop

  // And within float rounding of the same math in float64: float positions carry N * 2^-24-sized
  // errors into a level's fractions (N its cells per side), so up to 4 * N * 3e-7 for |table| <= 1
  // (the bound of test_hash_grid.cpp's corner weights, over four corners); a wrong entry is O(1).
  double worst = 0;
  auto load64 = [&](uint32_t entry, int f) { return double(table[size_t(entry) * F + size_t(f)]); };
  for (int64_t i = 0; i < n; ++i)
    hash_grid_encode_sample<F, double>(
        g, double(coords[size_t(2 * i)]), double(coords[size_t(2 * i + 1)]), load64,
        [&](int32_t k, double v) { worst = std::max(worst, std::abs(v - double(got[size_t(i * levels * F + k)]))); });
  CHECK(worst <= 1e-6 + 4 * 3e-7 * double(g.resolution[levels - 1]));
}

} // namespace

TEST_CASE("hash grid rows: the per-sample encoder writes every output once, as the CPU backend computes it") {
  // Row widths that are multiples of 4 and ones that leave a remainder of 1, 2 or 3.
  for (int32_t levels : {16, 5, 3, 1}) {
    check_features<1>(levels);
    check_features<2>(levels);
    check_features<4>(levels);
    check_features<8>(levels);
  }
}

TEST_CASE("hash grid kernels: the switch's names, defaults and errors") {
  using namespace redraw::cuda;
  const HashGridKernels d = parse_hash_grid_kernels(nullptr, nullptr);
  CHECK(d.encode == HashGridEncodeKernel::PerSample);
  CHECK(d.backward == HashGridBackwardKernel::SharedDense);
  const HashGridKernels k = parse_hash_grid_kernels("per-level", "warp-aggregated");
  CHECK(k.encode == HashGridEncodeKernel::PerLevel);
  CHECK(k.backward == HashGridBackwardKernel::WarpAggregated);
  CHECK(std::string(hash_grid_encode_kernel_name(k.encode)) == "per-level");
  CHECK(std::string(hash_grid_backward_kernel_name(k.backward)) == "warp-aggregated");
  CHECK(parse_hash_grid_kernels("per-sample", "atomic").encode == HashGridEncodeKernel::PerSample);
  CHECK(parse_hash_grid_kernels("", "").backward == HashGridBackwardKernel::SharedDense);
  CHECK(parse_hash_grid_kernels("", "per-sample").backward == HashGridBackwardKernel::PerSample);
  CHECK(parse_hash_grid_kernels(nullptr, "atomic").backward == HashGridBackwardKernel::Atomic);
  CHECK(std::string(hash_grid_backward_kernel_name(HashGridBackwardKernel::PerSample)) == "per-sample");
  CHECK_THROWS_WITH_AS(parse_hash_grid_kernels("fast", nullptr),
                       "REDRAW_HASH_GRID_ENCODE: 'fast' not found (known: per-sample, per-level)", ConfigError);
  CHECK_THROWS_AS(parse_hash_grid_kernels(nullptr, "sorted"), ConfigError);
  CHECK(d.half_features);
  CHECK_FALSE(parse_hash_grid_kernels(nullptr, nullptr, "fp32").half_features);
  CHECK(parse_hash_grid_kernels(nullptr, nullptr, "fp16").half_features);
  CHECK_THROWS_AS(parse_hash_grid_kernels(nullptr, nullptr, "bf16"), ConfigError);
}

namespace {
/// fn(e, g, features) for 16-level grids of 4 .. ~1750 cells per side over a 2^10 table (dense and
/// hashed levels), 1, 2, 4 and 8 features, linear and smoothstep; a visible skip without AVX2.
template <class Fn> void for_each_avx2_grid(Fn&& fn) {
  if (!hash_grid_detail::avx2_available()) {
    MESSAGE("SKIPPED: this CPU has no AVX2 (the scalar passes run everywhere)");
    return;
  }
  for (const GridInterpolation interp : {GridInterpolation::Linear, GridInterpolation::Smoothstep})
    for (const int32_t features : {1, 2, 4, 8}) {
      EncodingSpec e = grid(16, features);
      e.interpolation = interp;
      CAPTURE(features);
      CAPTURE(int(interp));
      fn(e, hash_grid_params(e), features);
    }
}

/// n random coordinates in [-1, 1)^2, interleaved.
std::vector<float> grid_coords(int64_t n, uint64_t seed) {
  std::vector<float> coords(size_t(n) * 2);
  for (size_t i = 0; i < coords.size(); ++i)
    coords[i] = float(2 * random_unit(seed, 1, i) - 1);
  return coords;
}
} // namespace

TEST_CASE("hash grid rows: the AVX2 encoder gives the scalar encoder's bits, at every level, width and tail") {
  for_each_avx2_grid([](const EncodingSpec& e, const HashGridParams& g, int32_t features) {
    // The backend's passes take this form here, unless REDRAW_SIMD asks for the scalar ones.
    const char* simd_env = std::getenv("REDRAW_SIMD");
    CHECK(hash_grid_detail::passes_use_avx2(g) == !(simd_env && std::string(simd_env) == "sse2"));
    const int64_t n = 203; // 25 groups of eight and a tail of three
    std::vector<float> coords = grid_coords(n, 31), table(size_t(encoding_parameter_count(e)));
    // The edges: the corners of the square, and points on cell boundaries of the finest level
    // (where floor and the last-cell clamp decide the cell).
    const float edges[] = {-1.0f, 1.0f, 0.0f, -0.5f, 0.5f, 1.0f - 1e-7f, -1.0f + 1e-7f, 2.0f / 1750.0f - 1.0f};
    for (size_t i = 0; i < std::size(edges); ++i) {
      coords[2 * i] = edges[i];
      coords[2 * i + 17] = edges[std::size(edges) - 1 - i];
    }
    for (size_t i = 0; i < table.size(); ++i)
      table[i] = float(2 * random_unit(32, 2, i) - 1);
    // Negative zeros in the four corners of level 0's first cell, which (-1, -1) reads: each
    // product is -0, and the sum must start from +0 as the scalar one does.
    std::fill_n(table.begin(), 8 * features, -0.0f);
    const int32_t width = g.n_levels * features;
    std::vector<float> simd(size_t(n) * size_t(width), NAN), scalar(simd.size(), NAN);
    for (int32_t l = 0; l < g.n_levels; ++l) {
      for (int64_t r0 : {int64_t(0), int64_t(5)}) { // aligned and unaligned starts
        const int64_t done =
            hash_grid_detail::encode_level_rows_avx2(g, l, table.data(), coords.data(), r0, n, width, simd.data());
        CHECK((n - done) < 8);
        CHECK((done - r0) % 8 == 0);
        hash_grid_detail::encode_level_rows_scalar(g, l, table.data(), coords.data(), done, n, width, simd.data());
        hash_grid_detail::encode_level_rows_scalar(g, l, table.data(), coords.data(), r0, n, width, scalar.data());
        for (int64_t i = r0; i < n; ++i)
          for (int32_t f = 0; f < features; ++f) {
            const size_t k = size_t(i * width + l * features + f);
            if (std::memcmp(&simd[k], &scalar[k], sizeof(float)) != 0) {
              CAPTURE(l);
              CAPTURE(i);
              CAPTURE(f);
              FAIL_CHECK("AVX2 " << simd[k] << " against scalar " << scalar[k]);
            }
          }
      }
    }
  });
}

TEST_CASE("hash grid rows: the AVX2 backward pass adds the scalar pass's products in its order, bit for bit") {
  for_each_avx2_grid([](const EncodingSpec& e, const HashGridParams& g, int32_t features) {
    const int64_t n = 333; // 41 groups of eight and a tail of five
    const int32_t width = g.n_levels * features;
    std::vector<float> coords = grid_coords(n, 41), d_out(size_t(n) * size_t(width));
    // Many rows in one cell of every level (rows of a group share entries: the order of the
    // additions into an entry decides its rounding).
    for (int64_t i = 0; i < 24; ++i) {
      coords[size_t(2 * i)] = 0.1f + 1e-6f * float(i);
      coords[size_t(2 * i + 1)] = -0.3f;
    }
    coords[0] = -1.0f;
    coords[1] = 1.0f;
    for (size_t i = 0; i < d_out.size(); ++i)
      d_out[i] = float(2 * random_unit(42, 2, i) - 1) * 1e-3f;
    std::vector<float> start(size_t(encoding_parameter_count(e)));
    for (size_t i = 0; i < start.size(); ++i)
      start[i] = float(random_unit(43, 3, i)) * 1e-2f;
    std::vector<float> simd = start, scalar = start;
    for (int32_t l = 0; l < g.n_levels; ++l) {
      // Each pass adds into the level's own gradients (its first entry at index 0).
      float* simd_level = simd.data() + size_t(g.offset[l]) * size_t(g.n_features);
      float* scalar_level = scalar.data() + size_t(g.offset[l]) * size_t(g.n_features);
      const int64_t done =
          hash_grid_detail::backward_level_rows_avx2(g, l, coords.data(), d_out.data(), 0, n, width, simd_level);
      CHECK(n - done == 5);
      hash_grid_detail::backward_level_rows_scalar(g, l, coords.data(), d_out.data(), done, n, width, simd_level);
      hash_grid_detail::backward_level_rows_scalar(g, l, coords.data(), d_out.data(), 0, n, width, scalar_level);
    }
    CHECK(simd != start);
    CHECK(std::memcmp(simd.data(), scalar.data(), simd.size() * sizeof(float)) == 0);
  });
}
