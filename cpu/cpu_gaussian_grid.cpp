#include "cpu/cpu_gaussian_grid.h"

#include "engine/errors.h"
#include "engine/gaussian_bounds.h"

#include <omp.h>

#include <algorithm>
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

/// Floats a sorted sample keeps: x, y and its dLoss/dEncoding.
constexpr int64_t k_sorted_floats = 2 + k_gaussian_channels;

} // namespace

void GaussianGrid::build(const GaussianParams& g, const float* params) {
  m_g = g;
  grid_resize(m_terms, g.count);
  grid_resize(m_box, g.count * 4);
  const float cell = g.cell;
  int64_t pairs = 0;
#pragma omp parallel for schedule(static) reduction(+ : pairs)
  for (int64_t i = 0; i < g.count; ++i) {
    const float* p = params + i * k_gaussian_floats;
    Term& t = m_terms[size_t(i)];
    t.shape = gaussian_shape<float>(p, cell);
    for (int32_t k = 0; k < k_gaussian_channels; ++k) t.colour[k] = p[k_gauss_colour + k];
    int32_t* o = m_box.data() + i * 4;
    gaussian_box(p, cell, g.bins, o);
    pairs += gaussian_box_pairs(o);
  }
  if (const std::string why = gaussian_pairs_problem(pairs, g.count); !why.empty())
    throw BackendError("cpu backend: " + why);
  const int64_t bins = int64_t(g.bins) * g.bins;
  grid_resize(m_start, bins + 1);
  grid_resize(m_cursor, bins);
  grid_resize(m_list, pairs);
  count_and_fill(false);
  m_start[0] = 0;
  for (int64_t k = 0; k < bins; ++k) m_start[size_t(k + 1)] += m_start[size_t(k)];
  std::copy(m_start.begin(), m_start.end() - 1, m_cursor.begin());
  count_and_fill(true);
}

/// Each thread owns a band of bin rows and walks every Gaussian's box in index order, counting
/// (into m_start[bin + 1]) or listing (at m_cursor[bin]) the pairs in its band: each bin's list
/// ascends by index, and the lists are the same whatever the team.
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

void GaussianGrid::encode(const float* coords, int64_t n, float* out) const {
  const int32_t bins = m_g.bins;
#pragma omp parallel for schedule(static)
  for (int64_t s = 0; s < n; ++s) {
    const float x = coords[2 * s], y = coords[2 * s + 1];
    const int64_t bin = int64_t(gaussian_bin(y, bins)) * bins + gaussian_bin(x, bins);
    float acc[k_gaussian_channels] = {};
    for (int64_t p = m_start[size_t(bin)]; p < m_start[size_t(bin) + 1]; ++p) {
      const Term& t = m_terms[size_t(m_list[size_t(p)])];
      const float w = gaussian_weight(t.shape, x, y);
      if (w == 0.0f) continue;
      for (int32_t k = 0; k < k_gaussian_channels; ++k) acc[k] += t.colour[k] * w;
    }
    for (int32_t k = 0; k < k_gaussian_channels; ++k) out[s * k_gaussian_channels + k] = acc[k];
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
  grid_resize(m_sorted, n * k_sorted_floats);
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
    float* to = m_sorted.data() + m_cursor[size_t(m_sample_bin[size_t(s)])]++ * k_sorted_floats;
    to[0] = coords[2 * s], to[1] = coords[2 * s + 1];
    for (int32_t k = 0; k < k_gaussian_channels; ++k) to[2 + k] = d_out[s * k_gaussian_channels + k];
  }
}

void GaussianGrid::backward(const float* params, const float* coords, const float* d_out, int64_t n, float* grads,
                            bool accumulate) {
  sort_samples(coords, d_out, n);
  const float cell = m_g.cell;
  const int32_t rx1 = m_rx0 + m_rnx - 1, ry1 = m_ry0 + m_rny - 1;
  // Each Gaussian is one thread's; their costs follow the samples in their boxes, so the
  // schedule is dynamic (the sums do not depend on it).
#pragma omp parallel for schedule(dynamic, 64)
  for (int64_t i = 0; i < m_g.count; ++i) {
    float* gr = grads + i * k_gaussian_floats;
    float v[k_gaussian_floats];
    for (int32_t f = 0; f < k_gaussian_floats; ++f) v[f] = accumulate ? gr[f] : 0.0f;
    const int32_t* o = m_box.data() + i * 4;
    const int32_t x0 = std::max(o[0], m_rx0), x1 = std::min(o[1], rx1);
    const int32_t y0 = std::max(o[2], m_ry0), y1 = std::min(o[3], ry1);
    if (o[0] <= o[1] && x0 <= x1) {
      const float* gi = params + i * k_gaussian_floats;
      const GaussianShape<float> shape = m_terms[size_t(i)].shape;
      for (int32_t by = y0; by <= y1; ++by)
        for (int32_t bx = x0; bx <= x1; ++bx) { // the box's bins in row-major order
          const int64_t k = int64_t(by - m_ry0) * m_rnx + (bx - m_rx0);
          float acc[k_gaussian_floats] = {};
          for (int64_t j = m_first[size_t(k)]; j < m_first[size_t(k) + 1]; ++j) {
            const float* sp = m_sorted.data() + j * k_sorted_floats;
            gaussian_backward(shape, gi, cell, sp[0], sp[1], sp + 2, acc);
          }
          for (int32_t f = 0; f < k_gaussian_floats; ++f) v[f] += acc[f];
        }
    }
    std::copy(v, v + k_gaussian_floats, gr);
  }
}

} // namespace redraw::cpu
