// The hash grid's encoding of a level, and its backward pass, eight rows at a time with AVX2
// (cpu/cpu_hash_grid.h).
// Built for the x86-64 baseline like the rest of the engine: only the function marked
// target("avx2") uses AVX2, and it is called only where the CPU has it. It computes what
// hash_grid_corners and hash_grid_encode_level compute for one row, lane by lane, with the same
// IEEE operations in the same order (no FMA: "avx2" alone does not enable it), so both give the
// same bits for every finite coordinate.
#include "cpu/cpu_hash_grid.h"

#include <immintrin.h>

#include <algorithm>

namespace redraw::hash_grid_detail {
namespace {

constexpr int k_lanes = 8;

/// Corners and weights of eight rows: entries[c] (table entry of corner c) and weights[c], in
/// hash_grid_corners' order (00, 10, 01, 11).
struct Corners8 {
  __m256i entries[4];
  __m256 weights[4];
};

struct LevelConstants {
  __m256 one, half, zero, two, three, cells, last_cell;
  __m256i offset, mask, stride, prime, ione;
  bool dense, smooth;
};

/// local: entries counted from the level's first (its own gradient buffer) instead of the table's.
__attribute__((target("avx2"))) LevelConstants level_constants(const HashGridParams& g, int32_t l, bool local = false) {
  LevelConstants k;
  const uint32_t n = g.resolution[l];
  k.one = _mm256_set1_ps(1.0f);
  k.half = _mm256_set1_ps(0.5f);
  k.zero = _mm256_setzero_ps();
  k.two = _mm256_set1_ps(2.0f);
  k.three = _mm256_set1_ps(3.0f);
  k.cells = _mm256_set1_ps(float(n));
  k.last_cell = _mm256_set1_ps(float(n - 1));
  k.offset = _mm256_set1_epi32(local ? 0 : int(g.offset[l]));
  k.mask = _mm256_set1_epi32(int(g.hash_mask));
  k.stride = _mm256_set1_epi32(int(n + 1u));
  k.prime = _mm256_set1_epi32(int(k_hash_grid_prime_y));
  k.ione = _mm256_set1_epi32(1);
  k.dense = g.dense[l] != 0;
  k.smooth = g.interpolation == GridInterpolation::Smoothstep;
  return k;
}

/// grid_cell on eight coordinates: p = clamp((x + 1) * 0.5 * n, 0, n); cell = min(floor(p), n - 1).
__attribute__((target("avx2"))) inline void cells8(const LevelConstants& k, __m256 x, __m256i& cell, __m256& frac) {
  __m256 p = _mm256_mul_ps(_mm256_mul_ps(_mm256_add_ps(x, k.one), k.half), k.cells);
  p = _mm256_min_ps(_mm256_max_ps(p, k.zero), k.cells);
  const __m256 c = _mm256_min_ps(_mm256_floor_ps(p), k.last_cell);
  cell = _mm256_cvttps_epi32(c);
  frac = _mm256_sub_ps(p, c);
}

__attribute__((target("avx2"))) inline __m256 smoothstep8(const LevelConstants& k, __m256 t) {
  return _mm256_mul_ps(_mm256_mul_ps(t, t), _mm256_sub_ps(k.three, _mm256_mul_ps(k.two, t)));
}

__attribute__((target("avx2"))) inline __m256i entry8(const LevelConstants& k, __m256i vx, __m256i vy) {
  const __m256i local = k.dense ? _mm256_add_epi32(vx, _mm256_mullo_epi32(vy, k.stride))
                                : _mm256_and_si256(_mm256_xor_si256(vx, _mm256_mullo_epi32(vy, k.prime)), k.mask);
  return _mm256_add_epi32(k.offset, local);
}

/// Rows r .. r + 7 of coords (x, y interleaved).
__attribute__((target("avx2"))) inline Corners8 corners8(const LevelConstants& k, const float* coords, int64_t r) {
  const __m256 a = _mm256_loadu_ps(coords + 2 * r), b = _mm256_loadu_ps(coords + 2 * r + 8);
  // (x0 y0 x1 y1 | x2 y2 x3 y3), (x4 y4 x5 y5 | x6 y6 x7 y7) -> x0..x7 and y0..y7 in row order.
  const __m256i order = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
  const __m256 x = _mm256_permutevar8x32_ps(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)), order);
  const __m256 y = _mm256_permutevar8x32_ps(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1)), order);
  __m256i cx, cy;
  __m256 fx, fy;
  cells8(k, x, cx, fx);
  cells8(k, y, cy, fy);
  if (k.smooth) {
    fx = smoothstep8(k, fx);
    fy = smoothstep8(k, fy);
  }
  Corners8 c;
  const __m256 gx = _mm256_sub_ps(k.one, fx), gy = _mm256_sub_ps(k.one, fy);
  c.weights[0] = _mm256_mul_ps(gx, gy);
  c.weights[1] = _mm256_mul_ps(fx, gy);
  c.weights[2] = _mm256_mul_ps(gx, fy);
  c.weights[3] = _mm256_mul_ps(fx, fy);
  const __m256i cx1 = _mm256_add_epi32(cx, k.ione), cy1 = _mm256_add_epi32(cy, k.ione);
  c.entries[0] = entry8(k, cx, cy);
  c.entries[1] = entry8(k, cx1, cy);
  c.entries[2] = entry8(k, cx, cy1);
  c.entries[3] = entry8(k, cx1, cy1);
  return c;
}

template <int F> __attribute__((target("avx2"))) inline void prefetch8(const Corners8& c, const float* table) {
  alignas(32) uint32_t e[4][k_lanes];
  for (int j = 0; j < 4; ++j)
    _mm256_store_si256(reinterpret_cast<__m256i*>(e[j]), c.entries[j]);
  for (int j = 0; j < 4; ++j)
    for (int lane = 0; lane < k_lanes; ++lane)
      _mm_prefetch(reinterpret_cast<const char*>(table + size_t(e[j][lane]) * F), _MM_HINT_T0);
}

/// The groups of rows [r0, r0 + 8 * groups) in order, each group's corners computed and its entries
/// in `table` prefetched one group (8 rows) ahead, as the scalar pass does row by row.
template <int F> struct GroupsAhead {
  const LevelConstants& k;
  const float* coords;
  const float* table;
  int64_t r0, groups;
  Corners8 next{};
  __attribute__((target("avx2"))) GroupsAhead(const LevelConstants& k_, const float* coords_, const float* table_,
                                              int64_t r0_, int64_t groups_)
      : k(k_), coords(coords_), table(table_), r0(r0_), groups(groups_) {
    if (groups > 0) fetch(r0);
  }
  /// Group gi's corners (call with gi = 0, 1, ... in turn); starts fetching the next group's.
  __attribute__((target("avx2"))) Corners8 take(int64_t gi) {
    const Corners8 c = next;
    if (gi + 1 < groups) fetch(r0 + (gi + 1) * k_lanes);
    return c;
  }

private:
  __attribute__((target("avx2"))) void fetch(int64_t r) {
    next = corners8(k, coords, r);
    prefetch8<F>(next, table);
  }
};

template <int F>
__attribute__((target("avx2"))) void encode_rows(const HashGridParams& g, int32_t l, const float* table,
                                                 const float* coords, int64_t r0, int64_t r1, int32_t width,
                                                 float* out) {
  const LevelConstants k = level_constants(g, l);
  const int64_t groups = (r1 - r0) / k_lanes;
  constexpr int shift = F == 1 ? 0 : F == 2 ? 1 : F == 4 ? 2 : 3;
  GroupsAhead<F> ahead(k, coords, table, r0, groups);
  for (int64_t gi = 0; gi < groups; ++gi) {
    const Corners8 c = ahead.take(gi);
    const int64_t r = r0 + gi * k_lanes;
    alignas(32) float v[F][k_lanes];
    for (int f = 0; f < F; ++f) {
      __m256 sum = _mm256_setzero_ps(); // 0 + w0 t0 + w1 t1 + ...: the scalar sum's order
      for (int j = 0; j < 4; ++j) {
        const __m256i index = _mm256_add_epi32(_mm256_slli_epi32(c.entries[j], shift), _mm256_set1_epi32(f));
        sum = _mm256_add_ps(sum, _mm256_mul_ps(c.weights[j], _mm256_i32gather_ps(table, index, 4)));
      }
      _mm256_store_ps(v[f], sum);
    }
    for (int lane = 0; lane < k_lanes; ++lane) {
      float* o = out + (r + lane) * width + l * F;
      for (int f = 0; f < F; ++f)
        o[f] = v[f][lane];
    }
  }
}

template <int F>
__attribute__((target("avx2"))) void backward_rows(const HashGridParams& g, int32_t l, const float* coords,
                                                   const float* d_out, int64_t r0, int64_t r1, int32_t width,
                                                   float* level_grad) {
  const LevelConstants k = level_constants(g, l, true);
  const int64_t groups = (r1 - r0) / k_lanes;
  GroupsAhead<F> ahead(k, coords, level_grad, r0, groups);
  for (int64_t gi = 0; gi < groups; ++gi) {
    const Corners8 c = ahead.take(gi);
    const int64_t r = r0 + gi * k_lanes;
    // The products weight x dLoss/dEncoding as vectors; the additions into the table one at a
    // time, in the scalar pass's order (row, corner, feature): rows may share an entry.
    alignas(32) float d[F][k_lanes];
    for (int lane = 0; lane < k_lanes; ++lane)
      for (int f = 0; f < F; ++f)
        d[f][lane] = d_out[(r + lane) * width + l * F + f];
    alignas(32) float product[4][F][k_lanes];
    alignas(32) uint32_t e[4][k_lanes];
    for (int j = 0; j < 4; ++j) {
      _mm256_store_si256(reinterpret_cast<__m256i*>(e[j]), c.entries[j]);
      for (int f = 0; f < F; ++f)
        _mm256_store_ps(product[j][f], _mm256_mul_ps(c.weights[j], _mm256_load_ps(d[f])));
    }
    for (int lane = 0; lane < k_lanes; ++lane)
      for (int j = 0; j < 4; ++j) {
        float* t = level_grad + size_t(e[j][lane]) * F;
        for (int f = 0; f < F; ++f)
          t[f] += product[j][f][lane];
      }
  }
}

} // namespace

int64_t backward_level_rows_avx2(const HashGridParams& g, int32_t l, const float* coords, const float* d_out,
                                 int64_t r0, int64_t r1, int32_t width, float* level_grad) {
  with_features(g.n_features,
                [&](auto f) { backward_rows<decltype(f)::value>(g, l, coords, d_out, r0, r1, width, level_grad); });
  return r0 + (r1 - r0) / k_lanes * k_lanes;
}

int64_t encode_level_rows_avx2(const HashGridParams& g, int32_t l, const float* table, const float* coords, int64_t r0,
                               int64_t r1, int32_t width, float* out) {
  with_features(g.n_features,
                [&](auto f) { encode_rows<decltype(f)::value>(g, l, table, coords, r0, r1, width, out); });
  return r0 + (r1 - r0) / k_lanes * k_lanes;
}

bool avx2_available() { return __builtin_cpu_supports("avx2"); }

} // namespace redraw::hash_grid_detail
