#include "cpu/cpu_hash_grid.h"
#include "cpu/cpu_family_encoders.h"

#include "cpu/cpu_kernels.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <type_traits>

namespace redraw {

namespace {
/// Rows ahead whose table entries are fetched while the current row is computed: a fine level's
/// lookups are cache misses scattered over the table, and the prefetches let several be in flight.
constexpr int64_t k_prefetch_rows = 8;

/// The corners of rows [r0, r1) at level l, each computed once and its entries prefetched
/// k_prefetch_rows rows before `use(i, entries, weights)` reads them, in row order. The entries
/// are counted from `base` (0: the whole table's; g.offset[l]: the level's own), as `table` is.
template <int F, bool ForWrite, class Use>
void level_rows_prefetched(const HashGridParams& g, int32_t l, const float* coords, int64_t r0, int64_t r1,
                           const float* table, uint32_t base, Use&& use) {
  uint32_t ring_e[k_prefetch_rows][4];
  float ring_w[k_prefetch_rows][4];
  const auto fetch = [&](int64_t i) {
    uint32_t* e = ring_e[i % k_prefetch_rows];
    hash_grid_corners<float>(g, l, coords[2 * i], coords[2 * i + 1], e, ring_w[i % k_prefetch_rows]);
    for (int c = 0; c < 4; ++c) {
      e[c] -= base;
      __builtin_prefetch(table + size_t(e[c]) * F, ForWrite ? 1 : 0);
    }
  };
  for (int64_t i = r0; i < std::min(r1, r0 + k_prefetch_rows); ++i)
    fetch(i);
  for (int64_t i = r0; i < r1; ++i) {
    uint32_t e[4];
    float w[4];
    std::copy_n(ring_e[i % k_prefetch_rows], 4, e);
    std::copy_n(ring_w[i % k_prefetch_rows], 4, w);
    if (i + k_prefetch_rows < r1) fetch(i + k_prefetch_rows); // into the slot just read
    use(i, e, w);
  }
}

/// One level's outputs for rows [r0, r1), with F a compile-time constant, one row at a time.
template <int F>
void encode_level_rows_one_by_one(const HashGridParams& g, int32_t l, const float* table, const float* coords,
                                  int64_t r0, int64_t r1, int32_t width, float* out) {
  level_rows_prefetched<F, false>(g, l, coords, r0, r1, table, 0, [&](int64_t i, const uint32_t* e, const float* w) {
    float* o = out + i * width + l * F;
    for (int f = 0; f < F; ++f) {
      float v = 0.0f;
      for (int c = 0; c < 4; ++c)
        v += w[c] * table[size_t(e[c]) * F + size_t(f)];
      o[f] = v;
    }
  });
}

/// One level's outputs for rows [r0, r1): eight rows at a time where the CPU has AVX2, the rest
/// (and every row elsewhere) one by one. Level by level over a block of rows keeps one level's
/// table (up to 2^17 entries x F floats) in cache at a time.
template <int F>
void encode_level_rows(const HashGridParams& g, int32_t l, const float* table, const float* coords, int64_t r0,
                       int64_t r1, int32_t width, float* out) {
  if (hash_grid_detail::passes_use_avx2(g))
    r0 = hash_grid_detail::encode_level_rows_avx2(g, l, table, coords, r0, r1, width, out);
  encode_level_rows_one_by_one<F>(g, l, table, coords, r0, r1, width, out);
}

template <int F>
void encode_all(const HashGridParams& g, const float* table, const float* coords, int64_t n, float* out) {
  constexpr int64_t k_block = 512;
  const int32_t width = g.n_levels * F;
#pragma omp parallel for schedule(static)
  for (int64_t blk = 0; blk < (n + k_block - 1) / k_block; ++blk) {
    const int64_t r0 = blk * k_block, r1 = std::min(n, r0 + k_block);
    for (int32_t l = 0; l < g.n_levels; ++l)
      encode_level_rows<F>(g, l, table, coords, r0, r1, width, out);
  }
}

template <int F>
void encode_level(const HashGridParams& g, int32_t l, const float* table, const float* coords, int64_t n, float* out) {
  constexpr int64_t k_block = 512;
  const int32_t width = g.n_levels * F;
#pragma omp parallel for schedule(static)
  for (int64_t blk = 0; blk < (n + k_block - 1) / k_block; ++blk) {
    const int64_t r0 = blk * k_block;
    encode_level_rows<F>(g, l, table, coords, r0, std::min(n, r0 + k_block), width, out);
  }
}

/// Level l's additions into its own gradients (level_grad[0] is entry g.offset[l]'s) for rows
/// [r0, r1), one row at a time.
template <int F>
void backward_level_rows_one_by_one(const HashGridParams& g, int32_t l, const float* coords, const float* d_out,
                                    int64_t r0, int64_t r1, int32_t width, float* level_grad) {
  level_rows_prefetched<F, true>(g, l, coords, r0, r1, level_grad, g.offset[l],
                                 [&](int64_t i, const uint32_t* e, const float* w) {
                                   const float* d = d_out + i * width + l * F;
                                   for (int c = 0; c < 4; ++c)
                                     for (int f = 0; f < F; ++f)
                                       level_grad[size_t(e[c]) * F + size_t(f)] += w[c] * d[f];
                                 });
}

/// Level l's additions for all n rows, in row order: eight rows at a time where the CPU has AVX2.
template <int F>
void backward_level(const HashGridParams& g, int32_t l, const float* coords, const float* d_out, int64_t n,
                    int32_t width, float* level_grad) {
  int64_t r0 = 0;
  if (hash_grid_detail::passes_use_avx2(g))
    r0 = hash_grid_detail::backward_level_rows_avx2(g, l, coords, d_out, 0, n, width, level_grad);
  backward_level_rows_one_by_one<F>(g, l, coords, d_out, r0, n, width, level_grad);
}

template <int F>
void backward_all(const HashGridParams& g, const float* coords, const float* d_out, int64_t n, float* table_grad,
                  bool accumulate) {
  const int32_t width = g.n_levels * F;
  // Each level belongs to one thread for the whole pass (dynamic: the levels' costs differ with
  // their cache behaviour); the result does not depend on which thread.
#pragma omp parallel for schedule(dynamic, 1)
  for (int32_t l = 0; l < g.n_levels; ++l) {
    float* begin = table_grad + size_t(g.offset[l]) * F;
    if (!accumulate) std::fill(begin, table_grad + size_t(g.offset[l + 1]) * F, 0.0f);
    backward_level<F>(g, l, coords, d_out, n, width, begin);
  }
}
} // namespace

namespace hash_grid_detail {
void encode_level_rows_scalar(const HashGridParams& g, int32_t l, const float* table, const float* coords, int64_t r0,
                              int64_t r1, int32_t width, float* out) {
  hash_grid_detail::with_features(g.n_features, [&](auto f) {
    encode_level_rows_one_by_one<decltype(f)::value>(g, l, table, coords, r0, r1, width, out);
  });
}

void backward_level_rows_scalar(const HashGridParams& g, int32_t l, const float* coords, const float* d_out, int64_t r0,
                                int64_t r1, int32_t width, float* level_grad) {
  hash_grid_detail::with_features(g.n_features, [&](auto f) {
    backward_level_rows_one_by_one<decltype(f)::value>(g, l, coords, d_out, r0, r1, width, level_grad);
  });
}

bool avx2_in_use() {
  static const bool use = avx2_available() && std::strcmp(cpu_kernels().isa, "sse2") != 0;
  return use;
}

bool passes_use_avx2(const HashGridParams& g) {
  // The gathers index the table with 32-bit signed offsets.
  return avx2_in_use() && uint64_t(hash_grid_entries(g)) * uint64_t(g.n_features) < (uint64_t(1) << 31);
}
} // namespace hash_grid_detail

void hash_grid_encode_rows(const HashGridParams& g, const float* table, const float* coords, int64_t n, float* out) {
  hash_grid_detail::with_features(g.n_features,
                                  [&](auto f) { encode_all<decltype(f)::value>(g, table, coords, n, out); });
}

void hash_grid_encode_level(const HashGridParams& g, int32_t l, const float* table, const float* coords, int64_t n,
                            float* out) {
  hash_grid_detail::with_features(g.n_features,
                                  [&](auto f) { encode_level<decltype(f)::value>(g, l, table, coords, n, out); });
}

void hash_grid_backward_level(const HashGridParams& g, int32_t l, const float* coords, const float* d_out, int64_t n,
                              float* level_grad) {
  hash_grid_detail::with_features(g.n_features, [&](auto f) {
    constexpr int F = decltype(f)::value;
    backward_level<F>(g, l, coords, d_out, n, g.n_levels * F, level_grad);
  });
}

void hash_grid_backward_rows(const HashGridParams& g, const float* coords, const float* d_out, int64_t n,
                             float* table_grad, bool accumulate) {
  hash_grid_detail::with_features(
      g.n_features, [&](auto f) { backward_all<decltype(f)::value>(g, coords, d_out, n, table_grad, accumulate); });
}

namespace {
class CpuHashGridEncoding final : public cpu::CpuTrainedEncoding {
public:
  explicit CpuHashGridEncoding(const EncodingSpec& enc) : m_grid(hash_grid_params(enc)) {}
  void encode(const float* params, const float* coords, int64_t n, float* out) override {
    hash_grid_encode_rows(m_grid, params, coords, n, out);
  }
  void backward(const float*, const float* coords, const float* d_out, int64_t n, float* grads,
                bool accumulate) override {
    hash_grid_backward_rows(m_grid, coords, d_out, n, grads, accumulate); // linear in the table: it needs no values
  }
  const HashGridParams* deferred_levels() const override { return &m_grid; }

private:
  HashGridParams m_grid;
};
} // namespace

std::unique_ptr<cpu::CpuTrainedEncoding> make_cpu_hash_grid_encoding(const EncodingSpec& enc) {
  return std::make_unique<CpuHashGridEncoding>(enc);
}

} // namespace redraw
