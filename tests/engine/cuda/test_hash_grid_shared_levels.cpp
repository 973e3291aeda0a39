// Which coarse levels the GPU's shared-dense hash-grid backward sums in a block's shared memory
// (cuda/hash_grid_shared_levels.h), against level sizes worked out by hand: instant's grid on a
// 512x512 image, the budget's boundary to the byte, a hashed level ending the run, a level over the
// budget on its own (none: the per-sample kernel runs), every level fitting; that every corner
// a sample reaches on those levels lies inside the accumulator, whose floats are table_grad's laid
// out feature-major, one feature's entries across all 32 banks; and the grid of persistent blocks,
// several samples per thread.
#include "cuda/hash_grid_choice.h"
#include "cuda/hash_grid_shared_levels.h"
#include "engine/hash_grid_math.h"
#include "engine/model_spec.h"
#include "engine/rng_math.h"
#include "test_support.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>
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
    // Feature-major: every (entry, feature) of the accumulator has its own float, and no other.
    std::vector<int32_t> hits(size_t(entries) * size_t(g.n_features), 0);
    for (uint32_t en = 0; en < entries; ++en)
      for (int32_t f = 0; f < g.n_features; ++f) {
        const uint32_t i = hash_grid_shared_index(entries, en, f);
        REQUIRE(i < hits.size());
        ++hits[i];
      }
    CHECK(std::count(hits.begin(), hits.end(), 1) == int64_t(hits.size()));
    // Coordinates (1, 1) reach the last vertex of level k - 1, the accumulator's last entry.
    uint32_t e[4];
    float w[4];
    hash_grid_corners<float>(g, k - 1, 1.0f, 1.0f, e, w);
    CHECK(e[3] == entries - 1);
  }
}

TEST_CASE("hash grid shared levels: one feature of 32 consecutive entries falls in 32 banks, not 16") {
  const HashGridParams g = instant_512(); // 2 features
  const uint32_t entries = g.offset[hash_grid_shared_levels(g, k_hash_grid_shared_budget)];
  for (int32_t f : {0, 1}) {
    CAPTURE(f);
    for (uint32_t first : {0u, 17u, entries - 32u}) {
      std::set<uint32_t> feature_major, entry_major; // banks: 4-byte words mod 32
      for (uint32_t en = first; en < first + 32; ++en) {
        feature_major.insert(hash_grid_shared_index(entries, en, f) % 32u);
        entry_major.insert((en * 2u + uint32_t(f)) % 32u); // the layout before: half the banks
      }
      CHECK(feature_major.size() == 32);
      CHECK(entry_major.size() == 16);
    }
  }
  CHECK(hash_grid_shared_index(entries, 5, 1) == entries + 5);
}

TEST_CASE("hash grid shared levels: a few persistent blocks per SM, several samples per thread") {
  // instant's batch on an H100 (132 SMs, 4 blocks of 48 KiB resident): 128 blocks of 4 x 512
  // samples, where one sample per thread took 512 blocks.
  const int64_t batch = int64_t(1) << 18;
  CHECK(hash_grid_shared_blocks(batch, 512, 132, 4) == 128);
  CHECK(batch / (128 * 512) == k_hash_grid_shared_samples_per_thread);
  // More samples: capped at 2 blocks per SM, each thread then takes more (600,001: 4.4 each).
  CHECK(hash_grid_shared_blocks(600001, 512, 132, 4) == 264);
  CHECK(hash_grid_shared_blocks(int64_t(1) << 22, 512, 132, 4) == 264);
  // Fewer resident blocks than the cap: that many per SM.
  CHECK(hash_grid_shared_blocks(int64_t(1) << 22, 512, 132, 1) == 132);
  CHECK(hash_grid_shared_blocks(int64_t(1) << 22, 512, 132, 0) == 132); // occupancy said none: one
  // Few samples: at least one block; 5000 samples: 3 blocks, the last thread round partly filled.
  CHECK(hash_grid_shared_blocks(1, 512, 132, 4) == 1);
  CHECK(hash_grid_shared_blocks(0, 512, 132, 4) == 1);
  CHECK(hash_grid_shared_blocks(5000, 512, 132, 4) == 3);
  CHECK(hash_grid_shared_blocks(5000, 512, 0, 4) == 2); // no SM count: one SM's worth
  CHECK(k_hash_grid_shared_blocks_per_sm == 2);
}

TEST_CASE("hash grid shared levels: the switch names the shared-dense backward, the default, and per-sample") {
  const HashGridKernels k = parse_hash_grid_kernels(nullptr, "shared-dense");
  CHECK(k.backward == HashGridBackwardKernel::SharedDense);
  CHECK(std::string(hash_grid_backward_kernel_name(k.backward)) == "shared-dense");
  CHECK(parse_hash_grid_kernels(nullptr, nullptr).backward == HashGridBackwardKernel::SharedDense); // the default
  CHECK(parse_hash_grid_kernels(nullptr, "").backward == HashGridBackwardKernel::SharedDense);
  CHECK(parse_hash_grid_kernels(nullptr, "per-sample").backward == HashGridBackwardKernel::PerSample);
  CHECK(parse_hash_grid_kernels(nullptr, "atomic").backward == HashGridBackwardKernel::Atomic);
  CHECK_THROWS_WITH_AS(parse_hash_grid_kernels(nullptr, "shared"),
                       "REDRAW_HASH_GRID_BACKWARD: 'shared' not found (known: shared-dense, per-sample, atomic, "
                       "warp-aggregated)",
                       ConfigError);
}
