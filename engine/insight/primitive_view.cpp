#include "engine/insight/primitive_view.h"

#include "engine/errors.h"
#include "engine/gaussian_math.h"
#include "engine/model_family.h"
#include "engine/sad_blends.h"

#include <algorithm>
#include <cmath>

namespace redraw {

namespace {
// A site's position and metric are laid out as a Gaussian's: gaussian_cholesky reads both.
static_assert(int32_t(k_sad_mx) == int32_t(k_gauss_mx) && int32_t(k_sad_my) == int32_t(k_gauss_my) &&
                  int32_t(k_sad_l11) == int32_t(k_gauss_l11) && int32_t(k_sad_l21) == int32_t(k_gauss_l21) &&
                  int32_t(k_sad_l22) == int32_t(k_gauss_l22),
              "the view reads a site's metric as a Gaussian's");
static_assert(k_sad_channels == k_gaussian_channels, "one colour head width");
static_assert(k_sad_diag_floor == k_gaussian_diag_floor, "one diagonal floor");

/// What the view reads of a family's primitives.
struct PrimitiveLayout {
  int64_t count = 0;
  int32_t floats = 0, colour = 0;
  double cell = 1;
  bool sites = false;
};

PrimitiveLayout layout_of(const ModelSpec& model) {
  const InsightView kind = model_family(model.encoding.kind).insight;
  if (kind == InsightView::Gaussians)
    return {model.encoding.gaussians, gaussian_floats(model.encoding.carrier), k_gauss_colour,
            gaussian_params(model.encoding.gaussians).cell,
            false};
  if (kind == InsightView::Sites)
    return {model.encoding.sites, k_sad_floats, k_sad_colour, sad_params(model.encoding.sites).cell, true};
  throw ConfigError("the primitives view: the model has neither Gaussians nor sites");
}

/// The colour head's weights (out x 3), when the model maps the primitives' blend straight to its
/// output; null when hidden layers stand between (then the raw colour is shown).
const float* colour_head(const NetworkSnapshot& net, int32_t& channels) {
  const std::vector<DenseLayer> layers = dense_layers(net.model);
  channels = net.model.output_channels;
  if (layers.size() != 1 || layers[0].in != k_gaussian_channels) return nullptr;
  if (layers[0].weight_offset + int64_t(layers[0].out) * layers[0].in > int64_t(net.params.size())) return nullptr;
  return net.params.data() + layers[0].weight_offset;
}

/// Semi-axes and angle of the unit contour of the covariance [[sxx, sxy], [sxy, syy]].
void axes_of(double sxx, double sxy, double syy, PrimitiveEllipse& e) {
  const double mean = 0.5 * (sxx + syy), half = 0.5 * (sxx - syy);
  const double root = std::sqrt(half * half + sxy * sxy);
  e.rx = float(std::sqrt(std::max(0.0, mean + root)));
  e.ry = float(std::sqrt(std::max(0.0, mean - root)));
  e.angle = float(0.5 * std::atan2(2.0 * sxy, sxx - syy));
}

/// The sites' owner map (see the header), and each site's pixels owned.
void owner_map(PrimitiveView& v, const PrimitiveLayout& l, int32_t side) {
  neuron_map_size(v.width, v.height, std::clamp(side, 1, std::max(v.width, v.height)), v.map_w, v.map_h);
  v.owner = sad_owners(sad_pixel_blends(sad_params(l.count), v.params.data(), v.map_w, v.map_h));
  for (const int32_t o : v.owner)
    if (o >= 0) ++v.ellipses[size_t(o)].owned;
  v.idle = std::count_if(v.ellipses.begin(), v.ellipses.end(), [](const PrimitiveEllipse& e) { return e.owned == 0; });
}
} // namespace

PrimitiveView primitive_view(const NetworkSnapshot& net, int32_t width, int32_t height, const PrimitiveView* earlier,
                             int32_t owner_side) {
  const PrimitiveLayout l = layout_of(net.model);
  const int64_t count = l.count;
  if (width < 1 || height < 1 || count < 1 || int64_t(net.params.size()) < count * l.floats)
    throw ConfigError("the primitives view: the snapshot does not hold its primitives");
  PrimitiveView v;
  v.step = net.step;
  v.width = width;
  v.height = height;
  v.sites = l.sites;
  v.params.assign(net.params.begin(), net.params.begin() + count * l.floats);
  const bool compare = earlier && earlier->params.size() == v.params.size();
  int32_t channels = 0;
  const float* head = colour_head(net, channels);
  const double sx = 0.5 * width, sy = 0.5 * height;
  v.ellipses.resize(size_t(count));
  std::vector<double> radii(static_cast<size_t>(count), 0.0);
  for (int64_t i = 0; i < count; ++i) {
    const float* g = v.params.data() + i * l.floats;
    PrimitiveEllipse& e = v.ellipses[size_t(i)];
    e.cx = float((double(g[k_gauss_mx]) + 1.0) * sx);
    e.cy = float((double(g[k_gauss_my]) + 1.0) * sy);
    double a = 0, b = 0, c = 0;
    gaussian_cholesky(g, l.cell, a, b, c);
    // Sigma = L L^T in coordinates, then scaled to pixels along each axis.
    axes_of(a * a * sx * sx, a * b * sx * sy, (b * b + c * c) * sy * sy, e);
    for (int32_t k = 0; k < 3; ++k) {
      double value = g[l.colour + k];
      if (head) {
        const int32_t row = channels == 1 ? 0 : k;
        value = 0;
        for (int32_t j = 0; j < k_gaussian_channels; ++j)
          value += double(head[row * k_gaussian_channels + j]) * g[l.colour + j];
      }
      e.rgb[k] = float(std::clamp(value, 0.0, 1.0));
    }
    if (compare) {
      const float* before = earlier->params.data() + i * l.floats;
      double sum = 0;
      for (int32_t f = 0; f < l.floats; ++f)
        sum += (double(g[f]) - before[f]) * (double(g[f]) - before[f]);
      e.change = float(std::sqrt(sum / l.floats));
      v.max_change = std::max(v.max_change, double(e.change));
    }
    radii[size_t(i)] = std::sqrt(double(e.rx) * e.ry);
  }
  std::nth_element(radii.begin(), radii.begin() + ptrdiff_t(radii.size() / 2), radii.end());
  v.median_radius = radii[radii.size() / 2];
  if (l.sites) owner_map(v, l, owner_side);
  return v;
}

int64_t primitive_at(const PrimitiveView& view, double px, double py, double& weight) {
  weight = 0;
  if (view.sites) { // the owner map's pixel under the point
    if (view.owner.empty() || !(px >= 0 && py >= 0 && px < view.width && py < view.height)) return -1;
    const int64_t i = std::min<int64_t>(view.map_w - 1, int64_t(px * view.map_w / view.width));
    const int64_t j = std::min<int64_t>(view.map_h - 1, int64_t(py * view.map_h / view.height));
    const int32_t o = view.owner[size_t(j * view.map_w + i)];
    weight = o >= 0 ? 1.0 : 0.0;
    return o;
  }
  // q is the same in pixels as in coordinates (a Mahalanobis distance does not change when both
  // axes are scaled), so the ellipse alone gives each Gaussian's weight at the pixel.
  const double cutoff = k_gaussian_cutoff, rim = std::exp(-0.5 * cutoff);
  int64_t best = -1;
  for (size_t i = 0; i < view.ellipses.size(); ++i) {
    const PrimitiveEllipse& e = view.ellipses[i];
    const double dx = px - e.cx, dy = py - e.cy, reach = 3.0 * double(e.rx);
    if (std::abs(dx) > reach || std::abs(dy) > reach || !(e.ry > 0)) continue;
    const double cs = std::cos(double(e.angle)), sn = std::sin(double(e.angle));
    const double u = (dx * cs + dy * sn) / e.rx, w = (-dx * sn + dy * cs) / e.ry;
    const double q = u * u + w * w;
    if (!(q < cutoff)) continue;
    const double value = std::exp(-0.5 * q) - rim;
    if (value > weight) {
      weight = value;
      best = int64_t(i);
    }
  }
  return best;
}

} // namespace redraw
