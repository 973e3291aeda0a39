// The Gaussians view (engine/insight/gaussian_view.h): each ellipse is checked against the model's
// own Mahalanobis distance in coordinates (points on the drawn one-sigma contour must have q = 1
// there), its colour against the colour head by hand, its change against the floats' difference,
// and the Gaussian a pointer reads against a brute-force maximum of gaussian_weight.
#include "engine/errors.h"
#include "engine/gaussian_math.h"
#include "engine/insight/gaussian_view.h"
#include "engine/model_spec.h"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

using namespace redraw;

namespace {
/// A gaussians model of `count` Gaussians with a colour head of `channels` outputs (no hidden
/// layers), its floats spread and sheared, the head a known mix.
NetworkSnapshot snapshot(int64_t count, int32_t channels) {
  NetworkSnapshot net;
  net.model.encoding.kind = EncodingKind::Gaussians;
  net.model.encoding.gaussians = count;
  net.model.hidden = {};
  net.model.hidden_activations = {};
  net.model.output_activation = Activation::Identity;
  net.model.output_channels = channels;
  net.params.assign(size_t(parameter_count(net.model)), 0.0f);
  for (int64_t i = 0; i < count; ++i) {
    float* g = net.params.data() + i * k_gaussian_floats;
    const double t = double(i) / double(count);
    g[k_gauss_mx] = float(-0.8 + 1.6 * t);
    g[k_gauss_my] = float(0.7 - 1.3 * t * t);
    g[k_gauss_l11] = float(0.5 + 2.0 * t);
    g[k_gauss_l21] = float(1.5 * std::sin(7.0 * t) - 0.3);
    g[k_gauss_l22] = float(-1.0 + 0.7 * t);
    for (int k = 0; k < k_gaussian_channels; ++k)
      g[k_gauss_colour + k] = float(0.2 + 0.25 * k + 0.1 * t);
  }
  const DenseLayer head = dense_layers(net.model).back();
  for (int32_t r = 0; r < head.out; ++r)
    for (int32_t j = 0; j < head.in; ++j)
      net.params[size_t(head.weight_offset + r * head.in + j)] = r == j ? 0.9f : (r + j == 2 ? 0.2f : 0.05f);
  net.step = 42;
  return net;
}
} // namespace

TEST_CASE("gaussian view: each drawn one-sigma contour is where the model's own q is 1") {
  const NetworkSnapshot net = snapshot(12, 3);
  const int32_t w = 300, h = 170; // not square: the two axes scale differently
  const GaussianView v = gaussian_view(net, w, h, nullptr);
  REQUIRE(v.ellipses.size() == 12);
  CHECK(v.step == 42);
  const float cell = gaussian_params(12).cell;
  for (size_t i = 0; i < v.ellipses.size(); ++i) {
    const GaussianEllipse& e = v.ellipses[i];
    const float* g = net.params.data() + i * k_gaussian_floats;
    CAPTURE(i);
    CHECK(e.cx == doctest::Approx((g[k_gauss_mx] + 1.0) * 0.5 * w));
    CHECK(e.cy == doctest::Approx((g[k_gauss_my] + 1.0) * 0.5 * h));
    CHECK(e.rx >= e.ry);
    CHECK(e.ry > 0);
    const GaussianShape<double> s = gaussian_shape<double>(g, double(cell));
    for (int k = 0; k < 16; ++k) {
      const double th = 2.0 * M_PI * k / 16.0, ca = std::cos(double(e.angle)), sa = std::sin(double(e.angle));
      const double px = e.cx + e.rx * std::cos(th) * ca - e.ry * std::sin(th) * sa;
      const double py = e.cy + e.rx * std::cos(th) * sa + e.ry * std::sin(th) * ca;
      double z1 = 0, z2 = 0;
      const double q = gaussian_q(s, px / (0.5 * w) - 1.0, py / (0.5 * h) - 1.0, z1, z2);
      CHECK(q == doctest::Approx(1.0).epsilon(1e-4));
    }
  }
}

TEST_CASE("gaussian view: the colour is the head's mix of the Gaussian's colour, clamped; grey for one channel") {
  const NetworkSnapshot net = snapshot(3, 3);
  const GaussianView v = gaussian_view(net, 64, 64, nullptr);
  const DenseLayer head = dense_layers(net.model).back();
  for (size_t i = 0; i < 3; ++i) {
    const float* g = net.params.data() + i * k_gaussian_floats;
    for (int32_t r = 0; r < 3; ++r) {
      double want = 0;
      for (int32_t j = 0; j < 3; ++j)
        want += double(net.params[size_t(head.weight_offset + r * 3 + j)]) * g[k_gauss_colour + j];
      CHECK(v.ellipses[i].rgb[r] == doctest::Approx(std::clamp(want, 0.0, 1.0)));
    }
  }
  const NetworkSnapshot grey = snapshot(3, 1);
  const GaussianView vg = gaussian_view(grey, 64, 64, nullptr);
  CHECK(vg.ellipses[1].rgb[0] == vg.ellipses[1].rgb[2]);
  NetworkSnapshot mlp = net;
  mlp.model.encoding.kind = EncodingKind::Fourier;
  CHECK_THROWS_AS(gaussian_view(mlp, 64, 64, nullptr), ConfigError);
}

TEST_CASE("gaussian view: the change is the RMS of a Gaussian's floats' moves since the earlier view") {
  const NetworkSnapshot net = snapshot(5, 3);
  const GaussianView first = gaussian_view(net, 80, 60, nullptr);
  CHECK(first.max_change == 0);
  NetworkSnapshot later = net;
  later.params[size_t(2 * k_gaussian_floats + k_gauss_l21)] += 0.3f;
  later.params[size_t(2 * k_gaussian_floats + k_gauss_mx)] -= 0.4f;
  const GaussianView second = gaussian_view(later, 80, 60, &first);
  CHECK(second.ellipses[2].change == doctest::Approx(std::sqrt((0.09 + 0.16) / k_gaussian_floats)).epsilon(1e-5));
  CHECK(second.ellipses[1].change == 0);
  CHECK(second.max_change == doctest::Approx(second.ellipses[2].change));
}

TEST_CASE("gaussian view: the Gaussian a pointer reads is the one that weighs most there") {
  const NetworkSnapshot net = snapshot(40, 3);
  const int32_t w = 120, h = 90;
  const GaussianView v = gaussian_view(net, w, h, nullptr);
  const float cell = gaussian_params(40).cell;
  int hits = 0;
  for (int y = 0; y < h; y += 7) {
    for (int x = 0; x < w; x += 5) {
      const double px = x + 0.5, py = y + 0.5, cx = px / (0.5 * w) - 1.0, cy = py / (0.5 * h) - 1.0;
      int64_t want = -1;
      double best = 0;
      for (int64_t i = 0; i < 40; ++i) {
        const double wi =
            gaussian_weight(gaussian_shape<double>(net.params.data() + i * k_gaussian_floats, double(cell)), cx, cy);
        if (wi > best) {
          best = wi;
          want = i;
        }
      }
      double got_w = -1;
      const int64_t got = gaussian_at(v, px, py, got_w);
      CAPTURE(x);
      CAPTURE(y);
      CHECK(got == want);
      CHECK(got_w == doctest::Approx(best).epsilon(1e-4));
      hits += got >= 0;
    }
  }
  CHECK(hits > 20); // the grid of points does meet Gaussians (the check is not of empty space only)
  double none = 0;
  CHECK(gaussian_at(v, -500, -500, none) == -1);
  CHECK(none == 0);
}
