#include "cpu/cpu_gaussians.h"
#include "cpu/cpu_family_encoders.h"

#include "engine/errors.h"
#include "engine/gaussian_bounds.h"

#include <omp.h>

#include <algorithm>
#include <new>
#include <string>
#include <vector>

namespace redraw {
namespace {

/// The Gaussians binned for one call's samples (see the header).
struct GaussianBins {
  int32_t bx0 = 0, by0 = 0, nx = 0, ny = 0; ///< the rectangle of bins the samples fall in
  std::vector<int32_t> sample_bin;          ///< per sample: its bin within the rectangle
  std::vector<GaussianShape<float>> shapes; ///< per Gaussian
  std::vector<int64_t> start;               ///< per bin: where its list starts in `list` (nx * ny + 1)
  std::vector<int32_t> list;                ///< Gaussian ids, bin after bin, ascending within a bin
  /// Backward only: per Gaussian, where its pairs start in pair_at (count + 1), and pair_at: the
  /// positions in `list` of its pairs, in bin order.
  std::vector<int64_t> gaussian_start, pair_at;
};

template <class T> void resize_or_throw(std::vector<T>& v, int64_t n) {
  try {
    v.resize(size_t(n));
  } catch (const std::bad_alloc&) {
    throw BackendError("cpu backend: out of memory binning the Gaussians (" +
                       std::to_string(n * int64_t(sizeof(T)) >> 20) + " MiB)");
  }
}

/// The Gaussians' boxes, clipped to the samples' rectangle, as bins: x0, x1, y0, y1 (inclusive),
/// or x0 > x1 when a box misses it. BackendError, before anything is sized from them, when their
/// boxes on the whole grid make more pairs than a model may (engine/gaussian_bounds.h).
void clipped_boxes(const GaussianParams& g, const float* params, GaussianBins& b, std::vector<int32_t>& box) {
  resize_or_throw(box, g.count * 4);
  resize_or_throw(b.shapes, g.count);
  const float cell = g.cell;
  int64_t whole_grid_pairs = 0;
#pragma omp parallel for schedule(static) reduction(+ : whole_grid_pairs)
  for (int64_t i = 0; i < g.count; ++i) {
    const float* p = params + i * k_gaussian_floats;
    b.shapes[size_t(i)] = gaussian_shape<float>(p, cell);
    int32_t* o = box.data() + i * 4;
    gaussian_box(p, cell, g.bins, o);
    whole_grid_pairs += gaussian_box_pairs(o);
    o[0] = std::max(o[0], b.bx0), o[1] = std::min(o[1], b.bx0 + b.nx - 1);
    o[2] = std::max(o[2], b.by0), o[3] = std::min(o[3], b.by0 + b.ny - 1);
    if (o[2] > o[3]) o[0] = 1, o[1] = 0; // seen by no sample
  }
  if (const std::string why = gaussian_pairs_problem(whole_grid_pairs, g.count); !why.empty())
    throw BackendError("cpu backend: " + why);
}

/// Calls fn(bin) for each bin of a clipped box o (x0, x1, y0, y1) in row-major order, which is
/// the order of the bins' indices within the rectangle.
template <class Fn> void for_each_bin(const int32_t* o, const GaussianBins& b, Fn&& fn) {
  for (int32_t by = o[2]; o[0] <= o[1] && by <= o[3]; ++by)
    for (int32_t bx = o[0]; bx <= o[1]; ++bx) fn(int64_t(by - b.by0) * b.nx + (bx - b.bx0));
}

/// Bins the Gaussians for the n samples at coords; with `pairs`, also each Gaussian's pairs.
/// The lists are the same whatever the team: range r of `ranges` contiguous ranges of Gaussians
/// counts, then fills, its entries, and within a bin the ranges' entries follow one another in
/// range order, so every bin's list ascends by index as a one-thread build would leave it.
/// Everything is sized between the two parallel loops: an allocation that fails throws from
/// no parallel region.
void build_bins(const GaussianParams& g, const float* params, const float* coords, int64_t n, bool pairs,
                GaussianBins& b) {
  int32_t x0 = g.bins, x1 = -1, y0 = g.bins, y1 = -1;
#pragma omp parallel for schedule(static) reduction(min : x0, y0) reduction(max : x1, y1)
  for (int64_t s = 0; s < n; ++s) {
    const int32_t bx = gaussian_bin(coords[2 * s], g.bins), by = gaussian_bin(coords[2 * s + 1], g.bins);
    x0 = std::min(x0, bx), x1 = std::max(x1, bx), y0 = std::min(y0, by), y1 = std::max(y1, by);
  }
  b.bx0 = x0, b.by0 = y0, b.nx = x1 - x0 + 1, b.ny = y1 - y0 + 1;
  resize_or_throw(b.sample_bin, n);
#pragma omp parallel for schedule(static)
  for (int64_t s = 0; s < n; ++s)
    b.sample_bin[size_t(s)] = (gaussian_bin(coords[2 * s + 1], g.bins) - b.by0) * b.nx +
                              (gaussian_bin(coords[2 * s], g.bins) - b.bx0);
  std::vector<int32_t> box;
  clipped_boxes(g, params, b, box);
  const int64_t bins = int64_t(b.nx) * b.ny;
  const int ranges = std::max(1, omp_get_max_threads());
  // cursor[r * bins + k]: range r's count in bin k, then where its next entry in bin k goes.
  std::vector<int64_t> cursor, range_pairs(size_t(ranges) + 1, 0);
  resize_or_throw(cursor, int64_t(ranges) * bins);
  b.start.assign(size_t(bins + 1), 0);
  if (pairs) resize_or_throw(b.gaussian_start, g.count + 1);
  auto range_of = [&](int r, int64_t& i0, int64_t& i1) { i0 = g.count * r / ranges, i1 = g.count * (r + 1) / ranges; };
#pragma omp parallel for schedule(static, 1)
  for (int r = 0; r < ranges; ++r) {
    int64_t i0, i1;
    range_of(r, i0, i1);
    int64_t* mine = cursor.data() + int64_t(r) * bins;
    std::fill(mine, mine + bins, int64_t(0));
    int64_t own = 0;
    for (int64_t i = i0; i < i1; ++i) {
      const int32_t* o = box.data() + i * 4;
      if (pairs) b.gaussian_start[size_t(i)] = own; // within the range, made global below
      for_each_bin(o, b, [&](int64_t k) { ++mine[k]; });
      if (o[0] <= o[1]) own += int64_t(o[1] - o[0] + 1) * (o[3] - o[2] + 1);
    }
    range_pairs[size_t(r) + 1] = own;
  }
  // Bin after bin, the ranges' counts in range order: where each range's entries start.
  int64_t at = 0;
  for (int64_t k = 0; k < bins; ++k) {
    b.start[size_t(k)] = at;
    for (int r = 0; r < ranges; ++r) {
      const int64_t c = cursor[size_t(int64_t(r) * bins + k)];
      cursor[size_t(int64_t(r) * bins + k)] = at;
      at += c;
    }
  }
  b.start[size_t(bins)] = at;
  for (int r = 0; r < ranges; ++r) range_pairs[size_t(r) + 1] += range_pairs[size_t(r)];
  resize_or_throw(b.list, at);
  if (pairs) {
    resize_or_throw(b.pair_at, at);
    b.gaussian_start[size_t(g.count)] = at;
  }
#pragma omp parallel for schedule(static, 1)
  for (int r = 0; r < ranges; ++r) {
    int64_t i0, i1;
    range_of(r, i0, i1);
    int64_t* mine = cursor.data() + int64_t(r) * bins;
    int64_t pair = range_pairs[size_t(r)];
    for (int64_t i = i0; i < i1; ++i) { // Gaussians in index order: each bin's list ascends
      if (pairs) b.gaussian_start[size_t(i)] += range_pairs[size_t(r)];
      for_each_bin(box.data() + i * 4, b, [&](int64_t k) { // the Gaussian's pairs in bin order
        const int64_t slot = mine[k]++;
        b.list[size_t(slot)] = int32_t(i);
        if (pairs) b.pair_at[size_t(pair++)] = slot;
      });
    }
  }
}

} // namespace

void gaussian_encode_rows(const GaussianParams& g, const float* params, const float* coords, int64_t n, float* out) {
  if (n <= 0) return;
  GaussianBins b;
  build_bins(g, params, coords, n, false, b);
#pragma omp parallel for schedule(static)
  for (int64_t s = 0; s < n; ++s) {
    const float x = coords[2 * s], y = coords[2 * s + 1];
    const int32_t bin = b.sample_bin[size_t(s)];
    float acc[k_gaussian_channels] = {};
    for (int64_t p = b.start[size_t(bin)]; p < b.start[size_t(bin) + 1]; ++p) {
      const int32_t i = b.list[size_t(p)];
      const float w = gaussian_weight(b.shapes[size_t(i)], x, y);
      if (w == 0.0f) continue;
      const float* colour = params + int64_t(i) * k_gaussian_floats + k_gauss_colour;
      for (int32_t k = 0; k < k_gaussian_channels; ++k) acc[k] += colour[k] * w;
    }
    for (int32_t k = 0; k < k_gaussian_channels; ++k) out[s * k_gaussian_channels + k] = acc[k];
  }
}

void gaussian_backward_rows(const GaussianParams& g, const float* params, const float* coords, const float* d_out,
                            int64_t n, float* grads, bool accumulate) {
  if (n <= 0) {
    if (!accumulate) std::fill(grads, grads + g.count * k_gaussian_floats, 0.0f);
    return;
  }
  GaussianBins b;
  build_bins(g, params, coords, n, true, b);
  // The samples sorted by bin, stably (a counting sort in sample order).
  const int64_t bins = int64_t(b.nx) * b.ny;
  std::vector<int64_t> first(size_t(bins + 1), 0);
  for (int64_t s = 0; s < n; ++s) ++first[size_t(b.sample_bin[size_t(s)]) + 1];
  for (int64_t k = 0; k < bins; ++k) first[size_t(k + 1)] += first[size_t(k)];
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::vector<int64_t> cursor(first.begin(), first.end() - 1);
  for (int64_t s = 0; s < n; ++s) order[size_t(cursor[size_t(b.sample_bin[size_t(s)])]++)] = s;
  // One partial per (bin, Gaussian) pair: its bin's samples in order. A bin is one thread's.
  std::vector<float> partial;
  resize_or_throw(partial, int64_t(b.list.size()) * k_gaussian_floats);
  const float cell = g.cell;
#pragma omp parallel for schedule(dynamic, 16)
  for (int64_t bin = 0; bin < bins; ++bin) {
    for (int64_t p = b.start[size_t(bin)]; p < b.start[size_t(bin) + 1]; ++p) {
      const int32_t i = b.list[size_t(p)];
      const float* gi = params + int64_t(i) * k_gaussian_floats;
      const GaussianShape<float>& shape = b.shapes[size_t(i)];
      float acc[k_gaussian_floats] = {};
      for (int64_t k = first[size_t(bin)]; k < first[size_t(bin) + 1]; ++k) {
        const int64_t s = order[size_t(k)];
        gaussian_backward(shape, gi, cell, coords[2 * s], coords[2 * s + 1], d_out + s * k_gaussian_channels, acc);
      }
      std::copy(acc, acc + k_gaussian_floats, partial.data() + p * k_gaussian_floats);
    }
  }
  // Each Gaussian: its partials in bin order.
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < g.count; ++i) {
    float* gr = grads + i * k_gaussian_floats;
    float v[k_gaussian_floats];
    for (int32_t f = 0; f < k_gaussian_floats; ++f) v[f] = accumulate ? gr[f] : 0.0f;
    for (int64_t k = b.gaussian_start[size_t(i)]; k < b.gaussian_start[size_t(i) + 1]; ++k) {
      const float* part = partial.data() + b.pair_at[size_t(k)] * k_gaussian_floats;
      for (int32_t f = 0; f < k_gaussian_floats; ++f) v[f] += part[f];
    }
    std::copy(v, v + k_gaussian_floats, gr);
  }
}

namespace {
class CpuGaussiansEncoding final : public cpu::CpuTrainedEncoding {
public:
  explicit CpuGaussiansEncoding(const EncodingSpec& enc) : m_g(gaussian_params(enc.gaussians)) {}
  void encode(const float* params, const float* coords, int64_t n, float* out) override {
    gaussian_encode_rows(m_g, params, coords, n, out);
  }
  void backward(const float* params, const float* coords, const float* d_out, int64_t n, float* grads,
                bool accumulate) override {
    gaussian_backward_rows(m_g, params, coords, d_out, n, grads, accumulate);
  }

private:
  GaussianParams m_g;
};
} // namespace

std::unique_ptr<cpu::CpuTrainedEncoding> make_cpu_gaussians_encoding(const EncodingSpec& enc) {
  return std::make_unique<CpuGaussiansEncoding>(enc);
}

} // namespace redraw
