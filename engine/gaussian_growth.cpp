/// Gaussians that grow where the error is: the rules are in engine/gaussian_growth.h.
#include "engine/gaussian_growth.h"

#include "engine/model_family.h"
#include "engine/rng_math.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace redraw {

namespace {

/// The residual of a picture (target - prediction, double, pixel-major) and its footprint walks.
struct GrowthResidual {
  const GrowthPicture& pic;
  std::vector<double> r;
  bool carrier = false; ///< the Gaussians have the cosine carrier

  /// fn(pixel, weight) for every pixel whose centre lies in Gaussian g's support.
  template <class Fn> void footprint(const float* g, double cell, Fn&& fn) const {
    double hx = 0, hy = 0;
    gaussian_half_extent<double>(g, cell, hx, hy);
    const GaussianShape<double> shape = gaussian_shape<double>(g, cell);
    // Pixel i's centre is (2 i + 1) / W - 1: the columns whose centres fall in [mx - hx, mx + hx].
    const auto first = [](double lo, int32_t n) { return int32_t(std::clamp(std::ceil((lo + 1.0) * n * 0.5 - 0.5), 0.0, double(n))); };
    const auto last = [](double hi, int32_t n) { return int32_t(std::clamp(std::floor((hi + 1.0) * n * 0.5 - 0.5), -1.0, n - 1.0)); };
    if (!(std::isfinite(shape.mx) && std::isfinite(shape.my) && std::isfinite(hx) && std::isfinite(hy))) return;
    if (shape.mx + hx < -1.0 || shape.mx - hx > 1.0 || shape.my + hy < -1.0 || shape.my - hy > 1.0) return;
    const int32_t x0 = first(shape.mx - hx, pic.width), x1 = last(shape.mx + hx, pic.width);
    const int32_t y0 = first(shape.my - hy, pic.height), y1 = last(shape.my + hy, pic.height);
    for (int32_t y = y0; y <= y1; ++y)
      for (int32_t x = x0; x <= x1; ++x) {
        const double w =
            gaussian_weight_of(shape, g, carrier, pixel_centre<double>(x, pic.width), pixel_centre<double>(y, pic.height));
        if (w != 0.0) fn(int64_t(y) * pic.width + x, w);
      }
  }
  /// r += sign * (head colour of g) * w over g's footprint.
  void add(const float* g, double cell, const float* head, double sign) {
    const int32_t C = pic.channels;
    double out[4] = {};
    for (int32_t o = 0; o < C; ++o)
      for (int32_t k = 0; k < k_gaussian_channels; ++k)
        out[o] += double(head[o * k_gaussian_channels + k]) * double(g[k_gauss_colour + k]);
    footprint(g, cell, [&](int64_t p, double w) {
      for (int32_t o = 0; o < C; ++o) r[size_t(p * C + o)] += sign * out[o] * w;
    });
  }
};

/// The residual with the moved Gaussians' ink given back: what the picture lacks once they leave.
GrowthResidual residual_without(const GrowthPicture& pic, const float* params, double cell, const float* head,
                                std::span<const int64_t> moved, bool carrier) {
  GrowthResidual res{pic, {}, carrier};
  const int64_t n = int64_t(pic.width) * pic.height * pic.channels;
  res.r.resize(size_t(n));
  for (int64_t e = 0; e < n; ++e) res.r[size_t(e)] = double(pic.targets[e]) - double(pic.prediction[e]);
  for (int64_t i : moved) res.add(params + i * gaussian_floats(carrier), cell, head, 1.0);
  return res;
}

/// The local spacing of the Gaussians in cells, from the count of means in bins of the grid
/// (GaussianParams::bins per side) and their 3 x 3 neighbourhoods.
struct GrowthDensity {
  int32_t bins;
  double cell;
  std::vector<int64_t> count;

  GrowthDensity(const float* params, int64_t n, std::span<const int64_t> moved, int64_t stride)
      : bins(gaussian_params(n).bins), cell(gaussian_params(n).cell), count(size_t(bins) * size_t(bins), 0) {
    std::vector<char> leaving(static_cast<size_t>(n), 0);
    for (int64_t i : moved) leaving[size_t(i)] = 1;
    for (int64_t i = 0; i < n; ++i) {
      const float* g = params + i * stride;
      if (!leaving[size_t(i)] && std::abs(g[k_gauss_mx]) <= 1.0f && std::abs(g[k_gauss_my]) <= 1.0f) add(g[k_gauss_mx], g[k_gauss_my]);
    }
  }
  void add(float x, float y) { ++count[size_t(gaussian_bin(y, bins)) * bins + gaussian_bin(x, bins)]; }
  /// The spacing around (x, y) in cells: sqrt(area / Gaussians) over the bin's neighbourhood.
  double spacing_cells(float x, float y) const {
    const int32_t bx = gaussian_bin(x, bins), by = gaussian_bin(y, bins);
    int64_t seen = 0, cells = 0;
    for (int32_t j = std::max(0, by - 1); j <= std::min(bins - 1, by + 1); ++j)
      for (int32_t i = std::max(0, bx - 1); i <= std::min(bins - 1, bx + 1); ++i) seen += count[size_t(j) * bins + i], ++cells;
    const double side = 2.0 / bins;
    return std::sqrt(double(cells) * side * side / double(std::max<int64_t>(seen, 1))) / cell;
  }
};

/// Places moved[j] at pixels[j] in order on `res`, zeroing their moments.
void place_moved(std::span<float> params, int64_t count, const float* head, GrowthResidual& res,
                 std::span<const int64_t> moved, std::span<const int64_t> pixels, OptimizerState& moments) {
  const GrowthPicture& pic = res.pic;
  const int32_t C = pic.channels;
  const double cell = gaussian_params(count).cell;
  const std::vector<double> pinv = head_pseudo_inverse(head, C, k_gaussian_channels);
  const int64_t stride = gaussian_floats(res.carrier);
  GrowthDensity density(params.data(), count, moved, stride);
  // Half a pixel, in cells: narrower, a Gaussian falls between the pixel centres.
  const double narrowest = std::max(k_gaussian_diag_floor, std::max(1.0 / pic.width, 1.0 / pic.height) / cell);
  const size_t n = std::min(moved.size(), pixels.size());
  for (size_t j = 0; j < n; ++j) {
    float* g = params.data() + moved[j] * stride;
    const int64_t p = pixels[j];
    if (res.carrier) // before the fit: the footprint reads them
      for (int32_t k = 0; k < 2; ++k)
        g[k_gauss_wx + k] = float(k_gaussian_carrier_init / k_gaussian_carrier_step *
                                  (2.0 * random_unit(uint64_t(p), k_stream_gaussian_carrier, uint64_t(k)) - 1.0));
    const float x = pixel_centre<float>(p % pic.width, pic.width), y = pixel_centre<float>(p / pic.width, pic.height);
    const double spacing = density.spacing_cells(x, y);
    double sigma = 0, fit[4] = {}, norm = 0, gain = -1;
    for (const double scale : k_gaussian_grow_scales) { // the size whose least-squares fit takes most error
      const double trial = std::clamp(scale * spacing, narrowest, std::max(narrowest, scale * k_gaussian_init_size));
      const float none[k_gaussian_channels] = {};
      gaussian_place(g, x, y, float(trial), none);
      double f[4] = {}, n2 = 0; // least squares: amplitude a_o = sum w r_o / sum w^2
      res.footprint(g, cell, [&](int64_t q, double w) {
        for (int32_t o = 0; o < C; ++o) f[o] += w * res.r[size_t(q * C + o)];
        n2 += w * w;
      });
      double taken = 0; // the squared error the fit takes off
      for (int32_t o = 0; n2 > 0 && o < C; ++o) taken += f[o] * f[o] / n2;
      if (taken > gain) {
        gain = taken, sigma = trial, norm = n2;
        std::copy_n(f, 4, fit);
      }
    }
    float colour[k_gaussian_channels] = {};
    for (int32_t k = 0; norm > 0 && k < k_gaussian_channels; ++k) {
      double v = 0;
      for (int32_t o = 0; o < C; ++o) v += pinv[size_t(k * C + o)] * fit[o] / norm;
      colour[k] = float(v);
    }
    gaussian_place(g, x, y, float(sigma), colour);
    res.add(g, cell, head, -1.0);
    density.add(x, y);
    for (std::vector<float>* m : {&moments.first, &moments.second})
      if (!m->empty()) std::fill_n(m->begin() + moved[j] * stride, stride, 0.0f);
  }
}

/// The m Gaussians whose leaving adds least squared error to the picture now (sum over their
/// footprint of |r + H c w|^2 - |r|^2, r the residual), least first, ties by index.
std::vector<int64_t> least_costly_gaussians(const GrowthResidual& res, const float* params, int64_t count,
                                            const float* head, int64_t m) {
  const double cell = gaussian_params(count).cell;
  const int64_t stride = gaussian_floats(res.carrier);
  const int32_t C = res.pic.channels;
  std::vector<double> cost(static_cast<size_t>(count), 0.0);
#pragma omp parallel for schedule(dynamic, 256)
  for (int64_t i = 0; i < count; ++i) {
    const float* g = params + i * stride;
    double out[4] = {}, sum = 0;
    for (int32_t o = 0; o < C; ++o)
      for (int32_t k = 0; k < k_gaussian_channels; ++k)
        out[o] += double(head[o * k_gaussian_channels + k]) * double(g[k_gauss_colour + k]);
    res.footprint(g, cell, [&](int64_t p, double w) {
      for (int32_t o = 0; o < C; ++o) sum += out[o] * w * (2.0 * res.r[size_t(p * C + o)] + out[o] * w);
    });
    cost[size_t(i)] = sum;
  }
  std::vector<int64_t> order(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) order[size_t(i)] = i;
  const auto less = [&](int64_t a, int64_t b) { return cost[size_t(a)] != cost[size_t(b)] ? cost[size_t(a)] < cost[size_t(b)] : a < b; };
  m = std::clamp<int64_t>(m, 0, count);
  std::partial_sort(order.begin(), order.begin() + m, order.end(), less);
  order.resize(size_t(m));
  return order;
}

const float* head_of(const ModelSpec& spec, std::span<const float> params, int32_t& channels) {
  const DenseLayer h = dense_layers(spec).front();
  channels = h.out;
  return params.data() + h.weight_offset;
}

} // namespace

double relocate_gaussians(std::span<float> params, int64_t count, const float* head, const GrowthPicture& picture,
                          std::span<const int64_t> moved, std::span<const int64_t> pixels, OptimizerState& moments,
                          bool carrier) {
  const double cell = gaussian_params(count).cell;
  GrowthResidual res = residual_without(picture, params.data(), cell, head, moved, carrier);
  place_moved(params, count, head, res, moved, pixels, moments);
  double sum = 0;
  for (double v : res.r) sum += v * v;
  return sum;
}

int64_t grow_gaussians(const ModelSpec& spec, const GrowSpec& grow, uint64_t seed, int64_t step,
                       const GrowthPicture& picture, std::span<float> params, OptimizerState& moments) {
  int32_t C = 0;
  const float* head = head_of(spec, params, C);
  if (C != picture.channels || C > 4) return 0;
  const int64_t count = spec.encoding.gaussians;
  const double cell = gaussian_params(count).cell;
  const bool carrier = spec.encoding.carrier;
  const GrowthResidual now = residual_without(picture, params.data(), cell, head, {}, carrier);
  std::vector<int64_t> moved = least_costly_gaussians(now, params.data(), count, head, grow_count(count, grow.fraction));
  GrowthResidual res = residual_without(picture, params.data(), cell, head, moved, carrier);
  const int64_t pixels_n = int64_t(picture.width) * picture.height;
  std::vector<double> error(static_cast<size_t>(pixels_n), 0.0);
  for (int64_t p = 0; p < pixels_n; ++p)
    for (int32_t o = 0; o < C; ++o) error[size_t(p)] += res.r[size_t(p * C + o)] * res.r[size_t(p * C + o)];
  const std::vector<int64_t> pixels = error_weighted_pixels(error, int64_t(moved.size()), seed, step);
  if (pixels.size() < moved.size()) { // a perfect fit nearly everywhere: the rest stay where they are
    for (size_t j = pixels.size(); j < moved.size(); ++j) res.add(params.data() + moved[j] * gaussian_floats(carrier), cell, head, -1.0);
    moved.resize(pixels.size());
  }
  place_moved(params, count, head, res, moved, pixels, moments);
  return int64_t(moved.size());
}

} // namespace redraw
