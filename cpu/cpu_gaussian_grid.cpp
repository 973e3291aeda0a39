#include "cpu/cpu_gaussian_grid.h"

#include "engine/errors.h"
#include "cpu/cpu_kernels.h"
#include "engine/gaussian_bounds.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <string>

namespace redraw::cpu {
namespace {

template <class T> void grid_resize(std::vector<T>& v, int64_t n) {
  try {
    v.resize(size_t(n));
  } catch (const std::bad_alloc&) {
    throw BackendError("cpu backend: out of memory binning the Gaussians (" +
                       std::to_string(n * int64_t(sizeof(T)) >> 20) + " MiB)");
  }
}

/// The bin of a Gaussian's mean (g: its floats), row-major on the whole grid.
inline int64_t mean_bin_of(const float* g, int32_t bins) {
  return int64_t(gaussian_bin(g[k_gauss_my], bins)) * bins + gaussian_bin(g[k_gauss_mx], bins);
}

/// Arrays a sorted sample keeps (each n long): x, y and its dLoss/dEncoding.
constexpr int64_t k_sorted_arrays = 2 + k_gaussian_channels;

/// Pairs a kernel evaluates in one vector loop before it sums them in order.
constexpr int64_t k_kernel_block = 64;
/// A vector loop runs a multiple of this many lanes (AVX2's 8, two of the baseline's 4), past the
/// block's end into padding that the sums never read: blocks are short (a box row holds a few
/// samples), and the compiler's scalar tail would run most of them one lane at a time.
constexpr int64_t k_lane_pad = 8;
inline int64_t padded_lanes(int64_t m) { return (m + k_lane_pad - 1) / k_lane_pad * k_lane_pad; }

#define REDRAW_GAUSSIAN_INLINE inline __attribute__((always_inline))

/// Samples [s0, s1): out = their bins' lists summed in list order. The weights of a block of
/// pairs are worked out lane by lane (gaussian_weight's operations, with gaussian_cpu_exp), then
/// added one after another, so a vector width changes no bit. A pair outside its Gaussian's
/// support adds +0, which changes no sum (a sum that starts at +0 is never -0). Carrier: each
/// weight times cos(wx z1 + wy z2) (gaussian_cpu_cos_sin).
template <bool Carrier>
REDRAW_GAUSSIAN_INLINE void encode_samples(const GaussianGrid::View& v, const float* coords, int64_t s0, int64_t s1,
                                           float* out) {
  const float cutoff = float(k_gaussian_cutoff);
  for (int64_t s = s0; s < s1; ++s) {
    const float x = coords[2 * s], y = coords[2 * s + 1];
    const int64_t bin = int64_t(gaussian_bin(y, v.bins)) * v.bins + gaussian_bin(x, v.bins);
    float acc0 = 0.0f, acc1 = 0.0f, acc2 = 0.0f;
    for (int64_t p0 = v.start[bin]; p0 < v.start[bin + 1]; p0 += k_kernel_block) {
      const int64_t m = std::min(k_kernel_block, v.start[bin + 1] - p0);
      const int32_t* ids = v.list + p0;
      float c0[k_kernel_block], c1[k_kernel_block], c2[k_kernel_block];
      const int64_t lanes = padded_lanes(m); // the list has k_lane_pad entries past its end
#pragma omp simd
      for (int64_t j = 0; j < lanes; ++j) {
        const GaussianTerm& t = v.terms[ids[j]];
        const float z1 = (x - t.shape.mx) * t.shape.inv_a;
        const float z2 = (y - t.shape.my - t.shape.b * z1) * t.shape.inv_c;
        const float q = z1 * z1 + z2 * z2;
        // Every value is worked out in every lane and then selected: a conditional operation would
        // keep the loop scalar (it may trap, without -ffast-math).
        const bool inside = q < cutoff;
        const float half_q = -0.5f * q;
        float w = gaussian_cpu_exp(inside ? half_q : 0.0f) - v.rim;
        if constexpr (Carrier) {
          const float phase = v.wx[ids[j]] * z1 + v.wy[ids[j]] * z2; // two gathers: a pair would not vectorize
          float cosine = 0.0f, sine = 0.0f;
          gaussian_cpu_cos_sin(inside ? phase : 0.0f, cosine, sine);
          w = w * cosine;
        }
        const bool adds = inside & (w != 0.0f); // as gaussian_weight's 0 outside, never colour * 0
        const float w0 = t.colour[0] * w, w1 = t.colour[1] * w, w2 = t.colour[2] * w;
        c0[j] = adds ? w0 : 0.0f;
        c1[j] = adds ? w1 : 0.0f;
        c2[j] = adds ? w2 : 0.0f;
      }
      for (int64_t j = 0; j < m; ++j) acc0 += c0[j], acc1 += c1[j], acc2 += c2[j];
    }
    out[s * 3] = acc0, out[s * 3 + 1] = acc1, out[s * 3 + 2] = acc2;
  }
  static_assert(k_gaussian_channels == 3, "three colour channels");
}

/// gaussian_backward's terms of Gaussian t (its raw diagonals l11, l22) for the sorted samples at
/// positions at_of(j), j in [0, lanes), into c[field][j]: worked out lane by lane with
/// gaussian_cpu_exp, every value computed and then selected (+0 outside the support). Carrier: f
/// its frequency (wx, wy), and c has the frequencies' rows too (gaussian_backward's terms).
template <bool Carrier> constexpr int32_t k_grid_floats = Carrier ? k_gaussian_carrier_floats : k_gaussian_floats;
template <bool Carrier, class At>
REDRAW_GAUSSIAN_INLINE void backward_terms(const GaussianGrid::View& v, const GaussianTerm& t, const float* f, float l11,
                                           float l22, const float* sorted, int64_t stride, At at_of, int64_t lanes,
                                           float (&c)[k_grid_floats<Carrier>][k_kernel_block]) {
  const float cutoff = float(k_gaussian_cutoff), cell = v.cell;
  const float wx = Carrier ? f[0] : 0.0f, wy = Carrier ? f[1] : 0.0f, step = float(k_gaussian_carrier_step);
  const float mx = t.shape.mx, my = t.shape.my, inv_a = t.shape.inv_a, b = t.shape.b, inv_c = t.shape.inv_c;
  const float col0 = t.colour[0], col1 = t.colour[1], col2 = t.colour[2];
  const float *sx = sorted, *sy = sorted + stride, *sd0 = sorted + 2 * stride, *sd1 = sorted + 3 * stride,
              *sd2 = sorted + 4 * stride;
#pragma omp simd
  for (int64_t j = 0; j < lanes; ++j) {
    const int64_t at = at_of(j);
    const float x = sx[at], y = sy[at], d0 = sd0[at], d1 = sd1[at], d2 = sd2[at];
    const float z1 = (x - mx) * inv_a;
    const float z2 = (y - my - b * z1) * inv_c;
    const float q = z1 * z1 + z2 * z2;
    const bool inside = q < cutoff;
    const float half_q = -0.5f * q;
    const float e = gaussian_cpu_exp(inside ? half_q : 0.0f), envelope = e - v.rim;
    float dw = 0.0f;
    dw += d0 * col0;
    dw += d1 * col1;
    dw += d2 * col2;
    float w = envelope, dq = 0.0f, g1 = 0.0f, g2 = 0.0f, d_wx = 0.0f, d_wy = 0.0f;
    if constexpr (Carrier) {
      float cosine = 0.0f, sine = 0.0f;
      gaussian_cpu_cos_sin(inside ? wx * z1 + wy * z2 : 0.0f, cosine, sine);
      w = envelope * cosine;
      dq = -0.5f * e * (dw * cosine);
      const float dphi = -sine * envelope * dw;
      g1 = 2.0f * z1 * dq, g2 = 2.0f * z2 * dq;
      g1 += dphi * wx, g2 += dphi * wy;
      d_wx = dphi * z1 * step, d_wy = dphi * z2 * step;
    } else {
      dq = -0.5f * e * dw;
      g1 = 2.0f * z1 * dq, g2 = 2.0f * z2 * dq;
    }
    const float h = g1 - g2 * b * inv_c;
    const float d_mx = -h * inv_a, d_a = d_mx * z1, d_b = -g2 * z1 * inv_c, d_c = -g2 * z2 * inv_c;
    const float d_my = -g2 * inv_c, d_l11 = d_a * cell * cell * l11 * inv_a, d_l21 = d_b * cell,
                d_l22 = d_c * cell * cell * l22 * inv_c, dc0 = d0 * w, dc1 = d1 * w, dc2 = d2 * w;
    c[k_gauss_mx][j] = inside ? d_mx : 0.0f;
    c[k_gauss_my][j] = inside ? d_my : 0.0f;
    c[k_gauss_l11][j] = inside ? d_l11 : 0.0f;
    c[k_gauss_l21][j] = inside ? d_l21 : 0.0f;
    c[k_gauss_l22][j] = inside ? d_l22 : 0.0f;
    c[k_gauss_colour][j] = inside ? dc0 : 0.0f;
    c[k_gauss_colour + 1][j] = inside ? dc1 : 0.0f;
    c[k_gauss_colour + 2][j] = inside ? dc2 : 0.0f;
    if constexpr (Carrier) {
      c[k_gauss_wx][j] = inside ? d_wx : 0.0f;
      c[k_gauss_wy][j] = inside ? d_wy : 0.0f;
    }
  }
  static_assert(k_gaussian_channels == 3, "three colour channels");
}

/// One row of a Gaussian's box, whatever its samples: the sorted samples [first[k0], first[k1 + 1])
/// of bins k0..k1 of the rectangle, in blocks; each bin's samples summed in order into a partial
/// (from +0), the partials added to grad in bin order, empty bins too.
template <bool Carrier>
REDRAW_GAUSSIAN_INLINE void backward_row(const GaussianGrid::View& v, const GaussianTerm& t, const float* f, float l11,
                                         float l22, const float* sorted, int64_t stride, const int64_t* first,
                                         int64_t k0, int64_t k1, float* grad) {
  constexpr int32_t F = k_grid_floats<Carrier>;
  const int64_t j0 = first[k0], j1 = first[k1 + 1];
  float acc[F] = {};
  int64_t k = k0, bin_end = first[k0 + 1];
  for (int64_t seg = j0; seg < j1; seg += k_kernel_block) {
    const int64_t m = std::min(k_kernel_block, j1 - seg);
    float c[F][k_kernel_block];
    // each sorted array has k_lane_pad values past its end
    backward_terms<Carrier>(v, t, f, l11, l22, sorted, stride, [seg](int64_t j) { return seg + j; }, padded_lanes(m), c);
    for (int64_t j = 0; j < m; ++j) {
      for (; seg + j >= bin_end; bin_end = first[++k + 1]) // the bins that end here, empty ones too
        for (int32_t e = 0; e < F; ++e) grad[e] += acc[e], acc[e] = 0.0f;
      for (int32_t e = 0; e < F; ++e) acc[e] += c[e][j];
    }
  }
  for (; k <= k1; ++k) // the last bin with samples, and the empty ones after it
    for (int32_t e = 0; e < F; ++e) grad[e] += acc[e], acc[e] = 0.0f;
}

/// The Gaussians at places [a0, a1) of the grid's order: their gradients from the sorted samples.
struct BackwardArgs {
  const int32_t* order;
  const float* params;
  const float* sorted;
  int64_t stride; ///< between the sorted arrays
  const int64_t* first;
  int32_t rx0, ry0, rnx, rny;
  float* grads;
  bool accumulate;
};

template <bool Carrier>
REDRAW_GAUSSIAN_INLINE void backward_gaussians(const GaussianGrid::View& v, const BackwardArgs& a, int64_t a0, int64_t a1) {
  constexpr int32_t F = k_grid_floats<Carrier>;
  const int32_t rx1 = a.rx0 + a.rnx - 1, ry1 = a.ry0 + a.rny - 1;
  for (int64_t at = a0; at < a1; ++at) {
    if (at + 8 < a1) { // the grid's order scatters the indices: fetch a few Gaussians ahead
      __builtin_prefetch(a.grads + int64_t(a.order[at + 8]) * F, 1);
      __builtin_prefetch(a.params + int64_t(a.order[at + 8]) * F);
    }
    const int64_t i = a.order[at];
    float* gr = a.grads + i * F;
    float g[F];
    for (int32_t f = 0; f < F; ++f) g[f] = a.accumulate ? gr[f] : 0.0f;
    const int32_t* o = v.box + at * 4;
    const int32_t x0 = std::max(o[0], a.rx0), x1 = std::min(o[1], rx1);
    const int32_t y0 = std::max(o[2], a.ry0), y1 = std::min(o[3], ry1);
    if (o[0] <= o[1] && x0 <= x1) {
      const float* gi = a.params + i * F;
      const float l11 = gi[k_gauss_l11], l22 = gi[k_gauss_l22];
      const float f[2] = {Carrier ? v.wx[at] : 0.0f, Carrier ? v.wy[at] : 0.0f};
      const int64_t row0 = int64_t(y0 - a.ry0) * a.rnx + (x0 - a.rx0), width = x1 - x0, rows = y1 - y0 + 1;
      // Row by row: a row's samples lie together in the sorted arrays (gathering a whole box's
      // few samples into one block of lanes measured slower: the gathers cost more than the lanes).
      for (int64_t r = 0; r < rows; ++r) // the box's rows, each a run of bins in row-major order
        backward_row<Carrier>(v, v.terms[at], f, l11, l22, a.sorted, a.stride, a.first, row0 + r * a.rnx,
                              row0 + r * a.rnx + width, g);
    }
    std::copy(g, g + F, gr);
  }
}

// Each kernel twice: for the x86-64 baseline and for AVX2 (8 lanes, gathers), with the same IEEE
// operations (no FMA: "avx2" alone does not enable it), so both give the same bits; each picks
// its carrier form by the view (v.wx).
#define REDRAW_GAUSSIAN_KERNELS(suffix, target)                                                                     \
  target void encode_samples_##suffix(const GaussianGrid::View& v, const float* coords, int64_t s0, int64_t s1,    \
                                      float* out) {                                                              \
    v.wx ? encode_samples<true>(v, coords, s0, s1, out) : encode_samples<false>(v, coords, s0, s1, out);        \
  }                                                                                                              \
  target void backward_gaussians_##suffix(const GaussianGrid::View& v, const BackwardArgs& a, int64_t a0,         \
                                          int64_t a1) {                                                          \
    v.wx ? backward_gaussians<true>(v, a, a0, a1) : backward_gaussians<false>(v, a, a0, a1);                    \
  }
REDRAW_GAUSSIAN_KERNELS(baseline, )
#if defined(__x86_64__) || defined(_M_X64)
REDRAW_GAUSSIAN_KERNELS(avx2, __attribute__((target("avx2"))))
#else
REDRAW_GAUSSIAN_KERNELS(avx2, )
#endif
#undef REDRAW_GAUSSIAN_KERNELS

} // namespace

void GaussianGrid::build(const GaussianParams& g, const float* params) {
  m_g = g;
  const int32_t bins = g.bins;
  grid_resize(m_terms, g.count);
  grid_resize(m_freq, g.carrier ? 2 * g.count : 0);
  grid_resize(m_box, g.count * 4);
  grid_resize(m_order, g.count);
  grid_resize(m_start, int64_t(bins) * bins + 1);
  grid_resize(m_cursor, int64_t(bins) * bins);
  // The Gaussians in the order of their means' bins (stably): a bin's list then reads terms that
  // lie together in memory, where the seed scatters the indices over the picture.
  std::fill(m_start.begin(), m_start.end(), int64_t(0));
  const int64_t stride = g.floats;
  for (int64_t i = 0; i < g.count; ++i) ++m_start[size_t(mean_bin_of(params + i * stride, bins)) + 1];
  for (size_t k = 1; k < m_start.size(); ++k) m_start[k] += m_start[k - 1];
  for (int64_t i = 0; i < g.count; ++i) m_order[size_t(m_start[size_t(mean_bin_of(params + i * stride, bins))]++)] = int32_t(i);
  const float cell = g.cell;
  int64_t pairs = 0;
#pragma omp parallel for schedule(static) reduction(+ : pairs)
  for (int64_t at = 0; at < g.count; ++at) {
    const float* p = params + int64_t(m_order[size_t(at)]) * stride;
    GaussianTerm& t = m_terms[size_t(at)];
    t.shape = gaussian_shape<float>(p, cell);
    for (int32_t k = 0; k < k_gaussian_channels; ++k) t.colour[k] = p[k_gauss_colour + k];
    if (g.carrier) // in radians per standard deviation
      m_freq[size_t(at)] = gaussian_frequency<float>(p, 0), m_freq[size_t(g.count + at)] = gaussian_frequency<float>(p, 1);
    int32_t* o = m_box.data() + at * 4;
    gaussian_box(p, cell, bins, o);
    pairs += gaussian_box_pairs(o);
  }
  if (const std::string why = gaussian_pairs_problem(pairs, g.count); !why.empty())
    throw BackendError("cpu backend: " + why);
  grid_resize(m_list, pairs + k_lane_pad);
  std::fill(m_list.end() - k_lane_pad, m_list.end(), 0); // read by the padded lanes, never summed
  count_and_fill(false);
  m_start[0] = 0;
  for (size_t k = 1; k < m_start.size(); ++k) m_start[k] += m_start[k - 1];
  std::copy(m_start.begin(), m_start.end() - 1, m_cursor.begin());
  count_and_fill(true);
}

/// Each thread owns a band of bin rows and walks every Gaussian's box in the grid's order, counting
/// (into m_start[bin + 1]) or listing (at m_cursor[bin]) the pairs in its band: each bin's list
/// ascends, and the lists are the same whatever the team.
void GaussianGrid::count_and_fill(bool fill) {
  const int32_t bins = m_g.bins;
  const int64_t count = m_g.count;
#pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int32_t row0 = int32_t(int64_t(bins) * t / nt), row1 = int32_t(int64_t(bins) * (t + 1) / nt);
    if (!fill)
      std::fill(m_start.begin() + 1 + int64_t(row0) * bins, m_start.begin() + 1 + int64_t(row1) * bins, int64_t(0));
    for (int64_t i = 0; i < count; ++i) {
      const int32_t* o = m_box.data() + i * 4;
      // (i: the Gaussian's place in the grid's order)
      if (o[0] > o[1]) continue;
      const int32_t y0 = std::max(o[2], row0), y1 = std::min(o[3], row1 - 1);
      for (int32_t y = y0; y <= y1; ++y) {
        const int64_t row = int64_t(y) * bins;
        if (fill)
          for (int32_t x = o[0]; x <= o[1]; ++x) m_list[size_t(m_cursor[size_t(row + x)]++)] = int32_t(i);
        else
          for (int32_t x = o[0]; x <= o[1]; ++x) ++m_start[size_t(row + x + 1)];
      }
    }
  }
}

bool GaussianGrid::avx2_available() {
#if defined(__x86_64__) || defined(_M_X64)
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
#else
  return false;
#endif
}

bool GaussianGrid::default_avx2() {
  static const bool use = avx2_available() && std::strcmp(cpu_kernels().isa, "sse2") != 0;
  return use;
}

GaussianGrid::View GaussianGrid::view() const {
  const float* wx = m_g.carrier ? m_freq.data() : nullptr;
  return {m_terms.data(), wx,       wx ? wx + m_g.count : nullptr, m_box.data(), m_start.data(), m_list.data(),
          m_g.bins,       m_g.cell, gaussian_cpu_exp(float(-0.5 * k_gaussian_cutoff))};
}

void GaussianGrid::encode(const float* coords, int64_t n, float* out) const {
  const GaussianGrid::View v = view();
  const bool avx2 = m_avx2;
  constexpr int64_t k_rows = 256; // a piece of samples; each output is its own, whatever the team
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t s0 = 0; s0 < n; s0 += k_rows) {
    const int64_t s1 = std::min(n, s0 + k_rows);
    avx2 ? encode_samples_avx2(v, coords, s0, s1, out) : encode_samples_baseline(v, coords, s0, s1, out);
  }
}

/// The rectangle of bins the n samples fall in, and the samples sorted by bin within it, stably
/// (a counting sort in sample order), each with its d_out beside its coordinates.
void GaussianGrid::sort_samples(const float* coords, const float* d_out, int64_t n) {
  const int32_t bins = m_g.bins;
  int32_t x0 = bins, x1 = -1, y0 = bins, y1 = -1;
#pragma omp parallel for schedule(static) reduction(min : x0, y0) reduction(max : x1, y1)
  for (int64_t s = 0; s < n; ++s) {
    const int32_t bx = gaussian_bin(coords[2 * s], bins), by = gaussian_bin(coords[2 * s + 1], bins);
    x0 = std::min(x0, bx), x1 = std::max(x1, bx), y0 = std::min(y0, by), y1 = std::max(y1, by);
  }
  m_rx0 = x0, m_ry0 = y0, m_rnx = x1 - x0 + 1, m_rny = y1 - y0 + 1;
  const int64_t rect_bins = int64_t(m_rnx) * m_rny;
  grid_resize(m_sample_bin, n);
  m_stride = n + k_lane_pad;
  grid_resize(m_sorted, m_stride * k_sorted_arrays);
  for (int64_t a = 0; a < k_sorted_arrays; ++a) // the padded lanes read zeros, never summed
    std::fill(m_sorted.begin() + a * m_stride + n, m_sorted.begin() + (a + 1) * m_stride, 0.0f);
  grid_resize(m_first, rect_bins + 1);
  grid_resize(m_cursor, std::max<int64_t>(int64_t(m_cursor.size()), rect_bins));
#pragma omp parallel for schedule(static)
  for (int64_t s = 0; s < n; ++s)
    m_sample_bin[size_t(s)] =
        (gaussian_bin(coords[2 * s + 1], bins) - m_ry0) * m_rnx + (gaussian_bin(coords[2 * s], bins) - m_rx0);
  std::fill(m_first.begin(), m_first.end(), int64_t(0));
  for (int64_t s = 0; s < n; ++s) ++m_first[size_t(m_sample_bin[size_t(s)]) + 1];
  for (int64_t k = 0; k < rect_bins; ++k) m_first[size_t(k + 1)] += m_first[size_t(k)];
  std::copy(m_first.begin(), m_first.end() - 1, m_cursor.begin());
  for (int64_t s = 0; s < n; ++s) {
    float* to = m_sorted.data() + m_cursor[size_t(m_sample_bin[size_t(s)])]++;
    to[0] = coords[2 * s], to[m_stride] = coords[2 * s + 1];
    for (int32_t k = 0; k < k_gaussian_channels; ++k) to[(2 + k) * m_stride] = d_out[s * k_gaussian_channels + k];
  }
}

void GaussianGrid::backward(const float* params, const float* coords, const float* d_out, int64_t n, float* grads,
                            bool accumulate) {
  sort_samples(coords, d_out, n);
  const GaussianGrid::View v = view();
  const BackwardArgs a{m_order.data(), params, m_sorted.data(), m_stride, m_first.data(),
                       m_rx0, m_ry0, m_rnx, m_rny, grads, accumulate};
  const bool avx2 = m_avx2;
  // Each Gaussian is one thread's; their costs follow the samples in their boxes, so the
  // schedule is dynamic (the sums do not depend on it).
  constexpr int64_t k_gaussians = 64;
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t a0 = 0; a0 < m_g.count; a0 += k_gaussians) {
    const int64_t a1 = std::min(m_g.count, a0 + k_gaussians);
    avx2 ? backward_gaussians_avx2(v, a, a0, a1) : backward_gaussians_baseline(v, a, a0, a1);
  }
}

} // namespace redraw::cpu
