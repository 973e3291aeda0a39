// The resolved grid the benchmarks record (engine/hash_grid_summary.h), against level sizes worked
// out by hand: the instant preset as a user's 512x512 run sizes it, and as the benchmarks trained it
// before they sized it (the preset's auto fields at their defaults).
#include "engine/hash_grid_summary.h"
#include "engine/errors.h"
#include "engine/run_config.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>

using namespace redraw;

namespace {

/// Rows of a dense level of N cells per side: (N + 1)^2 vertices.
int64_t dense_rows(int64_t n) { return (n + 1) * (n + 1); }

} // namespace

TEST_CASE("hash grid summary: instant sized to a 512x512 image, as a user's run") {
  RunConfig cfg = load_preset("instant");
  size_hash_grid_to_image(cfg.model.encoding, 512, 512);
  const HashGridSummary s = summarize_hash_grid(cfg.model.encoding);
  // 2^18 pixels: 2^18 rows per level; finest 512 cells, so the scale is 32^(1/15) and N_l =
  // floor(16 * 2^(l/3)); every level up to 406 cells fits 2^18 rows, 512 (513^2 = 263169) does not.
  const int64_t cells[] = {16, 20, 25, 32, 40, 50, 64, 80, 101, 128, 161, 203, 256, 322, 406};
  int64_t rows = int64_t(1) << 18; // the finest, hashed level
  for (int64_t n : cells) rows += dense_rows(n);
  CHECK(s.levels == 16);
  CHECK(s.dense_levels == 15);
  CHECK(s.features_per_level == 2);
  CHECK(s.log2_hashmap_size == 18);
  CHECK(s.base_resolution == 16);
  CHECK(s.finest_resolution == 512);
  CHECK(s.per_level_scale == doctest::Approx(std::pow(32.0, 1.0 / 15.0)).epsilon(1e-12));
  CHECK(s.entries == rows);
  CHECK(s.entries == 710'639); // 0.71 M rows
  CHECK(describe_hash_grid(s) ==
        "16 levels (15 dense) x 2 features, 2^18 rows per hashed level, scale 1.2599, 16 to 512 cells, 710639 rows");
}

TEST_CASE("hash grid summary: instant unsized, the grid the benchmarks trained before") {
  const HashGridSummary s = summarize_hash_grid(load_preset("instant").model.encoding);
  // 2^17 rows, scale 1.5: N_l = floor(16 * 1.5^l); up to 273 cells (274^2 = 75076) dense, from 410 hashed.
  const int64_t cells[] = {16, 24, 36, 54, 81, 121, 182, 273};
  int64_t rows = 8 * (int64_t(1) << 17);
  for (int64_t n : cells) rows += dense_rows(n);
  CHECK(s.levels == 16);
  CHECK(s.dense_levels == 8);
  CHECK(s.log2_hashmap_size == 17);
  CHECK(s.per_level_scale == 1.5);
  CHECK(s.finest_resolution == 7006); // floor(16 * 1.5^15)
  CHECK(s.entries == rows);
  CHECK(s.entries == 1'184'057); // 1.18 M rows
}

TEST_CASE("hash grid summary: a spec without a grid is refused") {
  EncodingSpec e;
  e.kind = EncodingKind::Fourier;
  CHECK_THROWS_AS(summarize_hash_grid(e), ConfigError);
}
