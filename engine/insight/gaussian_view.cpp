#include "engine/insight/gaussian_view.h"

#include "engine/errors.h"
#include "engine/gaussian_math.h"
#include "engine/model_family.h"

#include <algorithm>
#include <cmath>

namespace redraw {

namespace {
/// The colour head's weights (out x k_gaussian_channels), when the model maps the Gaussians' sum
/// straight to its output; null when hidden layers stand between (then the raw colour is shown).
const float* colour_head(const NetworkSnapshot& net, int32_t& channels) {
  const std::vector<DenseLayer> layers = dense_layers(net.model);
  channels = net.model.output_channels;
  if (layers.size() != 1 || layers[0].in != k_gaussian_channels) return nullptr;
  if (layers[0].weight_offset + int64_t(layers[0].out) * layers[0].in > int64_t(net.params.size())) return nullptr;
  return net.params.data() + layers[0].weight_offset;
}

/// Semi-axes and angle of the one-sigma contour of the covariance [[sxx, sxy], [sxy, syy]].
void axes_of(double sxx, double sxy, double syy, GaussianEllipse& e) {
  const double mean = 0.5 * (sxx + syy), half = 0.5 * (sxx - syy);
  const double root = std::sqrt(half * half + sxy * sxy);
  e.rx = float(std::sqrt(std::max(0.0, mean + root)));
  e.ry = float(std::sqrt(std::max(0.0, mean - root)));
  e.angle = float(0.5 * std::atan2(2.0 * sxy, sxx - syy));
}
} // namespace

GaussianView gaussian_view(const NetworkSnapshot& net, int32_t width, int32_t height, const GaussianView* earlier) {
  if (model_family(net.model.encoding.kind).insight != InsightView::Gaussians)
    throw ConfigError("the Gaussians view: the model is not a gaussians model");
  const int64_t count = net.model.encoding.gaussians;
  if (width < 1 || height < 1 || count < 1 || int64_t(net.params.size()) < count * k_gaussian_floats)
    throw ConfigError("the Gaussians view: the snapshot does not hold its Gaussians");
  GaussianView v;
  v.step = net.step;
  v.width = width;
  v.height = height;
  v.params.assign(net.params.begin(), net.params.begin() + count * k_gaussian_floats);
  const bool compare = earlier && earlier->params.size() == v.params.size();
  int32_t channels = 0;
  const float* head = colour_head(net, channels);
  const double cell = gaussian_params(count).cell, sx = 0.5 * width, sy = 0.5 * height;
  v.ellipses.resize(size_t(count));
  std::vector<double> radii(static_cast<size_t>(count), 0.0);
  for (int64_t i = 0; i < count; ++i) {
    const float* g = v.params.data() + i * k_gaussian_floats;
    GaussianEllipse& e = v.ellipses[size_t(i)];
    e.cx = float((double(g[k_gauss_mx]) + 1.0) * sx);
    e.cy = float((double(g[k_gauss_my]) + 1.0) * sy);
    double a = 0, b = 0, c = 0;
    gaussian_cholesky(g, cell, a, b, c);
    // Sigma = L L^T in coordinates, then scaled to pixels along each axis.
    axes_of(a * a * sx * sx, a * b * sx * sy, (b * b + c * c) * sy * sy, e);
    for (int32_t k = 0; k < 3; ++k) {
      double value = g[k_gauss_colour + k];
      if (head) {
        const int32_t row = channels == 1 ? 0 : k;
        value = 0;
        for (int32_t j = 0; j < k_gaussian_channels; ++j)
          value += double(head[row * k_gaussian_channels + j]) * g[k_gauss_colour + j];
      }
      e.rgb[k] = float(std::clamp(value, 0.0, 1.0));
    }
    if (compare) {
      const float* before = earlier->params.data() + i * k_gaussian_floats;
      double sum = 0;
      for (int32_t f = 0; f < k_gaussian_floats; ++f)
        sum += (double(g[f]) - before[f]) * (double(g[f]) - before[f]);
      e.change = float(std::sqrt(sum / k_gaussian_floats));
      v.max_change = std::max(v.max_change, double(e.change));
    }
    radii[size_t(i)] = std::sqrt(double(e.rx) * e.ry);
  }
  std::nth_element(radii.begin(), radii.begin() + ptrdiff_t(radii.size() / 2), radii.end());
  v.median_radius = radii[radii.size() / 2];
  return v;
}

int64_t gaussian_at(const GaussianView& view, double px, double py, double& weight) {
  // q is the same in pixels as in coordinates (a Mahalanobis distance does not change when both
  // axes are scaled), so the ellipse alone gives each Gaussian's weight at the pixel.
  const double cutoff = k_gaussian_cutoff, rim = std::exp(-0.5 * cutoff);
  int64_t best = -1;
  weight = 0;
  for (size_t i = 0; i < view.ellipses.size(); ++i) {
    const GaussianEllipse& e = view.ellipses[i];
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
