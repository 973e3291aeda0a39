#pragma once
/// The `sad` encoding: soft anisotropic diagrams (SIGGRAPH 2026). A picture is a set of sites; each
/// point blends the colours of its K nearest sites by a softmax of their anisotropic distances.
/// Per pixel and site, shared by the CPU backend and any CUDA kernels.
/// - Site i owns k_sad_floats trainable floats at i * k_sad_floats of the parameter array:
///   position (mx, my) in image coordinates ([-1, 1]^2 covers the picture), the metric's
///   Cholesky-style raw values (l11, l21, l22) in cells, a radius, a raw temperature t, then
///   k_sad_channels colour values.
/// - A cell is the mean spacing of N sites over [-1, 1]^2: h = 2 / sqrt(N). The metric's factor is
///   L = h [[d(l11), 0], [l21, d(l22)]], d(l) = sqrt(l^2 + f^2), f = k_sad_diag_floor, as
///   engine/gaussian_math.h's Gaussians: never singular, smooth at the floor, in cells so a
///   learning rate means the same at any count.
/// - The site's distance at p: D = q - radius, q = |L^{-1} (p - mu)|^2 (a power distance: a larger
///   radius claims more of the picture whatever the metric's shape). Its temperature
///   tau = k_sad_tau_floor + exp(clamp(t, -k_sad_t_bound, k_sad_t_bound)); its energy e = D / tau
///   and its logit -e. The K sites of least energy at p are its "nearest" (sad_key).
/// - The value at p, channel k: sum_i w_i colour_ik with w = softmax(-e) over the K sites, the
///   largest logit subtracted first (stable for huge distances); a weight whose shifted logit is
///   below -k_sad_logit_floor is 0 (no subnormals), so the winner's weight is never 0 and the sum
///   is at least 1: coincident sites and any finite distances give finite values.
/// - The encoding is 3 wide whatever the colour mode (a dense head 3 -> C maps it, as the
///   Gaussians').
#include "engine/hd_common.h"

namespace redraw {

constexpr int32_t k_sad_channels = 3;
/// The sites each point blends (the paper's K).
constexpr int32_t k_sad_k = 8;
constexpr int32_t k_sad_floats = 7 + k_sad_channels;
/// Offsets of a site's floats.
enum SadField : int32_t {
  k_sad_mx = 0,
  k_sad_my,
  k_sad_l11,
  k_sad_l21,
  k_sad_l22,
  k_sad_radius,
  k_sad_temp,
  k_sad_colour
};
/// The metric's diagonal floor, in cells (as the Gaussians').
constexpr double k_sad_diag_floor = 0.25;
/// The temperature's floor and the bound on its raw value (exp(20) is far from float's range).
constexpr double k_sad_tau_floor = 1e-3;
constexpr double k_sad_t_bound = 20.0;
/// Shifted logits below minus this give weight 0: exp(-80) = 1.8e-35 is a normal float.
constexpr double k_sad_logit_floor = 80.0;
/// q's cap: past it a site is equally far from everything (no overflow to inf, whose differences
/// would be NaN; the gradient of a capped q is 0).
constexpr double k_sad_q_cap = 1e30;
/// Bounds of model.sites.
constexpr int64_t k_sad_min_sites = 1, k_sad_max_sites = 1000000;

/// The sites in engine/encoding_math.h's per-element list: k_sad_channels wide; a value needs the
/// sites and their lists, so value() is 0 and callers take the sites' path.
struct SadMath {
  REDRAW_HD static int32_t width(int32_t, int32_t) { return k_sad_channels; }
  template <class T> REDRAW_HD static T value(int32_t, int32_t, const float*, T, T, int32_t) { return T(0); }
  template <class T> REDRAW_HD static void derivative(int32_t, int32_t, const float*, T, T, int32_t, T&, T&) {}
};

/// What a pass needs, resolved on the host from the count.
/// - The top-K lists are kept on a grid x grid lattice of nodes over [-1, 1]^2 (node (i, j) at
///   pixel_centre(i, grid), pixel_centre(j, grid)): k_sad_grid_per_cell nodes per cell along each
///   side, so a point is at most a quarter cell from its node (along each axis), whose list it blends.
struct SadParams {
  int64_t count = 0;
  float cell = 1.0f; ///< h = 2 / sqrt(count)
  int32_t grid = 16; ///< nodes per side of the lists' lattice
};
constexpr double k_sad_grid_per_cell = 2.0;
constexpr int32_t k_sad_min_grid = 16, k_sad_max_grid = 2048;

inline SadParams sad_params(int64_t count) {
  SadParams p;
  p.count = count;
  const double side = std::sqrt(double(count > 0 ? count : 1));
  p.cell = float(2.0 / side);
  const double grid = std::ceil(k_sad_grid_per_cell * side);
  p.grid = int32_t(grid < k_sad_min_grid ? k_sad_min_grid : (grid > k_sad_max_grid ? k_sad_max_grid : grid));
  return p;
}

/// The node (0 .. grid - 1) of coordinate v along one axis: the nearest node centre; outside
/// [-1, 1] the border's. Monotone in v.
REDRAW_HD inline int32_t sad_node(float v, int32_t grid) {
  const float t = (v + 1.0f) * 0.5f * float(grid);
  if (!(t >= 0.0f)) return 0; // NaN too
  return t >= float(grid) ? grid - 1 : int32_t(t);
}

/// A site's shape, worked out once per pass and then read per point.
template <class T> struct SadShape {
  T mx, my, inv_a, b, inv_c; ///< position and the metric's inverse factor (as GaussianShape)
  T radius, inv_tau;         ///< D = q - radius; e = D * inv_tau
  T dtau_dt;                 ///< d tau / d t: exp(t), 0 where t is clamped
};

template <class T> REDRAW_HD inline SadShape<T> sad_shape(const float* s, T cell) {
  const T f = T(k_sad_diag_floor);
  const T l11 = T(s[k_sad_l11]), l22 = T(s[k_sad_l22]);
  const T a = cell * rd_sqrt(l11 * l11 + f * f), c = cell * rd_sqrt(l22 * l22 + f * f);
  const T t = T(s[k_sad_temp]), bound = T(k_sad_t_bound);
  const T e = rd_exp(rd_clamp(t, -bound, bound));
  const T tau = T(k_sad_tau_floor) + e;
  const bool inside = t > -bound && t < bound;
  return {T(s[k_sad_mx]), T(s[k_sad_my]), T(1) / a, cell * T(s[k_sad_l21]), T(1) / c,
          T(s[k_sad_radius]), T(1) / tau, inside ? e : T(0)};
}

/// q = |L^{-1} (p - mu)|^2 with z = L^{-1} (p - mu) (forward substitution), at most k_sad_q_cap.
template <class T> REDRAW_HD inline T sad_q(const SadShape<T>& s, T x, T y, T& z1, T& z2) {
  z1 = (x - s.mx) * s.inv_a;
  z2 = (y - s.my - s.b * z1) * s.inv_c;
  const T q = z1 * z1 + z2 * z2;
  return q > T(k_sad_q_cap) ? T(k_sad_q_cap) : q;
}

/// The site's energy at (x, y): (q - radius) / tau. The K sites of least energy are a point's
/// nearest; its logit is minus this.
template <class T> REDRAW_HD inline T sad_key(const SadShape<T>& s, T x, T y) {
  T z1, z2;
  return (sad_q(s, x, y, z1, z2) - s.radius) * s.inv_tau;
}

/// The blend weights of n <= k_sad_k sites at one point from their energies e: w_i =
/// exp(m - e_i) / sum, m the least energy; 0 below the logit floor. n >= 1.
template <class T> REDRAW_HD inline void sad_weights(const T* e, int32_t n, T* w) {
  T m = e[0];
  for (int32_t i = 1; i < n; ++i) m = e[i] < m ? e[i] : m;
  T sum = T(0);
  for (int32_t i = 0; i < n; ++i) {
    const T d = m - e[i];
    w[i] = d > T(-k_sad_logit_floor) ? rd_exp(d) : T(0);
    sum += w[i];
  }
  const T inv = T(1) / sum; // sum >= 1: the least energy's weight is exp(0)
  for (int32_t i = 0; i < n; ++i) w[i] *= inv;
}

/// out (k_sad_channels) = the blend at (x, y) of the n sites (their shapes and floats); w gets
/// their weights.
template <class T>
REDRAW_HD inline void sad_blend(const SadShape<T>* shapes, const float* const* sites, int32_t n, T x, T y, T* w,
                                T* out) {
  T e[k_sad_k] = {}; // set for i < n; zeroed so no compiler sees an unset read
  for (int32_t i = 0; i < n; ++i) e[i] = sad_key(shapes[i], x, y);
  sad_weights(e, n, w);
  for (int32_t k = 0; k < k_sad_channels; ++k) out[k] = T(0);
  for (int32_t i = 0; i < n; ++i)
    for (int32_t k = 0; k < k_sad_channels; ++k) out[k] += w[i] * T(sites[i][k_sad_colour + k]);
}

/// dLoss/dlogit of each of the n sites blended at a point, from their weights and colours and the
/// point's dLoss/dout (k_sad_channels): w_i (g . c_i - g . out). Softmax's Jacobian.
template <class T>
REDRAW_HD inline void sad_logit_grads(const float* const* sites, int32_t n, const T* w, const T* d_out, T* d_logit) {
  T gc[k_sad_k], mean = T(0);
  for (int32_t i = 0; i < n; ++i) {
    gc[i] = T(0);
    for (int32_t k = 0; k < k_sad_channels; ++k) gc[i] += d_out[k] * T(sites[i][k_sad_colour + k]);
    mean += w[i] * gc[i];
  }
  for (int32_t i = 0; i < n; ++i) d_logit[i] = w[i] * (gc[i] - mean);
}

/// grad (k_sad_floats) += what one point gives site s (its shape and floats), blended there with
/// weight w and dLoss/dlogit d_logit, the point's dLoss/dout being d_out (k_sad_channels).
template <class T>
REDRAW_HD inline void sad_pair_backward(const SadShape<T>& s, const float* site, T cell, T x, T y, T w, T d_logit,
                                        const T* d_out, T* grad) {
  for (int32_t k = 0; k < k_sad_channels; ++k) grad[k_sad_colour + k] += w * d_out[k];
  if (d_logit == T(0)) return;
  T z1, z2;
  const T q = sad_q(s, x, y, z1, z2);
  // logit = -(q - radius) / tau.
  grad[k_sad_radius] += d_logit * s.inv_tau;
  grad[k_sad_temp] += d_logit * ((q - s.radius) * s.inv_tau) * (s.inv_tau * s.dtau_dt); // each factor finite
  if (!(q < T(k_sad_q_cap))) return; // capped: q moves with nothing
  const T dq = -d_logit * s.inv_tau;
  const T g1 = T(2) * z1 * dq, g2 = T(2) * z2 * dq; // dLoss/dz1, dLoss/dz2
  // z1 = dx / a, z2 = (dy - b z1) / c (as gaussian_backward).
  const T h = g1 - g2 * s.b * s.inv_c;
  const T d_mx = -h * s.inv_a, d_a = d_mx * z1, d_b = -g2 * z1 * s.inv_c, d_c = -g2 * z2 * s.inv_c;
  grad[k_sad_mx] += d_mx;
  grad[k_sad_my] += -g2 * s.inv_c;
  grad[k_sad_l11] += d_a * cell * cell * T(site[k_sad_l11]) * s.inv_a;
  grad[k_sad_l21] += d_b * cell;
  grad[k_sad_l22] += d_c * cell * cell * T(site[k_sad_l22]) * s.inv_c;
}

} // namespace redraw
