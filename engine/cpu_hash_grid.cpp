#include "engine/cpu_hash_grid.h"

#include <algorithm>
#include <cstddef>

namespace redraw {

namespace {
/// One level's forward for rows [0, n), with F a compile-time constant where it is common.
template <int F>
void encode_level_rows(const HashGridParams& g, const float* table, const float* coords, int64_t r0, int64_t r1,
                       int32_t width, float* out) {
  for (int64_t i = r0; i < r1; ++i) {
    const float x = coords[2 * i], y = coords[2 * i + 1];
    float* o = out + i * width;
    for (int32_t l = 0; l < g.n_levels; ++l) {
      uint32_t e[4];
      float w[4];
      hash_grid_corners<float>(g, l, x, y, e, w);
      for (int f = 0; f < F; ++f) {
        float v = 0.0f;
        for (int c = 0; c < 4; ++c) v += w[c] * table[size_t(e[c]) * F + size_t(f)];
        o[l * F + f] = v;
      }
    }
  }
}

template <int F>
void backward_level(const HashGridParams& g, int32_t l, const float* coords, const float* d_out, int64_t n,
                    int32_t width, float* table_grad) {
  for (int64_t i = 0; i < n; ++i) {
    const float* d = d_out + i * width + l * F;
    uint32_t e[4];
    float w[4];
    hash_grid_corners<float>(g, l, coords[2 * i], coords[2 * i + 1], e, w);
    for (int c = 0; c < 4; ++c)
      for (int f = 0; f < F; ++f) table_grad[size_t(e[c]) * F + size_t(f)] += w[c] * d[f];
  }
}

template <int F> void backward_all(const HashGridParams& g, const float* coords, const float* d_out, int64_t n,
                                   float* table_grad, bool accumulate) {
  const int32_t width = g.n_levels * F;
  // Each level belongs to one thread for the whole pass (dynamic: the levels' costs differ with
  // their cache behaviour); the result does not depend on which thread.
#pragma omp parallel for schedule(dynamic, 1)
  for (int32_t l = 0; l < g.n_levels; ++l) {
    float* begin = table_grad + size_t(g.offset[l]) * F;
    if (!accumulate) std::fill(begin, table_grad + size_t(g.offset[l + 1]) * F, 0.0f);
    backward_level<F>(g, l, coords, d_out, n, width, table_grad);
  }
}
} // namespace

void hash_grid_encode_rows(const HashGridParams& g, const float* table, const float* coords, int64_t n, float* out) {
  const int32_t width = g.n_levels * g.n_features;
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (int64_t blk = 0; blk < (n + 63) / 64; ++blk) {
      const int64_t r0 = blk * 64, r1 = std::min(n, r0 + 64);
      switch (g.n_features) {
      case 1: encode_level_rows<1>(g, table, coords, r0, r1, width, out); break;
      case 2: encode_level_rows<2>(g, table, coords, r0, r1, width, out); break;
      case 4: encode_level_rows<4>(g, table, coords, r0, r1, width, out); break;
      default: encode_level_rows<8>(g, table, coords, r0, r1, width, out); break;
      }
    }
  }
}

void hash_grid_backward_rows(const HashGridParams& g, const float* coords, const float* d_out, int64_t n,
                             float* table_grad, bool accumulate) {
  switch (g.n_features) {
  case 1: backward_all<1>(g, coords, d_out, n, table_grad, accumulate); return;
  case 2: backward_all<2>(g, coords, d_out, n, table_grad, accumulate); return;
  case 4: backward_all<4>(g, coords, d_out, n, table_grad, accumulate); return;
  default: backward_all<8>(g, coords, d_out, n, table_grad, accumulate); return;
  }
}

} // namespace redraw
