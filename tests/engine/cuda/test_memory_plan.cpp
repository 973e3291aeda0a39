// The CUDA backend's memory arithmetic (cuda/memory_plan.h), checked on the CPU against
// hand-computed cases.
#include "cuda/memory_plan.h"

#include <doctest/doctest.h>

using namespace redraw::cuda;

namespace {
constexpr uint64_t MiB = uint64_t(1) << 20;
TrainingMemoryInput input(uint64_t free_b, uint64_t reserved, uint64_t used) {
  TrainingMemoryInput in;
  in.device_free = free_b;
  in.pool_reserved = reserved;
  in.pool_used = used;
  in.dataset_bytes = 10 * MiB;
  in.param_bytes = 2 * MiB;
  in.encoded_bytes = 100 * MiB;
  in.encoding_cacheable = true;
  in.max_rows = int64_t(1) << 18;
  in.min_rows = int64_t(1) << 12;
  in.chunk_bytes = [](int64_t rows) { return uint64_t(rows) * 4096; }; // 4 KiB of activations per row
  return in;
}
} // namespace

TEST_CASE("memory plan: memory a replaced run left cached in the shared pool counts as available") {
  // 8 GiB device: 3 GiB free, the pool holds 5 GiB of which 1 GiB is a live run's.
  const auto p = plan_training_memory(input(3072 * MiB, 5120 * MiB, 1024 * MiB));
  CHECK(p.available == 7168 * MiB);
  // Counting only the free bytes (the old planner with a pool per backend) would see 3 GiB.
  CHECK(plan_training_memory(input(3072 * MiB, 0, 0)).available == 3072 * MiB);
  CHECK(pool_cached_bytes(10, 20) == 0); // never negative
}

TEST_CASE("memory plan: the largest chunk that fits, the encoding cached only when it pays") {
  auto p = plan_training_memory(input(4096 * MiB, 0, 0));
  CHECK(p.cache_encoding);
  CHECK(p.fixed == 112 * MiB);
  CHECK(p.chunk_rows == (int64_t(1) << 18)); // 1 GiB of activations fits in 90% of 4 GiB
  CHECK(p.needed == 112 * MiB + 1024 * MiB);
  CHECK(p.fits);

  // 600 MiB: the chunk halves until fixed + chunk <= 540 MiB: 2^16 rows (256 MiB) + 112 MiB.
  p = plan_training_memory(input(600 * MiB, 0, 0));
  CHECK(p.cache_encoding); // 112 MiB < 300 MiB
  CHECK(p.chunk_rows == (int64_t(1) << 16));
  CHECK(p.fits);

  // 200 MiB: caching would take over half, so it is off; then 2^15 rows (128 MiB) + 12 MiB <= 180 MiB.
  p = plan_training_memory(input(200 * MiB, 0, 0));
  CHECK_FALSE(p.cache_encoding);
  CHECK(p.fixed == 12 * MiB);
  CHECK(p.chunk_rows == (int64_t(1) << 15));
  CHECK(p.fits);

  // Too little even at the smallest chunk: says so, with the bytes it needs.
  p = plan_training_memory(input(20 * MiB, 0, 0));
  CHECK(p.chunk_rows == (int64_t(1) << 12));
  CHECK(p.needed == 12 * MiB + 16 * MiB);
  CHECK_FALSE(p.fits);
}

TEST_CASE("memory plan: small datasets use one chunk of their own size") {
  auto in = input(4096 * MiB, 0, 0);
  in.max_rows = 40000;
  const auto p = plan_training_memory(in);
  CHECK(p.chunk_rows == 40000);
}

TEST_CASE("memory plan: render tiles are large, bounded by memory, and never exceed the image") {
  const int64_t lo = int64_t(1) << 16, hi = int64_t(1) << 22;
  // A 16384^2 render with 2 KiB per pixel of activations on a roomy device: 2^22-pixel tiles (64 tiles).
  const int64_t big = int64_t(16384) * 16384;
  const int64_t t = render_tile_rows(big, 2048, uint64_t(40) << 30, lo, hi);
  CHECK(t == hi);
  CHECK((big + t - 1) / t == 64);
  // The training-sized tile of a 200x200 model would have been 40,000 pixels: 6,711 tiles.
  CHECK((big + 40000 - 1) / 40000 == 6711);
  // Short of memory: the largest power of two within a quarter of it, but not below the floor.
  CHECK(render_tile_rows(big, 2048, uint64_t(1) << 30, lo, hi) == (int64_t(1) << 17));
  CHECK(render_tile_rows(big, 2048, uint64_t(1) << 20, lo, hi) == lo);
  // A small image is one tile.
  CHECK(render_tile_rows(256 * 256, 2048, uint64_t(40) << 30, lo, hi) == 256 * 256);
}
