/// Sad sites that grow where the error is: the rules are in engine/sad_growth.h.
#include "engine/sad_growth.h"

#include <algorithm>
#include <cmath>

namespace redraw {

namespace {

constexpr double k_sad_grow_pi = 3.14159265358979323846;

/// Every site's shape in double, worked out once per relocation.
std::vector<SadShape<double>> sad_growth_shapes(const float* params, int64_t count) {
  const double cell = double(sad_params(count).cell);
  std::vector<SadShape<double>> shapes(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i)
    shapes[size_t(i)] = sad_shape<double>(params + i * k_sad_floats, cell);
  return shapes;
}

/// The blend at (x, y) of the sites ids[0, n) whose `keep` is set, their softmax renormalised
/// over them alone, into out (k_sad_channels); false (out untouched) when none is kept.
bool sad_kept_blend(const std::vector<SadShape<double>>& shapes, const float* params, const int32_t* ids, int32_t n,
                    const std::vector<char>& keep, double x, double y, double* out) {
  double e[k_sad_k], w[k_sad_k];
  const float* sites[k_sad_k];
  int32_t m = 0;
  for (int32_t k = 0; k < n; ++k)
    if (keep[size_t(ids[k])]) {
      e[m] = sad_key(shapes[size_t(ids[k])], x, y);
      sites[m++] = params + int64_t(ids[k]) * k_sad_floats;
    }
  if (m == 0) return false;
  sad_weights(e, m, w);
  for (int32_t c = 0; c < k_sad_channels; ++c)
    out[c] = 0.0;
  for (int32_t k = 0; k < m; ++k)
    for (int32_t c = 0; c < k_sad_channels; ++c)
      out[c] += w[k] * double(sites[k][k_sad_colour + c]);
  return true;
}

/// |H v|^2 for a colour v (k_sad_channels) through the head (C x k_sad_channels).
double sad_head_norm2(const float* head, int32_t C, const double* v) {
  double sum = 0;
  for (int32_t o = 0; o < C; ++o) {
    double a = 0;
    for (int32_t c = 0; c < k_sad_channels; ++c)
      a += double(head[o * k_sad_channels + c]) * v[c];
    sum += a * a;
  }
  return sum;
}

int32_t sad_list_length(const SadPixelBlends& b, int64_t p) {
  int32_t n = 0;
  while (n < k_sad_k && b.id(p, n) >= 0)
    ++n;
  return n;
}

/// The picture as the placement sees it: each pixel's blend (before the head) and residual
/// (target - prediction, C values), both as if the moved sites had left.
struct SadGrowthResidual {
  std::vector<double> blend, r;
  double squared() const {
    double s = 0;
    for (double v : r)
      s += v * v;
    return s;
  }
};

SadGrowthResidual sad_residual_without(const GrowthPicture& pic, const SadPixelBlends& b, const float* params,
                                       const std::vector<SadShape<double>>& shapes, const float* head,
                                       const std::vector<char>& keep) {
  const int32_t C = pic.channels;
  const int64_t n = int64_t(pic.width) * pic.height;
  SadGrowthResidual res;
  res.blend.resize(size_t(n) * k_sad_channels);
  res.r.resize(size_t(n) * size_t(C));
#pragma omp parallel for schedule(static)
  for (int64_t p = 0; p < n; ++p) {
    double* out = res.blend.data() + p * k_sad_channels;
    for (int32_t c = 0; c < k_sad_channels; ++c)
      out[c] = double(b.colour[size_t(p * k_sad_channels + c)]);
    double before[k_sad_channels];
    std::copy(out, out + k_sad_channels, before);
    sad_kept_blend(shapes, params, b.ids.data() + p * k_sad_k, sad_list_length(b, p), keep,
                   pixel_centre<double>(int32_t(p % pic.width), pic.width),
                   pixel_centre<double>(int32_t(p / pic.width), pic.height), out);
    for (int32_t o = 0; o < C; ++o) {
      double shift = 0;
      for (int32_t c = 0; c < k_sad_channels; ++c)
        shift += double(head[o * k_sad_channels + c]) * (out[c] - before[c]);
      const size_t e = size_t(p * C + o);
      res.r[e] = double(pic.targets[e]) - double(pic.prediction[e]) - shift;
    }
  }
  return res;
}

/// A moved site's new floats at (x, y) from its pixel's staying sites (rules in the header); false
/// when it has none (then it keeps its metric and temperature, radius 0).
bool sad_place_site(float* s, double x, double y, const int32_t* ids, int32_t n, const std::vector<char>& keep,
                    const std::vector<SadShape<double>>& shapes, const float* params, const GrowthPicture& pic,
                    double cell) {
  double d2 = 0, least = 0; // d2: the squared distances summed, seen * their mean
  int32_t seen = 0, owner = -1;
  for (int32_t k = 0; k < n; ++k) {
    if (!keep[size_t(ids[k])]) continue;
    const SadShape<double>& sh = shapes[size_t(ids[k])];
    const double e = sad_key(sh, x, y);
    d2 += (sh.mx - x) * (sh.mx - x) + (sh.my - y) * (sh.my - y);
    if (owner < 0 || e < least) least = e, owner = ids[k];
    ++seen;
  }
  s[k_sad_mx] = float(x);
  s[k_sad_my] = float(y);
  s[k_sad_l21] = 0.0f;
  if (owner < 0) {
    s[k_sad_radius] = 0.0f;
    return false;
  }
  const double half_pixel = std::max(1.0 / pic.width, 1.0 / pic.height);
  const double spacing = std::clamp(std::sqrt(2.0 * k_sad_grow_pi * d2) / seen, half_pixel,
                                    std::max(half_pixel, k_sad_grow_max_cells * cell));
  const double f = k_sad_diag_floor, l = spacing / cell;
  const float diag = float(std::sqrt(std::max(0.0, l * l - f * f)));
  s[k_sad_l11] = diag;
  s[k_sad_l22] = diag;
  s[k_sad_temp] = params[int64_t(owner) * k_sad_floats + k_sad_temp];
  const double tau = 1.0 / shapes[size_t(owner)].inv_tau;
  s[k_sad_radius] = float(tau * (1.0 - least)); // its energy at (x, y): -radius / tau = least - 1
  return true;
}

/// The pixels of a placed site's colour fit (its window, from the widest shape it may take) and,
/// worked out once for all its candidate shapes, each pixel's staying sites' energies.
struct SadFitWindow {
  int32_t x0 = 0, x1 = -1, y0 = 0, y1 = -1;
  std::vector<double> energy; ///< k_sad_k a pixel, row-major over the window
  std::vector<int32_t> kept;  ///< how many of them a pixel has
  size_t pixel(int32_t x, int32_t y) const { return size_t(y - y0) * size_t(x1 - x0 + 1) + size_t(x - x0); }
};

SadFitWindow sad_fit_window(const SadShape<double>& widest, const SadPixelBlends& b, const std::vector<char>& keep,
                            const std::vector<SadShape<double>>& shapes, const GrowthPicture& pic) {
  const double reach = k_sad_grow_window * std::max(1.0 / widest.inv_a, 1.0 / widest.inv_c);
  const auto span_of = [&](double centre, int32_t n, int32_t& lo, int32_t& hi) {
    const double c = (centre + 1.0) * 0.5 * n - 0.5, r = std::min(reach * 0.5 * n, double(k_sad_grow_window_px));
    lo = int32_t(std::clamp(std::floor(c - r), 0.0, double(n - 1)));
    hi = int32_t(std::clamp(std::ceil(c + r), 0.0, double(n - 1)));
  };
  SadFitWindow win;
  span_of(widest.mx, pic.width, win.x0, win.x1);
  span_of(widest.my, pic.height, win.y0, win.y1);
  const size_t n = win.pixel(win.x1, win.y1) + 1;
  win.energy.assign(n * k_sad_k, 0.0);
  win.kept.assign(n, 0);
  for (int32_t y = win.y0; y <= win.y1; ++y)
    for (int32_t x = win.x0; x <= win.x1; ++x) {
      const int64_t p = int64_t(y) * pic.width + x;
      const size_t at = win.pixel(x, y);
      const double px = pixel_centre<double>(x, pic.width), py = pixel_centre<double>(y, pic.height);
      for (int32_t k = 0; k < k_sad_k && b.id(p, k) >= 0; ++k)
        if (keep[size_t(b.id(p, k))]) win.energy[at * k_sad_k + size_t(win.kept[at]++)] = sad_key(shapes[size_t(b.id(p, k))], px, py);
    }
  return win;
}

/// A placed site's colour fit over its window for one shape: its weight at each pixel against the
/// pixel's staying sites, the least-squares sums, and the window's squared error with that colour.
struct SadColourFit {
  std::vector<double> weight;
  double fit[4] = {}, norm = 0, error = 0;
};

SadColourFit sad_colour_fit(const SadShape<double>& mine, const SadFitWindow& win, const float* head,
                            const GrowthPicture& pic, const SadGrowthResidual& res) {
  const int32_t C = pic.channels;
  SadColourFit f;
  f.weight.assign(win.kept.size(), 0.0);
  double wanted2 = 0; // sum of |r + w H o|^2: the error with the site coloured 0
  for (int32_t y = win.y0; y <= win.y1; ++y)
    for (int32_t x = win.x0; x <= win.x1; ++x) {
      const int64_t p = int64_t(y) * pic.width + x;
      const size_t at = win.pixel(x, y);
      double e[k_sad_k + 1], w[k_sad_k + 1];
      e[0] = sad_key(mine, pixel_centre<double>(x, pic.width), pixel_centre<double>(y, pic.height));
      std::copy_n(win.energy.begin() + ptrdiff_t(at * k_sad_k), win.kept[at], e + 1);
      sad_weights(e, win.kept[at] + 1, w);
      f.weight[at] = w[0];
      // Wanted: H w c = r + H w o, o the blend the site joins.
      const double* o = res.blend.data() + p * k_sad_channels;
      for (int32_t ch = 0; ch < C; ++ch) {
        double ho = 0;
        for (int32_t c = 0; c < k_sad_channels; ++c)
          ho += double(head[ch * k_sad_channels + c]) * o[c];
        const double want = res.r[size_t(p * C + ch)] + w[0] * ho;
        f.fit[ch] += w[0] * want;
        wanted2 += want * want;
      }
      f.norm += w[0] * w[0];
    }
  f.error = wanted2;
  for (int32_t ch = 0; f.norm > 0 && ch < C; ++ch)
    f.error -= f.fit[ch] * f.fit[ch] / f.norm;
  return f;
}

/// Round site `base` with its scale times `scale`, into s.
void sad_candidate_shape(float* s, const float* base, double scale) {
  std::copy_n(base, k_sad_floats, s);
  const double f = k_sad_diag_floor, l = scale * std::sqrt(double(base[k_sad_l11]) * base[k_sad_l11] + f * f);
  s[k_sad_l11] = s[k_sad_l22] = float(std::sqrt(std::max(0.0, l * l - f * f)));
}

/// Chooses site s's scale among the candidates (rules in the header), fits its colour to the
/// residual around it and takes its blend into `res`.
void sad_fit_site_colour(float* s, bool search, const SadPixelBlends& b, const std::vector<char>& keep,
                         const std::vector<SadShape<double>>& shapes, const float* head,
                         const std::vector<double>& pinv, const GrowthPicture& pic, double cell,
                         SadGrowthResidual& res) {
  const int32_t C = pic.channels, W = pic.width;
  const SadFitWindow win = sad_fit_window(sad_shape<double>(s, cell), b, keep, shapes, pic);
  SadColourFit best = sad_colour_fit(sad_shape<double>(s, cell), win, head, pic, res);
  if (search) {
    float base[k_sad_floats], trial[k_sad_floats];
    std::copy_n(s, k_sad_floats, base);
    for (const double scale : k_sad_grow_scales) {
      if (scale == 1.0) continue; // the base, fitted above
      sad_candidate_shape(trial, base, scale);
      SadColourFit f = sad_colour_fit(sad_shape<double>(trial, cell), win, head, pic, res);
      if (f.error < best.error) best = std::move(f), std::copy_n(trial, k_sad_floats, s);
    }
  }
  for (int32_t c = 0; c < k_sad_channels; ++c) {
    double v = 0;
    for (int32_t ch = 0; best.norm > 0 && ch < C; ++ch)
      v += pinv[size_t(c * C + ch)] * best.fit[ch] / best.norm;
    s[k_sad_colour + c] = float(v);
  }
  for (int32_t y = win.y0; y <= win.y1; ++y)
    for (int32_t x = win.x0; x <= win.x1; ++x) {
      const int64_t p = int64_t(y) * W + x;
      const double w = best.weight[win.pixel(x, y)];
      double* o = res.blend.data() + p * k_sad_channels;
      double delta[k_sad_channels];
      for (int32_t c = 0; c < k_sad_channels; ++c)
        delta[c] = w * (double(s[k_sad_colour + c]) - o[c]), o[c] += delta[c];
      for (int32_t ch = 0; ch < C; ++ch)
        for (int32_t c = 0; c < k_sad_channels; ++c)
          res.r[size_t(p * C + ch)] -= double(head[ch * k_sad_channels + c]) * delta[c];
    }
}

std::vector<char> sad_keep_mask(int64_t count, std::span<const int64_t> moved) {
  std::vector<char> keep(static_cast<size_t>(count), 1);
  for (int64_t i : moved)
    keep[size_t(i)] = 0;
  return keep;
}

/// Places moved[j] at pixels[j] in order on `res`, zeroing their moments.
void sad_place_moved(std::span<float> params, int64_t count, const float* head, const GrowthPicture& pic,
                     const SadPixelBlends& b, const std::vector<SadShape<double>>& shapes,
                     const std::vector<char>& keep, std::span<const int64_t> moved, std::span<const int64_t> pixels,
                     OptimizerState& moments, SadGrowthResidual& res) {
  const double cell = double(sad_params(count).cell);
  const std::vector<double> pinv = head_pseudo_inverse(head, pic.channels, k_sad_channels);
  const size_t n = std::min(moved.size(), pixels.size());
  for (size_t j = 0; j < n; ++j) {
    float* s = params.data() + moved[j] * k_sad_floats;
    const int64_t p = pixels[j];
    const bool placed =
        sad_place_site(s, pixel_centre<double>(int32_t(p % pic.width), pic.width),
                       pixel_centre<double>(int32_t(p / pic.width), pic.height), b.ids.data() + p * k_sad_k,
                       sad_list_length(b, p), keep, shapes, params.data(), pic, cell);
    sad_fit_site_colour(s, placed, b, keep, shapes, head, pinv, pic, cell, res);
    for (std::vector<float>* m : {&moments.first, &moments.second})
      if (!m->empty()) std::fill_n(m->begin() + moved[j] * k_sad_floats, k_sad_floats, 0.0f);
  }
}

/// The blends of the picture, from the lists its step used when it came with sound ones (the
/// size of p's lattice, every id a site or -1), else from lists built afresh.
SadPixelBlends sad_growth_blends(const SadParams& p, const float* params, const GrowthPicture& pic) {
  const size_t entries = size_t(p.grid) * size_t(p.grid) * size_t(k_sad_k);
  if (pic.site_lists.size() != entries ||
      !std::all_of(pic.site_lists.begin(), pic.site_lists.end(), [&](int32_t id) { return id >= -1 && id < p.count; }))
    return sad_pixel_blends(p, params, pic.width, pic.height);
  SadLists lists;
  lists.grid = p.grid;
  lists.count = p.count;
  lists.ids.assign(pic.site_lists.begin(), pic.site_lists.end());
  return sad_pixel_blends(p, params, lists, pic.width, pic.height);
}

} // namespace

std::vector<int64_t> least_useful_sites(const SadPixelBlends& b, const float* params, int64_t count, const float* head,
                                        int32_t channels, int64_t m) {
  const std::vector<SadShape<double>> shapes = sad_growth_shapes(params, count);
  const int64_t pixels = int64_t(b.width) * b.height;
  std::vector<int64_t> owned(static_cast<size_t>(count), 0);
  for (const int32_t o : sad_owners(b))
    if (o >= 0 && o < count) ++owned[size_t(o)];
  // Each pixel's part of each of its sites' contribution, in pixel order per site: a fixed-order sum.
  std::vector<double> part(static_cast<size_t>(pixels) * k_sad_k, 0.0);
#pragma omp parallel for schedule(static)
  for (int64_t p = 0; p < pixels; ++p) {
    const int32_t n = sad_list_length(b, p);
    const double x = pixel_centre<double>(int32_t(p % b.width), b.width);
    const double y = pixel_centre<double>(int32_t(p / b.width), b.height);
    for (int32_t k = 0; k < n; ++k) {
      double e[k_sad_k], w[k_sad_k], others[k_sad_channels] = {};
      int32_t m2 = 0;
      for (int32_t j = 0; j < n; ++j)
        if (j != k) e[m2++] = sad_key(shapes[size_t(b.id(p, j))], x, y);
      if (m2 > 0) {
        sad_weights(e, m2, w);
        for (int32_t j = 0, at = 0; j < n; ++j)
          if (j != k) {
            for (int32_t c = 0; c < k_sad_channels; ++c)
              others[c] += w[at] * double(params[int64_t(b.id(p, j)) * k_sad_floats + k_sad_colour + c]);
            ++at;
          }
      }
      double v[k_sad_channels];
      const double wk = double(b.weight(p, k));
      for (int32_t c = 0; c < k_sad_channels; ++c)
        v[c] = wk * (double(params[int64_t(b.id(p, k)) * k_sad_floats + k_sad_colour + c]) - others[c]);
      part[size_t(p * k_sad_k + k)] = sad_head_norm2(head, channels, v);
    }
  }
  std::vector<double> use(static_cast<size_t>(count), 0.0);
  for (int64_t p = 0; p < pixels; ++p)
    for (int32_t k = 0; k < k_sad_k && b.id(p, k) >= 0; ++k)
      if (b.id(p, k) < count) use[size_t(b.id(p, k))] += part[size_t(p * k_sad_k + k)];
  std::vector<int64_t> order(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i)
    order[size_t(i)] = i;
  const auto less = [&](int64_t a, int64_t c) {
    const bool ia = owned[size_t(a)] == 0, ic = owned[size_t(c)] == 0;
    if (ia != ic) return ia;
    return use[size_t(a)] != use[size_t(c)] ? use[size_t(a)] < use[size_t(c)] : a < c;
  };
  m = std::clamp<int64_t>(m, 0, count);
  std::partial_sort(order.begin(), order.begin() + m, order.end(), less);
  order.resize(size_t(m));
  return order;
}

double relocate_sites(std::span<float> params, int64_t count, const float* head, const GrowthPicture& picture,
                      const SadPixelBlends& blends, std::span<const int64_t> moved, std::span<const int64_t> pixels,
                      OptimizerState& moments) {
  const std::vector<SadShape<double>> shapes = sad_growth_shapes(params.data(), count);
  const std::vector<char> keep = sad_keep_mask(count, moved);
  SadGrowthResidual res = sad_residual_without(picture, blends, params.data(), shapes, head, keep);
  sad_place_moved(params, count, head, picture, blends, shapes, keep, moved, pixels, moments, res);
  return res.squared();
}

int64_t grow_sad(const ModelSpec& spec, const GrowSpec& grow, uint64_t seed, int64_t step, const GrowthPicture& picture,
                 std::span<float> params, OptimizerState& moments) {
  const DenseLayer h = dense_layers(spec).front();
  const int32_t C = h.out;
  if (C != picture.channels || C > 4 || h.in != k_sad_channels) return 0;
  const float* head = params.data() + h.weight_offset;
  const int64_t count = spec.encoding.sites;
  const SadPixelBlends blends = sad_growth_blends(sad_params(count), params.data(), picture);
  std::vector<int64_t> moved =
      least_useful_sites(blends, params.data(), count, head, C, grow_count(count, grow.fraction));
  const std::vector<SadShape<double>> shapes = sad_growth_shapes(params.data(), count);
  SadGrowthResidual res =
      sad_residual_without(picture, blends, params.data(), shapes, head, sad_keep_mask(count, moved));
  const int64_t pixels_n = int64_t(picture.width) * picture.height;
  std::vector<double> error(static_cast<size_t>(pixels_n), 0.0);
  for (int64_t p = 0; p < pixels_n; ++p)
    for (int32_t o = 0; o < C; ++o)
      error[size_t(p)] += res.r[size_t(p * C + o)] * res.r[size_t(p * C + o)];
  const std::vector<int64_t> pixels = error_weighted_pixels(error, int64_t(moved.size()), seed, step);
  if (pixels.size() < moved.size()) { // a perfect fit nearly everywhere: the rest stay where they are
    moved.resize(pixels.size());
    res = sad_residual_without(picture, blends, params.data(), shapes, head, sad_keep_mask(count, moved));
  }
  sad_place_moved(params, count, head, picture, blends, shapes, sad_keep_mask(count, moved), moved, pixels, moments,
                  res);
  return int64_t(moved.size());
}

} // namespace redraw
