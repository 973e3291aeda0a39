#pragma once
/// The multiresolution hash-grid encoding (Müller et al. 2022) of a 2-D coordinate, per sample and
/// level, shared by the CPU backend and the CUDA kernels.
/// - Level l has a grid of N_l cells per side over [-1, 1]^2 (N_l + 1 vertices per side), with
///   N_l = floor(base_resolution * per_level_scale^l + 1e-6) (hash_grid_params in model_spec.h).
/// - Each vertex owns n_features trainable values in a table of T = 2^log2_hashmap_size entries per
///   level. A level whose (N_l + 1)^2 vertices fit in T is indexed densely (vx + vy * (N_l + 1)) and
///   its table holds exactly that many entries; a finer level hashes the vertex,
///   (vx * 1) xor (vy * 2654435761) mod T, so different vertices may share an entry.
/// - The encoding of (x, y) is, per level, the interpolation of the four corner vertices' values of
///   its cell: bilinear weights, or bilinear weights of smoothstep(t) = t^2 (3 - 2t).
/// - Table layout: level after level; inside a level, entry after entry, n_features floats each.
///   Output layout: element l * n_features + f.
/// - The encoding is linear in the table, so dEncoding/dTable is the corner weight itself; the
///   backward pass scatters weight * dL/dEncoding into the four corner entries.
#include "engine/hd_common.h"

namespace redraw {

constexpr int32_t k_hash_grid_max_levels = 32;
constexpr uint32_t k_hash_grid_prime_y = 2654435761u;

enum class GridInterpolation : int32_t { Linear = 0, Smoothstep };

/// Everything a kernel needs to encode, resolved on the host from an EncodingSpec.
struct HashGridParams {
  int32_t n_levels = 0;
  int32_t n_features = 0; ///< per level
  uint32_t hash_mask = 0; ///< T - 1
  GridInterpolation interpolation = GridInterpolation::Linear;
  uint32_t resolution[k_hash_grid_max_levels] = {}; ///< N_l: cells per side
  uint32_t dense[k_hash_grid_max_levels] = {};      ///< 1 when level l is indexed densely
  uint32_t offset[k_hash_grid_max_levels + 1] = {}; ///< first entry of level l; offset[n_levels] = entries
};

/// The hash grid in engine/encoding_math.h's per-element list: its width (levels x features); a
/// value needs the table (hash_grid_encode_level), so value() is 0 and callers take the grid's path.
struct HashGridMath {
  REDRAW_HD static int32_t width(int32_t levels, int32_t features) { return levels * features; }
  template <class T> REDRAW_HD static T value(int32_t, int32_t, const float*, T, T, int32_t) { return T(0); }
  template <class T> REDRAW_HD static void derivative(int32_t, int32_t, const float*, T, T, int32_t, T&, T&) {}
};

/// Entries (vertices) in the table of all levels; floats = entries * n_features.
REDRAW_HD inline uint32_t hash_grid_entries(const HashGridParams& g) { return g.offset[g.n_levels]; }

/// The spatial hash of vertex (vx, vy), before the modulo.
REDRAW_HD inline uint32_t hash_grid_hash(uint32_t vx, uint32_t vy) { return vx ^ (vy * k_hash_grid_prime_y); }

/// Table entry of vertex (vx, vy) at level l (0 <= vx, vy <= N_l).
REDRAW_HD inline uint32_t hash_grid_entry(const HashGridParams& g, int32_t l, uint32_t vx, uint32_t vy) {
  const uint32_t local = g.dense[l] ? vx + vy * (g.resolution[l] + 1u) : (hash_grid_hash(vx, vy) & g.hash_mask);
  return g.offset[l] + local;
}

template <class T> REDRAW_HD inline T grid_smoothstep(T t) { return t * t * (T(3) - T(2) * t); }
template <class T> REDRAW_HD inline T grid_smoothstep_derivative(T t) { return T(6) * t * (T(1) - t); }

/// Cell and fractional position of coordinate x in [-1, 1] on a grid of n cells: x maps to
/// p = (x + 1) / 2 * n, clamped to [0, n]; cell = min(floor(p), n - 1), frac = p - cell in [0, 1].
template <class T> REDRAW_HD inline void grid_cell(T x, uint32_t n, uint32_t& cell, T& frac) {
  const T p = rd_clamp((x + T(1)) * T(0.5) * T(n), T(0), T(n));
  T c = rd_floor(p);
  if (c > T(n - 1)) c = T(n - 1);
  cell = uint32_t(c);
  frac = p - c;
}

/// The cell of level l that holds (x, y), and the position inside it (grid_cell on each axis).
template <class T> struct GridCell {
  uint32_t cx, cy;
  T fx, fy;
};
template <class T> REDRAW_HD inline GridCell<T> grid_cell_at(const HashGridParams& g, int32_t l, T x, T y) {
  GridCell<T> c;
  grid_cell(x, g.resolution[l], c.cx, c.fx);
  grid_cell(y, g.resolution[l], c.cy, c.fy);
  return c;
}

/// The four corners of the cell holding (x, y) at level l: table entries (00, 10, 01, 11, with the
/// first digit x) and their interpolation weights, which sum to 1.
template <class T>
REDRAW_HD inline void hash_grid_corners(const HashGridParams& g, int32_t l, T x, T y, uint32_t entry[4], T weight[4]) {
  const GridCell<T> cell = grid_cell_at(g, l, x, y);
  const uint32_t cx = cell.cx, cy = cell.cy;
  T fx = cell.fx, fy = cell.fy;
  if (g.interpolation == GridInterpolation::Smoothstep) {
    fx = grid_smoothstep(fx);
    fy = grid_smoothstep(fy);
  }
  weight[0] = (T(1) - fx) * (T(1) - fy);
  weight[1] = fx * (T(1) - fy);
  weight[2] = (T(1) - fx) * fy;
  weight[3] = fx * fy;
  entry[0] = hash_grid_entry(g, l, cx, cy);
  entry[1] = hash_grid_entry(g, l, cx + 1, cy);
  entry[2] = hash_grid_entry(g, l, cx, cy + 1);
  entry[3] = hash_grid_entry(g, l, cx + 1, cy + 1);
}

/// d weight[c] / dx and / dy of hash_grid_corners (inside a cell; the encoding is only piecewise
/// smooth, with kinks on cell edges).
template <class T>
REDRAW_HD inline void hash_grid_weight_derivatives(const HashGridParams& g, int32_t l, T x, T y, T d_dx[4], T d_dy[4]) {
  const GridCell<T> cell = grid_cell_at(g, l, x, y);
  const T fx = cell.fx, fy = cell.fy;
  T sx = fx, sy = fy, dsx = T(1), dsy = T(1);
  if (g.interpolation == GridInterpolation::Smoothstep) {
    sx = grid_smoothstep(fx);
    sy = grid_smoothstep(fy);
    dsx = grid_smoothstep_derivative(fx);
    dsy = grid_smoothstep_derivative(fy);
  }
  const T dp = T(0.5) * T(g.resolution[l]); // dp/dx
  dsx *= dp;
  dsy *= dp;
  d_dx[0] = -dsx * (T(1) - sy);
  d_dx[1] = dsx * (T(1) - sy);
  d_dx[2] = -dsx * sy;
  d_dx[3] = dsx * sy;
  d_dy[0] = -(T(1) - sx) * dsy;
  d_dy[1] = -sx * dsy;
  d_dy[2] = (T(1) - sx) * dsy;
  d_dy[3] = sx * dsy;
}

/// The n_features outputs of level l for (x, y): out[f] = sum over corners of weight * table.
template <class T>
REDRAW_HD inline void hash_grid_encode_level(const HashGridParams& g, const float* table, int32_t l, T x, T y, T* out) {
  uint32_t entry[4];
  T w[4];
  hash_grid_corners(g, l, x, y, entry, w);
  const int32_t F = g.n_features;
  for (int32_t f = 0; f < F; ++f) {
    T v = T(0);
    for (int c = 0; c < 4; ++c)
      v += w[c] * T(table[size_t(entry[c]) * size_t(F) + size_t(f)]);
    out[f] = v;
  }
}

/// Every level's outputs of one sample, level after level, as the GPU's one-thread-per-sample
/// kernel computes them: emit(k, v) receives output element k = l * F + f in increasing order.
/// F is the compile-time feature count (g.n_features); load(entry, f) reads feature f of a table
/// entry (a plain read on the CPU, a read-only cached load on the GPU). The sums run over the
/// corners in the order hash_grid_encode_level uses, so both give the same bits.
template <int F, class T, class Load, class Emit>
REDRAW_HD inline void hash_grid_encode_sample(const HashGridParams& g, T x, T y, const Load& load, Emit&& emit) {
  for (int32_t l = 0; l < g.n_levels; ++l) {
    uint32_t entry[4];
    T w[4];
    hash_grid_corners(g, l, x, y, entry, w);
    for (int f = 0; f < F; ++f) {
      T v = T(0);
      for (int c = 0; c < 4; ++c)
        v += w[c] * T(load(entry[c], f));
      emit(l * F + f, v);
    }
  }
}

/// hash_grid_encode_sample in groups for vector stores, as the GPU writes a row: store4(k, a, b,
/// c, d) receives outputs k..k+3 for every full group of four (k a multiple of 4), then
/// store1(k, v) each of the last width % 4 outputs (width = n_levels * F).
template <int F, class T, class Load, class Store4, class Store1>
REDRAW_HD inline void hash_grid_encode_row(const HashGridParams& g, T x, T y, const Load& load, Store4&& store4,
                                           Store1&& store1) {
  T buf[4] = {T(0), T(0), T(0), T(0)};
  hash_grid_encode_sample<F, T>(g, x, y, load, [&](int32_t k, T v) {
    buf[k & 3] = v;
    if ((k & 3) == 3) store4(k - 3, buf[0], buf[1], buf[2], buf[3]);
  });
  const int32_t width = g.n_levels * F;
  for (int32_t k = width & ~3; k < width; ++k)
    store1(k, buf[k & 3]);
}

} // namespace redraw
