#pragma once
/// The `gaussians` encoding: a picture as a sum of 2-D Gaussians (GaussianImage, Zhang et al.,
/// ECCV 2024, "accumulated summation": no opacity, no sorting, no alpha blending), per sample and
/// Gaussian, shared by the CPU backend and any CUDA kernels.
/// - Gaussian i owns k_gaussian_floats trainable floats at i * k_gaussian_floats of the parameter
///   array: mean (mx, my) in image coordinates ([-1, 1]^2 covers the picture), the Cholesky factor's
///   raw values (l11, l21, l22) in cells, then k_gaussian_channels colour values.
/// - A cell is the mean spacing of N Gaussians spread over [-1, 1]^2: h = 2 / sqrt(N). The factor
///   is L = h [[d(l11), 0], [l21, d(l22)]] with d(l) = sqrt(l^2 + f^2), f = k_gaussian_diag_floor:
///   the diagonal stays at least f cells, so Sigma = L L^T is never singular, and d is smooth in l
///   (an absolute value or a clamp would give a kink or a dead gradient at the floor). Cells make
///   the learning rate mean the same thing at any count: Adam's ~lr steps move a size by lr cells.
/// - The means are stored in picture units, but their optimizer step is in cells too: a mean's
///   learning rate is lr * k_gaussian_mean_step_cells * cell (gaussian_lane_step), so a step moves
///   it ~lr * k_gaussian_mean_step_cells cells whatever the count. A step of lr picture units would
///   move 1,000,000 Gaussians on a small picture by 5 cells, far past their own support.
/// - The encoding's value at p, channel k: sum_i colour_ik w_i(p), with q = |L_i^{-1} (p - mu_i)|^2
///   and w = exp(-q/2) - exp(-cutoff/2) where q < cutoff, 0 elsewhere. cutoff = 9 (3 sigma, the
///   radius GaussianImage culls tiles with). Subtracting the value at the cutoff makes w continuous:
///   a hard cut would leave a step of exp(-4.5) = 1.1% of the colour on every ellipse's rim.
/// - The support {q < 9} lies inside the axis-aligned box mu +- (3 sqrt(Sigma_xx), 3 sqrt(Sigma_yy)),
///   so culling by that box (gaussian_half_extent) changes no value: a tiled pass is exact.
/// - The cosine carrier (model.encoding.carrier, off by default; WIPES, Zhang et al., ICCV 2025,
///   modulates its primitives so): Gaussian i then owns k_gaussian_carrier_floats floats, the
///   same k_gaussian_floats followed by a frequency (wx, wy), and w becomes w * cos(wx z1 + wy z2)
///   with z = L^{-1} (p - mu) the whitened offset: a frequency in radians per standard deviation
///   along the Gaussian's own axes, so a learning rate means the same at any count and size. Any
///   plane wave cos(k . (p - mu)) is one of these (w = L^T k). With w = 0 it is the plain
///   Gaussian, bit for bit (cos 0 = 1), but its gradient in w is 0 there too (sin 0 = 0), so the
///   frequencies start small and random (k_gaussian_carrier_init). A stored frequency float is
///   k_gaussian_carrier_step radians per standard deviation. |cos| <= 1: the support and
///   its box are the Gaussian's, and every bound on pairs holds unchanged.
/// - The encoding is 3 wide whatever the colour mode: its size is the model's and must not follow
///   the image's colour mode, which resolves after the config; the dense head (3 -> C) maps it.
#include "engine/hd_common.h"
#include "engine/optimizer_math.h"

namespace redraw {

constexpr int32_t k_gaussian_channels = 3;
constexpr int32_t k_gaussian_floats = 5 + k_gaussian_channels;
/// Offsets of a Gaussian's floats.
enum GaussianField : int32_t { k_gauss_mx = 0, k_gauss_my, k_gauss_l11, k_gauss_l21, k_gauss_l22, k_gauss_colour };
/// A Gaussian with the cosine carrier: the plain floats, then its frequency (wx, wy).
constexpr int32_t k_gaussian_carrier_floats = k_gaussian_floats + 2;
enum GaussianCarrierField : int32_t { k_gauss_wx = k_gaussian_floats, k_gauss_wy };
/// The carrier's initial frequencies are uniform in +-this, in radians per standard deviation:
/// small enough that the first picture is the plain Gaussians' within 1% near their centres
/// (cos(0.1) = 0.995), nonzero so that the frequencies have a gradient.
constexpr double k_gaussian_carrier_init = 0.1;
/// A stored frequency float is this many radians per standard deviation, so that the optimizer's
/// step of ~lr moves a frequency k_gaussian_carrier_step lr (as the means' step is in cells,
/// gaussian_lane_step): at the presets' lr of 1e-2 a frequency of 1 radian per standard deviation
/// would take 100 steps otherwise.
constexpr double k_gaussian_carrier_step = 10.0;
/// Floats per Gaussian.
REDRAW_HD inline int32_t gaussian_floats(bool carrier) { return carrier ? k_gaussian_carrier_floats : k_gaussian_floats; }
/// The Mahalanobis radius squared beyond which a Gaussian contributes nothing.
constexpr double k_gaussian_cutoff = 9.0;
/// The Cholesky diagonal's floor, in cells: at 70,000 Gaussians on 512 x 512 a cell is 1.9 px,
/// so the narrowest Gaussian is about half a pixel wide (GaussianImage adds 0.5 px to its diagonal).
constexpr double k_gaussian_diag_floor = 0.25;
/// A mean's optimizer step in cells per unit of learning rate (engine/gaussian_math.h's header).
/// 30: on camera at 256 x 256, 300 steps of the preset's 30,000 Gaussians gave 36.20 dB against
/// 35.93 dB for the old step of lr picture units (86.6 cells there) and 35.91 dB for 10 cells.
constexpr double k_gaussian_mean_step_cells = 30.0;
/// Bounds of model.gaussians.
constexpr int64_t k_gaussian_min_count = 1, k_gaussian_max_count = 4000000;

/// The Gaussians in engine/encoding_math.h's per-element list: k_gaussian_channels wide; a value
/// needs the Gaussians (gaussian_weight), so value() is 0 and callers take the Gaussians' path.
struct GaussiansMath {
  REDRAW_HD static int32_t width(int32_t, int32_t) { return k_gaussian_channels; }
  template <class T> REDRAW_HD static T value(int32_t, int32_t, const float*, T, T, int32_t) { return T(0); }
  template <class T> REDRAW_HD static void derivative(int32_t, int32_t, const float*, T, T, int32_t, T&, T&) {}
};

/// What a pass needs, resolved on the host from the count.
struct GaussianParams {
  int64_t count = 0;
  float cell = 1.0f; ///< h = 2 / sqrt(count)
  int32_t bins = 1;  ///< bins per side of [-1, 1]^2 for the tiled passes: a bin spans about 2 cells
  bool carrier = false;                 ///< each Gaussian has the cosine carrier
  int32_t floats = k_gaussian_floats;   ///< floats per Gaussian: gaussian_floats(carrier)
};

inline GaussianParams gaussian_params(int64_t count, bool carrier = false) {
  GaussianParams g;
  g.count = count;
  g.carrier = carrier;
  g.floats = gaussian_floats(carrier);
  g.cell = float(2.0 / std::sqrt(double(count > 0 ? count : 1)));
  const double bins = std::ceil(std::sqrt(double(count > 0 ? count : 1)) / 2.0);
  g.bins = int32_t(bins < 1 ? 1 : (bins > 1024 ? 1024 : bins));
  return g;
}

/// The learning-rate factor of the Gaussians' floats: the means' (lanes mx, my of each Gaussian)
/// is k_gaussian_mean_step_cells cells; sizes and colours take the learning rate as it is.
inline LaneStep gaussian_lane_step(const GaussianParams& g) {
  static_assert(k_gauss_mx == 0 && k_gauss_my == 1, "the means are a Gaussian's first two floats");
  return LaneStep{g.floats, 2, float(k_gaussian_mean_step_cells * double(g.cell))};
}

/// The weight where q reaches the cutoff, subtracted so that w falls continuously to 0.
template <class T> REDRAW_HD inline T gaussian_rim() { return rd_exp(T(-0.5 * k_gaussian_cutoff)); }

/// The Cholesky factor L = [[a, 0], [b, c]] of Gaussian g (its k_gaussian_floats floats), in
/// coordinate units.
template <class T> REDRAW_HD inline void gaussian_cholesky(const float* g, T cell, T& a, T& b, T& c) {
  const T f = T(k_gaussian_diag_floor);
  const T l11 = T(g[k_gauss_l11]), l22 = T(g[k_gauss_l22]);
  a = cell * rd_sqrt(l11 * l11 + f * f);
  b = cell * T(g[k_gauss_l21]);
  c = cell * rd_sqrt(l22 * l22 + f * f);
}

/// Half the width and height of the box that holds the Gaussian's support.
template <class T> REDRAW_HD inline void gaussian_half_extent(const float* g, T cell, T& hx, T& hy) {
  T a, b, c;
  gaussian_cholesky(g, cell, a, b, c);
  const T r = rd_sqrt(T(k_gaussian_cutoff));
  hx = r * a;
  hy = r * rd_sqrt(b * b + c * c);
}

/// The bin (0 .. bins - 1) of coordinate v along one axis; outside [-1, 1] the border bin.
/// Monotone in v, so a box's bins are those of its two ends.
REDRAW_HD inline int32_t gaussian_bin(float v, int32_t bins) {
  const float t = (v + 1.0f) * 0.5f * float(bins);
  if (!(t >= 0.0f)) return 0; // NaN too
  return t >= float(bins) ? bins - 1 : int32_t(t);
}

/// The bins of the box that holds Gaussian g's support on the whole grid, with a thousandth's
/// margin (the box is worked out in float, the support's rim too): o = x0, x1, y0, y1, inclusive.
/// False, with o = 1, 0, 0, 0, for a Gaussian no sample can meet (a value not finite). Both
/// backends bin with it, and gaussian_box_pairs counts what the bounds (engine/gaussian_bounds.h)
/// hold a model to.
REDRAW_HD inline bool gaussian_box(const float* g, float cell, int32_t bins, int32_t* o) {
  float hx = 0, hy = 0;
  gaussian_half_extent<float>(g, cell, hx, hy);
  hx = hx * 1.001f + 1e-6f;
  hy = hy * 1.001f + 1e-6f;
  const float mx = g[k_gauss_mx], my = g[k_gauss_my];
  o[0] = gaussian_bin(mx - hx, bins);
  o[1] = gaussian_bin(mx + hx, bins);
  o[2] = gaussian_bin(my - hy, bins);
  o[3] = gaussian_bin(my + hy, bins);
  const bool finite = rd_isfinite(mx) && rd_isfinite(my) && rd_isfinite(hx) && rd_isfinite(hy);
  if (!finite || o[0] > o[1] || o[2] > o[3]) {
    o[0] = 1, o[1] = 0, o[2] = 0, o[3] = 0;
    return false;
  }
  return true;
}

/// The (bin, Gaussian) pairs of a box from gaussian_box: 0 for an empty one.
REDRAW_HD inline int64_t gaussian_box_pairs(const int32_t* o) {
  return o[0] > o[1] || o[2] > o[3] ? 0 : int64_t(o[1] - o[0] + 1) * int64_t(o[3] - o[2] + 1);
}

/// A Gaussian's mean and inverse factor, worked out once per pass and then read per sample.
template <class T> struct GaussianShape {
  T mx, my, inv_a, b, inv_c;
};

template <class T> REDRAW_HD inline GaussianShape<T> gaussian_shape(const float* g, T cell) {
  T a, b, c;
  gaussian_cholesky(g, cell, a, b, c);
  return {T(g[k_gauss_mx]), T(g[k_gauss_my]), T(1) / a, b, T(1) / c};
}

/// The whitened offset z = L^{-1} (p - mu) (forward substitution: L is lower triangular) and
/// q = |z|^2.
template <class T>
REDRAW_HD inline T gaussian_q(const GaussianShape<T>& s, T x, T y, T& z1, T& z2) {
  z1 = (x - s.mx) * s.inv_a;
  z2 = (y - s.my - s.b * z1) * s.inv_c;
  return z1 * z1 + z2 * z2;
}

/// w of a Gaussian at (x, y) (0 outside its support).
template <class T> REDRAW_HD inline T gaussian_weight(const GaussianShape<T>& s, T x, T y) {
  T z1, z2;
  const T q = gaussian_q(s, x, y, z1, z2);
  return q < T(k_gaussian_cutoff) ? rd_exp(T(-0.5) * q) - gaussian_rim<T>() : T(0);
}

/// The carrier's frequency along axis k (0: wx, 1: wy) of Gaussian g, in radians per standard
/// deviation: its stored float times k_gaussian_carrier_step.
template <class T> REDRAW_HD inline T gaussian_frequency(const float* g, int32_t k) {
  return T(k_gaussian_carrier_step) * T(g[k_gauss_wx + k]);
}

/// w of a Gaussian with the cosine carrier (wx, wy: gaussian_frequency) at (x, y):
/// gaussian_weight times cos(wx z1 + wy z2) (0 outside its support).
template <class T>
REDRAW_HD inline T gaussian_carrier_weight(const GaussianShape<T>& s, T wx, T wy, T x, T y) {
  T z1, z2;
  const T q = gaussian_q(s, x, y, z1, z2);
  return q < T(k_gaussian_cutoff) ? (rd_exp(T(-0.5) * q) - gaussian_rim<T>()) * rd_cos(wx * z1 + wy * z2) : T(0);
}

/// w of Gaussian g (its floats; `carrier`: it has the cosine carrier) at (x, y), s its shape.
template <class T>
REDRAW_HD inline T gaussian_weight_of(const GaussianShape<T>& s, const float* g, bool carrier, T x, T y) {
  return carrier ? gaussian_carrier_weight(s, gaussian_frequency<T>(g, 0), gaussian_frequency<T>(g, 1), x, y)
                 : gaussian_weight(s, x, y);
}

/// grad (gaussian_floats(carrier) values) += the gradient, w.r.t. Gaussian g's floats (s its
/// shape), of sum_k d_out[k] * colour_k * w(x, y): what one sample whose dLoss/dEncoding is d_out
/// (k_gaussian_channels values) gives it. With the carrier, w = (e - rim) cos(phi), phi =
/// wx z1 + wy z2: phi adds -sin(phi) (e - rim) dLoss/dw (wx, wy) to dLoss/dz, and the
/// frequencies' floats' gradient is -sin(phi) (e - rim) dLoss/dw (z1, z2) k_gaussian_carrier_step.
template <class T>
REDRAW_HD inline void gaussian_backward(const GaussianShape<T>& s, const float* g, T cell, T x, T y, const T* d_out,
                                        T* grad, bool carrier = false) {
  T z1, z2;
  const T q = gaussian_q(s, x, y, z1, z2);
  if (!(q < T(k_gaussian_cutoff))) return;
  const T e = rd_exp(T(-0.5) * q), envelope = e - gaussian_rim<T>();
  T cosine = T(1), sine = T(0), wx = T(0), wy = T(0);
  if (carrier) {
    wx = gaussian_frequency<T>(g, 0), wy = gaussian_frequency<T>(g, 1);
    const T phi = wx * z1 + wy * z2;
    cosine = rd_cos(phi), sine = rd_sin(phi);
  }
  const T w = carrier ? envelope * cosine : envelope;
  T dw = T(0); // dLoss/dw
  for (int32_t k = 0; k < k_gaussian_channels; ++k) {
    dw += d_out[k] * T(g[k_gauss_colour + k]);
    grad[k_gauss_colour + k] += d_out[k] * w;
  }
  const T dq = T(-0.5) * e * (carrier ? dw * cosine : dw); // dLoss/dq
  T g1 = T(2) * z1 * dq, g2 = T(2) * z2 * dq;             // dLoss/dz1, dLoss/dz2
  if (carrier) {
    const T dphi = -sine * envelope * dw; // dLoss/dphi
    g1 += dphi * wx, g2 += dphi * wy;
    grad[k_gauss_wx] += dphi * z1 * T(k_gaussian_carrier_step);
    grad[k_gauss_wy] += dphi * z2 * T(k_gaussian_carrier_step);
  }
  // z1 = dx / a and z2 = (dy - b z1) / c: mx and a reach q through z1, directly and through b z1.
  const T h = g1 - g2 * s.b * s.inv_c;
  const T d_mx = -h * s.inv_a, d_a = d_mx * z1, d_b = -g2 * z1 * s.inv_c, d_c = -g2 * z2 * s.inv_c;
  grad[k_gauss_mx] += d_mx;
  grad[k_gauss_my] += -g2 * s.inv_c;
  // a = h sqrt(l11^2 + f^2), so da/dl11 = h^2 l11 / a; b = h l21; c as a, in l22.
  grad[k_gauss_l11] += d_a * cell * cell * T(g[k_gauss_l11]) * s.inv_a;
  grad[k_gauss_l21] += d_b * cell;
  grad[k_gauss_l22] += d_c * cell * cell * T(g[k_gauss_l22]) * s.inv_c;
}

// ---- growth (training.grow, engine/gaussian_growth.h): moving a Gaussian to where the error is --

/// The raw Cholesky diagonal l whose d(l) = sqrt(l^2 + f^2) is `sigma` cells (f when sigma is below it).
REDRAW_HD inline float gaussian_raw_diagonal(float sigma) {
  const float f = float(k_gaussian_diag_floor), d = sigma * sigma - f * f;
  return d > 0.0f ? rd_sqrt(d) : 0.0f;
}

/// Gaussian g placed at (x, y): round, `sigma` cells along each axis (l11 = l22 from
/// gaussian_raw_diagonal, l21 = 0), with `colour` (k_gaussian_channels values).
REDRAW_HD inline void gaussian_place(float* g, float x, float y, float sigma, const float* colour) {
  g[k_gauss_mx] = x;
  g[k_gauss_my] = y;
  g[k_gauss_l11] = gaussian_raw_diagonal(sigma);
  g[k_gauss_l21] = 0.0f;
  g[k_gauss_l22] = g[k_gauss_l11];
  for (int32_t k = 0; k < k_gaussian_channels; ++k) g[k_gauss_colour + k] = colour[k];
}

} // namespace redraw
