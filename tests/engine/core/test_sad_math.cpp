// The `sad` encoding's per-point math (engine/sad_math.h): the blend against a float64 reference
// written another way (Sigma = L L^T inverted explicitly, the softmax without its shift), and the
// analytic gradient of every site field against central differences of that reference; stable
// for coincident sites, huge distances and extreme temperatures.
#include "engine/rng_math.h"
#include "engine/sad_math.h"
#include "primitive_fixtures.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace redraw;

namespace {

/// `count` sites drawn to vary every field: positions around the point, diagonals of either sign,
/// shears, radii, temperatures from cold to warm, colours of either sign.
std::vector<float> random_sites(int count, uint64_t seed) {
  return test::drawn_sites(count, seed, {.stream = 31, .mean = 0.5, .diag_lo = -2.0, .diag_hi = 2.0, .shear = 1.0,
                                         .radius = 1.0, .temp_lo = -0.5, .temp_hi = 1.5});
}

/// The float64 reference of one point's blend over all `params`' sites (at most k_sad_k).
struct SadReference {
  double cell;
  std::vector<double> params;
  int count() const { return int(params.size()) / k_sad_floats; }
  double energy(int i, double x, double y) const {
    const double* s = params.data() + i * k_sad_floats;
    const double q = test::CholeskyMetric64(s, cell, k_sad_diag_floor).q(x - s[0], y - s[1]);
    const double tau = k_sad_tau_floor + std::exp(s[k_sad_temp]);
    return (q - s[k_sad_radius]) / tau;
  }
  double value(double x, double y, int k) const {
    double num = 0, den = 0;
    for (int i = 0; i < count(); ++i) {
      const double w = std::exp(-energy(i, x, y));
      num += w * params[size_t(i * k_sad_floats + k_sad_colour + k)];
      den += w;
    }
    return num / den;
  }
  double loss(const std::vector<double>& pts, const std::vector<double>& r) const {
    double s = 0;
    for (size_t j = 0; j < pts.size() / 2; ++j)
      for (int k = 0; k < k_sad_channels; ++k) s += r[j * k_sad_channels + size_t(k)] * value(pts[2 * j], pts[2 * j + 1], k);
    return s;
  }
};

/// The analytic gradient of sum_j r_j . blend(p_j) over the n sites, by sad_math in double.
std::vector<double> analytic(const std::vector<float>& p, double cell, const std::vector<double>& pts,
                             const std::vector<double>& r) {
  const int n = int(p.size()) / k_sad_floats;
  std::vector<SadShape<double>> shapes;
  std::vector<const float*> sites;
  for (int i = 0; i < n; ++i) {
    shapes.push_back(sad_shape<double>(p.data() + i * k_sad_floats, cell));
    sites.push_back(p.data() + i * k_sad_floats);
  }
  std::vector<double> grad(p.size(), 0.0);
  for (size_t j = 0; j < pts.size() / 2; ++j) {
    double w[k_sad_k], out[k_sad_channels], d_logit[k_sad_k];
    const double x = pts[2 * j], y = pts[2 * j + 1];
    sad_blend(shapes.data(), sites.data(), n, x, y, w, out);
    sad_logit_grads(sites.data(), n, w, r.data() + j * k_sad_channels, d_logit);
    for (int i = 0; i < n; ++i)
      sad_pair_backward(shapes[size_t(i)], sites[size_t(i)], cell, x, y, w[i], d_logit[i],
                        r.data() + j * k_sad_channels, grad.data() + i * k_sad_floats);
  }
  return grad;
}

} // namespace

TEST_CASE("sad math: the blend matches a float64 reference and every field's gradient matches central differences") {
  const double cell = 0.3;
  double worst[k_sad_floats] = {}, scale[k_sad_floats] = {};
  for (uint64_t trial = 0; trial < 20; ++trial) {
    const int n = 2 + int(trial % 7); // 2 .. k_sad_k sites
    const std::vector<float> p = random_sites(n, 100 + trial);
    std::vector<double> pts, r;
    for (int j = 0; j < 6; ++j) {
      pts.push_back(random_unit(trial, 32, uint64_t(2 * j)) - 0.5);
      pts.push_back(random_unit(trial, 32, uint64_t(2 * j + 1)) - 0.5);
      for (int k = 0; k < k_sad_channels; ++k) r.push_back(2 * random_unit(trial, 33, uint64_t(j * 3 + k)) - 1);
    }
    SadReference ref{cell, std::vector<double>(p.begin(), p.end())};
    // The blend itself, in float and double.
    std::vector<SadShape<float>> shapes;
    std::vector<const float*> sites;
    for (int i = 0; i < n; ++i) {
      shapes.push_back(sad_shape<float>(p.data() + i * k_sad_floats, float(cell)));
      sites.push_back(p.data() + i * k_sad_floats);
    }
    for (size_t j = 0; j < pts.size() / 2; ++j) {
      float w[k_sad_k], out[k_sad_channels];
      sad_blend(shapes.data(), sites.data(), n, float(pts[2 * j]), float(pts[2 * j + 1]), w, out);
      for (int k = 0; k < k_sad_channels; ++k) CHECK(std::abs(out[k] - ref.value(pts[2 * j], pts[2 * j + 1], k)) < 1e-4);
    }
    const std::vector<double> grad = analytic(p, cell, pts, r);
    for (size_t i = 0; i < p.size(); ++i) {
      const double fd = test::central_difference(ref.params, i, [&] { return ref.loss(pts, r); });
      const size_t field = i % k_sad_floats;
      worst[field] = std::max(worst[field], std::abs(grad[i] - fd) / std::max(1.0, std::abs(fd)));
      scale[field] = std::max(scale[field], std::abs(fd));
    }
  }
  const std::string names[k_sad_floats] = {"mx", "my", "l11", "l21", "l22", "radius", "temperature",
                                           "colour 0", "colour 1", "colour 2"};
  for (int f = 0; f < k_sad_floats; ++f) {
    CAPTURE(names[f]);
    MESSAGE(names[f] << ": worst relative difference " << worst[f] << " on gradients up to " << scale[f]);
    CHECK(scale[f] > 1e-2); // a field the points move
    CHECK(worst[f] <= 1e-6);
  }
}

TEST_CASE("sad math: coincident sites, huge distances and extreme temperatures stay finite, without subnormals") {
  std::vector<float> p = random_sites(k_sad_k, 7);
  for (int i = 1; i < k_sad_k; ++i) // every site on site 0, of the same shape
    for (int f = 0; f < k_sad_colour; ++f) p[size_t(i * k_sad_floats + f)] = p[size_t(f)];
  p[size_t(3 * k_sad_floats + k_sad_mx)] = 1e30f;      // a site very far away
  p[size_t(4 * k_sad_floats + k_sad_temp)] = -1e30f;   // colder than the floor
  p[size_t(5 * k_sad_floats + k_sad_temp)] = 1e30f;    // hotter than the bound
  p[size_t(6 * k_sad_floats + k_sad_radius)] = 1e30f;  // a radius that claims everything
  std::vector<SadShape<float>> shapes;
  std::vector<const float*> sites;
  for (int i = 0; i < k_sad_k; ++i) {
    shapes.push_back(sad_shape<float>(p.data() + i * k_sad_floats, 0.1f));
    sites.push_back(p.data() + i * k_sad_floats);
  }
  for (float x : {-1.0f, 0.0f, 0.37f, 1e20f}) {
    CAPTURE(x);
    float w[k_sad_k], out[k_sad_channels], d_logit[k_sad_k], grad[k_sad_k * k_sad_floats] = {};
    const float d_out[k_sad_channels] = {0.5f, -0.25f, 1.0f};
    sad_blend(shapes.data(), sites.data(), k_sad_k, x, 0.25f, w, out);
    sad_logit_grads(sites.data(), k_sad_k, w, d_out, d_logit);
    double sum = 0;
    for (int i = 0; i < k_sad_k; ++i) {
      sum += w[i];
      CHECK(std::isfinite(w[i]));
      CHECK((w[i] == 0.0f || std::fpclassify(w[i]) == FP_NORMAL));
      sad_pair_backward(shapes[size_t(i)], sites[size_t(i)], 0.1f, x, 0.25f, w[i], d_logit[i], d_out,
                        grad + i * k_sad_floats);
    }
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
    for (float v : out) CHECK(std::isfinite(v));
    for (float v : grad) CHECK(std::isfinite(v));
  }
}
