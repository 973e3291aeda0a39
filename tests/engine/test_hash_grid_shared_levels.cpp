// Which coarse levels the GPU's shared-dense hash-grid backward sums in a block's shared memory
// (cuda/hash_grid_shared_levels.h), against level sizes worked out by hand: instant's grid on a
// 512x512 image, the budget's boundary to the byte, a hashed level ending the run, a level over the
// budget on its own (none: the per-sample kernel runs), every level fitting; and that every corner
// a sample reaches on those levels lies inside the accumulator, whose floats mirror table_grad's.
#include "cuda/hash_grid_choice.h"
#include "cuda/hash_grid_shared_levels.h"
#include "engine/hash_grid_math.h"
#include "engine/model_spec.h"
#include "engine/rng_math.h"
#include "test_support.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace redraw;
using namespace redraw::cuda;

namespace {

constexpr uint64_t k_kib = 1024;

/// instant's encoding (assets/presets/instant.json) sized to a 512x512 image.
HashGridParams instant_512(int32_t log2_table = 0) {
  EncodingSpec e = test::hash_grid_spec(16, 2, 19, 16);
  e.auto_table_size = log2_table == 0;
  e.auto_finest_resolution = true;
  if (log2_table != 0) e.log2_hashmap_size = log2_table;
  size_hash_grid_to_image(e, 512, 512);
  return hash_grid_params(e);
}

} // namespace

TEST_CASE("hash grid shared levels: instant's five coarsest levels fit 48 KiB, the sixth would not") {
  for (int32_t log2_table : {0, 18, 19}) { // sized to the image (2^18), and tiny-cuda-nn's 2^19
    CAPTURE(log2_table);
    const HashGridParams g = instant_512(log2_table);
    // N_l = floor(16 * 2^(l/3)): 16, 20, 25, 32, 40, 50 cells; (N + 1)^2 vertices each, all dense.
    const uint32_t vertices[] = {289, 441, 676, 1089, 1681, 2601};
    uint32_t sum = 0;
    for (int32_t l = 0; l < 6; ++l) {
      CAPTURE(l);
      CHECK(g.dense[l] == 1u);
      CHECK(g.offset[l] == sum);
      sum += vertices[l];
    }
    CHECK(hash_grid_shared_levels(g, k_hash_grid_shared_budget) == 5);
    CHECK(hash_grid_shared_bytes(g, 5) == 4176u * 2u * 4u); // 33,408 bytes
    CHECK(hash_grid_shared_bytes(g, 6) == 6777u * 2u * 4u); // 54,216: over 48 KiB
    CHECK(hash_grid_shared_levels(g, 6777u * 8u) == 6);
  }
  CHECK(k_hash_grid_shared_budget == 48 * k_kib);
}

TEST_CASE("hash grid shared levels: the budget's boundary, to the byte") {
  // T = 2^12, N_l = floor(8 * 1.5^l): 8, 12, 18, 27, 40, 60, 91 cells; 81, 169, 361, 784, 1681,
  // 3721 vertices (dense), then 8464 (> 4096: hashed). Levels 0-4 hold 3076 entries.
  const EncodingSpec e4 = test::hash_grid_spec(16, 4, 12, 8);
  const HashGridParams g = hash_grid_params(e4);
  REQUIRE(g.offset[5] == 3076u);
  CHECK(g.dense[5] == 1u);
  CHECK(g.dense[6] == 0u);
  const uint64_t five = 3076u * 4u * 4u; // 49,216 bytes: 64 over 48 KiB
  CHECK(hash_grid_shared_bytes(g, 5) == five);
  CHECK(hash_grid_shared_levels(g, five) == 5);
  CHECK(hash_grid_shared_levels(g, five - 1) == 4);
  CHECK(hash_grid_shared_levels(g, k_hash_grid_shared_budget) == 4);
  CHECK(hash_grid_shared_bytes(g, 4) == 1395u * 16u);
  // The same grid at 1, 2 and 8 features per level under 48 KiB.
  CHECK(hash_grid_shared_levels(hash_grid_params(test::hash_grid_spec(16, 1, 12, 8)), k_hash_grid_shared_budget) == 6);
  CHECK(hash_grid_shared_levels(hash_grid_params(test::hash_grid_spec(16, 2, 12, 8)), k_hash_grid_shared_budget) == 5);
  CHECK(hash_grid_shared_levels(hash_grid_params(test::hash_grid_spec(16, 8, 12, 8)), k_hash_grid_shared_budget) == 4);
  CHECK(hash_grid_shared_levels(g, 0) == 0);
}

TEST_CASE("hash grid shared levels: a hashed level ends the run; none fit falls back; all may fit") {
  // T = 2^10, N_l = floor(4 * 1.5^l): 4, 6, 9, 13, 20, 30, 45 cells; level 6 (2116 vertices) is hashed.
  const HashGridParams g = hash_grid_params(test::hash_grid_spec(16, 1, 10, 4));
  REQUIRE(g.dense[5] == 1u);
  REQUIRE(g.dense[6] == 0u);
  CHECK(hash_grid_shared_levels(g, uint64_t(1) << 40) == 6); // budget to spare: the hashed level stops it
  // Level 0 hashed (33^2 vertices over a table of 2^10): nothing to sum, whatever the budget.
  const HashGridParams hashed = hash_grid_params(test::hash_grid_spec(4, 2, 10, 32));
  REQUIRE(hashed.dense[0] == 0u);
  CHECK(hash_grid_shared_levels(hashed, uint64_t(1) << 40) == 0);
  // Level 0 alone over the budget (25 entries x 8 features x 4 bytes = 800).
  const HashGridParams wide = hash_grid_params(test::hash_grid_spec(3, 8, 10, 4));
  CHECK(hash_grid_shared_levels(wide, 799) == 0);
  CHECK(hash_grid_shared_levels(wide, 800) == 1);
  // Three dense levels that all fit: the run ends at n_levels.
  CHECK(hash_grid_shared_levels(wide, k_hash_grid_shared_budget) == 3);
  CHECK(hash_grid_shared_bytes(wide, 3) == (25u + 49u + 100u) * 8u * 4u);
}

TEST_CASE("hash grid shared levels: every corner a sample reaches on them lies inside the accumulator") {
  std::vector<HashGridParams> grids{instant_512()};
  for (int32_t f : {1, 2, 4, 8})
    grids.push_back(hash_grid_params(test::hash_grid_spec(16, f, 12, 8)));
  for (const HashGridParams& g : grids) {
    CAPTURE(g.n_features);
    const int32_t k = hash_grid_shared_levels(g, k_hash_grid_shared_budget);
    REQUIRE(k > 0);
    const uint32_t entries = g.offset[k];
    int64_t outside = 0; // corners off their level or past the accumulator
    for (int32_t l = 0; l < k; ++l) {
      // the corners of the domain, then random points
      for (int i = 0; i < 2000; ++i) {
        const float x = i < 4 ? float(i % 2) * 2.0f - 1.0f : float(2 * random_unit(7, 1, uint64_t(i)) - 1);
        const float y = i < 4 ? float(i / 2) * 2.0f - 1.0f : float(2 * random_unit(7, 2, uint64_t(i)) - 1);
        uint32_t e[4];
        float w[4];
        hash_grid_corners<float>(g, l, x, y, e, w);
        for (int c = 0; c < 4; ++c)
          outside += e[c] < g.offset[l] || e[c] >= g.offset[l + 1];
      }
    }
    CHECK(outside == 0);
    CHECK(g.offset[k - 1] < entries);
    // Coordinates (1, 1) reach the last vertex of level k - 1, the accumulator's last entry.
    uint32_t e[4];
    float w[4];
    hash_grid_corners<float>(g, k - 1, 1.0f, 1.0f, e, w);
    CHECK(e[3] == entries - 1);
  }
}

TEST_CASE("hash grid shared levels: the switch names the shared-dense backward") {
  const HashGridKernels k = parse_hash_grid_kernels(nullptr, "shared-dense");
  CHECK(k.backward == HashGridBackwardKernel::SharedDense);
  CHECK(std::string(hash_grid_backward_kernel_name(k.backward)) == "shared-dense");
  CHECK(parse_hash_grid_kernels(nullptr, nullptr).backward == HashGridBackwardKernel::PerSample); // still the default
  CHECK_THROWS_WITH_AS(parse_hash_grid_kernels(nullptr, "shared"),
                       "REDRAW_HASH_GRID_BACKWARD: 'shared' not found (known: per-sample, atomic, warp-aggregated, "
                       "shared-dense)",
                       ConfigError);
}
