#pragma once
/// The `gaussians` encoding's CPU passes (engine/gaussian_math.h) over one set of parameters,
/// binned once and then read by any number of encode and backward calls (cpu/cpu_gaussians.cpp
/// builds it once per training step).
/// - Bins: [-1, 1]^2 is cut into GaussianParams::bins bins per side; each Gaussian is listed in
///   every bin its support's box touches (gaussian_box), a CSR list per bin, Gaussians in index
///   order. Culling by box drops only zero terms, so a pass is the all-pairs sum.
/// - Forward: the samples are split among threads; each output is its bin's list summed in order.
/// - Backward, without atomics or a buffer of partials: a call sorts its samples by bin (stably)
///   within the rectangle of bins they fall in, and each Gaussian, on one thread, walks the bins of
///   its box in that rectangle row by row: a bin's samples summed in sample order into a partial,
///   the partials added to its gradient in bin order. Every gradient is the same sum in the same
///   order whatever the thread count, and the same sum the per-call binning before it made.
/// - Every buffer is sized before the parallel loops and kept between calls: an allocation that
///   fails throws BackendError from no parallel region, and a step allocates nothing once warm.
#include "engine/gaussian_math.h"

#include <cstdint>
#include <vector>

namespace redraw::cpu {

class GaussianGrid {
public:
  /// Bins the g.count Gaussians of params (k_gaussian_floats each). BackendError, before anything
  /// is sized from them, when their boxes make more pairs than a model may
  /// (engine/gaussian_bounds.h), or when memory runs out.
  void build(const GaussianParams& g, const float* params);
  /// out (n x k_gaussian_channels) = the sum of the Gaussians at coords (n x 2), any coordinates.
  void encode(const float* coords, int64_t n, float* out) const;
  /// grads (count x k_gaussian_floats) = the Gaussians' gradient given d_out = dLoss/dEncoding
  /// (n x k_gaussian_channels) at coords, or added to grads when `accumulate`; params are the
  /// floats the grid was built from.
  void backward(const float* params, const float* coords, const float* d_out, int64_t n, float* grads,
                bool accumulate);

  /// A Gaussian's shape and colour together: what the forward pass reads for each pair.
  struct Term {
    GaussianShape<float> shape;
    float colour[k_gaussian_channels];
  };

private:
  void count_and_fill(bool fill);
  void sort_samples(const float* coords, const float* d_out, int64_t n);

  GaussianParams m_g;
  std::vector<Term> m_terms;    ///< per Gaussian
  std::vector<int32_t> m_box;   ///< per Gaussian: its bins x0, x1, y0, y1 (inclusive); x0 > x1 for none
  std::vector<int64_t> m_start; ///< per bin (row-major): where its list starts in m_list (bins^2 + 1)
  std::vector<int64_t> m_cursor;
  std::vector<int32_t> m_list; ///< Gaussian ids, bin after bin, ascending within a bin
  // A backward call's samples, sorted by bin within the rectangle [m_rx0, m_rx0 + m_rnx) x
  // [m_ry0, m_ry0 + m_rny) of the bins they fall in.
  int32_t m_rx0 = 0, m_ry0 = 0, m_rnx = 0, m_rny = 0;
  std::vector<int32_t> m_sample_bin; ///< per sample: its bin within the rectangle
  std::vector<int64_t> m_first;      ///< per rectangle bin: where its samples start (bins + 1)
  std::vector<float> m_sorted;       ///< per sorted sample: x, y, then its k_gaussian_channels d_out values
};

} // namespace redraw::cpu
