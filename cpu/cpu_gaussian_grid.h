#pragma once
/// The `gaussians` encoding's CPU passes (engine/gaussian_math.h) over one set of parameters,
/// binned once and then read by any number of encode and backward calls (cpu/cpu_gaussians.cpp
/// builds it once per training step).
/// - Bins: [-1, 1]^2 is cut into GaussianParams::bins bins per side; each Gaussian is listed in
///   every bin its support's box touches (gaussian_box), a CSR list per bin. The grid keeps the
///   Gaussians in the order of their means' bins (stably), and a list in that order, so a bin's
///   list reads terms that lie together (the seed scatters indices over the picture). Culling by
///   box drops only zero terms, so a pass is the all-pairs sum.
/// - Forward: the samples are split among threads; each output is its bin's list summed in order.
/// - Backward, without atomics or a buffer of partials: a call sorts its samples by bin (stably)
///   within the rectangle of bins they fall in, and each Gaussian, on one thread, walks the bins of
///   its box in that rectangle row by row: a bin's samples summed in sample order into a partial,
///   the partials added to its gradient in bin order. Every sum is in an order that does not
///   follow the team.
/// - Kernels: a block of pairs (a sample's list entries, a box row's samples) is worked out lane
///   by lane in a vector loop, every value computed and then selected, and then added one after
///   another. The loops are built for the x86-64 baseline and for AVX2 without FMA, and the exp is
///   gaussian_cpu_exp, so both give the same bits (glibc's expf has no vector twin that does).
/// - Every buffer is sized before the parallel loops and kept between calls: an allocation that
///   fails throws BackendError from no parallel region, and a step allocates nothing once warm.
#include "engine/gaussian_math.h"

#include <bit>
#include <cstdint>
#include <vector>

namespace redraw::cpu {

/// exp(x) for the weights, x in [-4.5, 0] (any x in [-87, 0] is within 2 ulp): Cephes' expf
/// (a degree-7 polynomial after taking out a power of 2), in plain IEEE operations that a vector
/// loop runs lane by lane, so the passes' kernels give the same bits at every vector width
/// (glibc's expf has no vector twin that rounds as it does).
inline float gaussian_cpu_exp(float x) {
  const float t = x * 1.44269504088896341f;
  const float k = (t + 12582912.0f) - 12582912.0f; // t rounded to an integer (|t| < 2^22)
  const float r = (x - k * 0.693359375f) - k * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  return p * std::bit_cast<float>((int32_t(k) + 127) << 23);
}

/// cos(x) and sin(x) for the carrier's phase (engine/gaussian_math.h): reduced by pi/2 in three
/// parts (Cody and Waite, as Cephes' sinf) to |r| <= pi/4, then Cephes' polynomials, the quadrant
/// picked by float compares and selects, in plain IEEE operations as gaussian_cpu_exp: the same
/// bits at every vector width. Within 1e-7 of cos and sin for |x| <= 1e4 (|z| < 3 within the
/// support: frequencies past 3000 radians per standard deviation); beyond, less exact, the same bits.
inline __attribute__((always_inline)) void gaussian_cpu_cos_sin(float x, float& c, float& s) {
  const float k = (x * 0.636619772367581343f + 12582912.0f) - 12582912.0f; // x / (pi/2), rounded
  const float r = ((x - k * 1.5703125f) - k * 4.837512969970703125e-4f) - k * 7.54978995489188216e-8f;
  const float r2 = r * r;
  float ps = -1.9515295891e-4f;
  ps = ps * r2 + 8.3321608736e-3f;
  ps = ps * r2 - 1.6666654611e-1f;
  const float sr = r + r * r2 * ps;
  float pc = 2.443315711809948e-5f;
  pc = pc * r2 - 1.388731625493765e-3f;
  pc = pc * r2 + 4.166664568298827e-2f;
  const float cr = (1.0f - 0.5f * r2) + r2 * r2 * pc;
  // The quadrant k mod 4 as m = k - 4 round(k / 4) in {-2, -1, 0, 1, 2} (-2 and 2 alike), picked
  // by compares on m alone (bool arithmetic between compares keeps GCC's loops scalar).
  const float m = k - 4.0f * ((k * 0.25f + 12582912.0f) - 12582912.0f);
  const float odd = m * m;
  const float a = odd == 1.0f ? sr : cr, b = odd == 1.0f ? cr : sr;
  const float c_right = m > 0.5f ? -a : a; // cos(r + q pi/2): cr, -sr, -cr, sr for q = 0..3
  c = m < -1.5f ? -a : c_right;
  const float s_left = m < -0.5f ? -b : b; // sin(r + q pi/2): sr, cr, -sr, -cr
  s = m > 1.5f ? -b : s_left;
}

/// A Gaussian's shape and colour together: what the forward pass reads for each pair.
struct GaussianTerm {
  GaussianShape<float> shape;
  float colour[k_gaussian_channels];
};

class GaussianGrid {
public:
  /// Bins the g.count Gaussians of params (g.floats each). BackendError, before anything
  /// is sized from them, when their boxes make more pairs than a model may
  /// (engine/gaussian_bounds.h), or when memory runs out.
  void build(const GaussianParams& g, const float* params);
  /// out (n x k_gaussian_channels) = the sum of the Gaussians at coords (n x 2), any coordinates.
  void encode(const float* coords, int64_t n, float* out) const;
  /// Which kernels the passes run: AVX2 (8 lanes) where the CPU has it and REDRAW_SIMD does not
  /// ask for sse2, else the x86-64 baseline's (4 lanes); both give the same bits. Tests pick one.
  void use_avx2(bool on) { m_avx2 = on && avx2_available(); }
  static bool avx2_available();

  /// grads (count x g.floats) = the Gaussians' gradient given d_out = dLoss/dEncoding
  /// (n x k_gaussian_channels) at coords, or added to grads when `accumulate`; params are the
  /// floats the grid was built from.
  void backward(const float* params, const float* coords, const float* d_out, int64_t n, float* grads,
                bool accumulate);

  /// What the passes' kernels read of a grid.
  struct View {
    const GaussianTerm* terms;
    const float *wx, *wy; ///< per place: the carrier's frequency (gaussian_frequency); null without it
    const int32_t* box;
    const int64_t* start;
    const int32_t* list;
    int32_t bins;
    float cell, rim;
  };

private:
  View view() const;
  void count_and_fill(bool fill);
  void sort_samples(const float* coords, const float* d_out, int64_t n);

  GaussianParams m_g;
  bool m_avx2 = default_avx2();
  static bool default_avx2();
  // The Gaussians in the grid's order: by the bin of their means, row-major, then by index.
  std::vector<int32_t> m_order; ///< per place in that order: the Gaussian's index
  std::vector<GaussianTerm> m_terms;    ///< per place
  std::vector<float> m_freq;    ///< with the carrier: every place's wx, then every place's wy
  std::vector<int32_t> m_box;   ///< per place: its bins x0, x1, y0, y1 (inclusive); x0 > x1 for none
  std::vector<int64_t> m_start; ///< per bin (row-major): where its list starts in m_list (bins^2 + 1)
  std::vector<int64_t> m_cursor;
  std::vector<int32_t> m_list; ///< places in the grid's order, bin after bin, ascending within a bin
  // A backward call's samples, sorted by bin within the rectangle [m_rx0, m_rx0 + m_rnx) x
  // [m_ry0, m_ry0 + m_rny) of the bins they fall in.
  int32_t m_rx0 = 0, m_ry0 = 0, m_rnx = 0, m_rny = 0;
  std::vector<int32_t> m_sample_bin; ///< per sample: its bin within the rectangle
  std::vector<int64_t> m_first;      ///< per rectangle bin: where its samples start (bins + 1)
  std::vector<float> m_sorted;       ///< the sorted samples' x, then their y, then each d_out channel
  int64_t m_stride = 0;              ///< between those arrays in m_sorted (n and a padding)
};

} // namespace redraw::cpu
