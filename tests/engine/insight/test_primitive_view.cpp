// The primitives view (engine/insight/primitive_view.h): each ellipse is checked against the model's
// own Mahalanobis distance in coordinates (points on the drawn contour must have q = 1 there), its
// colour against the colour head by hand, its change against the floats' difference, the Gaussian
// a pointer reads against a brute-force maximum of gaussian_weight, and a sad model's owner map
// against a brute-force search of every site's energy.
#include "engine/errors.h"
#include "engine/gaussian_math.h"
#include "engine/insight/primitive_view.h"
#include "engine/sad_math.h"
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

TEST_CASE("primitive view: gaussians: each drawn one-sigma contour is where the model's own q is 1") {
  const NetworkSnapshot net = snapshot(12, 3);
  const int32_t w = 300, h = 170; // not square: the two axes scale differently
  const PrimitiveView v = primitive_view(net, w, h, nullptr);
  REQUIRE(v.ellipses.size() == 12);
  CHECK(v.step == 42);
  const float cell = gaussian_params(12).cell;
  for (size_t i = 0; i < v.ellipses.size(); ++i) {
    const PrimitiveEllipse& e = v.ellipses[i];
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

TEST_CASE("primitive view: gaussians: the colour is the head's mix of the Gaussian's colour, clamped; grey for one channel") {
  const NetworkSnapshot net = snapshot(3, 3);
  const PrimitiveView v = primitive_view(net, 64, 64, nullptr);
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
  const PrimitiveView vg = primitive_view(grey, 64, 64, nullptr);
  CHECK(vg.ellipses[1].rgb[0] == vg.ellipses[1].rgb[2]);
  NetworkSnapshot mlp = net;
  mlp.model.encoding.kind = EncodingKind::Fourier;
  CHECK_THROWS_AS(primitive_view(mlp, 64, 64, nullptr), ConfigError);
}

TEST_CASE("primitive view: gaussians: the change is the RMS of a Gaussian's floats' moves since the earlier view") {
  const NetworkSnapshot net = snapshot(5, 3);
  const PrimitiveView first = primitive_view(net, 80, 60, nullptr);
  CHECK(first.max_change == 0);
  NetworkSnapshot later = net;
  later.params[size_t(2 * k_gaussian_floats + k_gauss_l21)] += 0.3f;
  later.params[size_t(2 * k_gaussian_floats + k_gauss_mx)] -= 0.4f;
  const PrimitiveView second = primitive_view(later, 80, 60, &first);
  CHECK(second.ellipses[2].change == doctest::Approx(std::sqrt((0.09 + 0.16) / k_gaussian_floats)).epsilon(1e-5));
  CHECK(second.ellipses[1].change == 0);
  CHECK(second.max_change == doctest::Approx(second.ellipses[2].change));
}

TEST_CASE("primitive view: gaussians: the Gaussian a pointer reads is the one that weighs most there") {
  const NetworkSnapshot net = snapshot(40, 3);
  const int32_t w = 120, h = 90;
  const PrimitiveView v = primitive_view(net, w, h, nullptr);
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
      const int64_t got = primitive_at(v, px, py, got_w);
      CAPTURE(x);
      CAPTURE(y);
      CHECK(got == want);
      CHECK(got_w == doctest::Approx(best).epsilon(1e-4));
      hits += got >= 0;
    }
  }
  CHECK(hits > 20); // the grid of points does meet Gaussians (the check is not of empty space only)
  double none = 0;
  CHECK(primitive_at(v, -500, -500, none) == -1);
  CHECK(none == 0);
}

namespace {
/// A sad model of `count` sites spread over the picture with varied metrics, radii, temperatures
/// and colours, and an identity colour head.
NetworkSnapshot sites_snapshot(int64_t count) {
  NetworkSnapshot net;
  net.model.encoding.kind = EncodingKind::Sad;
  net.model.encoding.sites = count;
  net.model.hidden = {};
  net.model.hidden_activations = {};
  net.model.output_activation = Activation::Identity;
  net.model.output_channels = 3;
  net.params.assign(size_t(parameter_count(net.model)), 0.0f);
  for (int64_t i = 0; i < count; ++i) {
    float* s = net.params.data() + i * k_sad_floats;
    const double t = (double(i) + 0.5) / double(count);
    s[k_sad_mx] = float(-0.9 + 1.8 * std::fmod(t * 7.3, 1.0));
    s[k_sad_my] = float(-0.9 + 1.8 * t);
    s[k_sad_l11] = float(0.6 + 0.8 * std::sin(5.0 * t) * std::sin(5.0 * t));
    s[k_sad_l21] = float(0.5 * std::cos(11.0 * t));
    s[k_sad_l22] = float(0.7 + 0.5 * t);
    s[k_sad_radius] = float(0.3 * std::sin(3.0 * t));
    s[k_sad_temp] = float(-0.5 + t);
    for (int k = 0; k < k_sad_channels; ++k) s[k_sad_colour + k] = float(std::fmod(t * (k + 2), 1.0));
  }
  const DenseLayer head = dense_layers(net.model).back();
  for (int32_t r = 0; r < head.out; ++r) net.params[size_t(head.weight_offset + r * head.in + r)] = 1.0f;
  net.step = 7;
  return net;
}
} // namespace

TEST_CASE("primitive view: a site's ellipse is its metric's unit contour, its colour the head's") {
  const NetworkSnapshot net = sites_snapshot(30);
  const int32_t w = 200, h = 130;
  const PrimitiveView v = primitive_view(net, w, h, nullptr);
  REQUIRE(v.sites);
  REQUIRE(v.ellipses.size() == 30);
  const float cell = sad_params(30).cell;
  for (size_t i = 0; i < v.ellipses.size(); ++i) {
    const PrimitiveEllipse& e = v.ellipses[i];
    const float* s = net.params.data() + i * k_sad_floats;
    CAPTURE(i);
    CHECK(e.cx == doctest::Approx((s[k_sad_mx] + 1.0) * 0.5 * w));
    CHECK(e.rgb[1] == doctest::Approx(std::clamp(double(s[k_sad_colour + 1]), 0.0, 1.0)));
    const SadShape<double> sh = sad_shape<double>(s, double(cell));
    for (int k = 0; k < 8; ++k) {
      const double th = 2.0 * M_PI * k / 8.0, ca = std::cos(double(e.angle)), sa = std::sin(double(e.angle));
      const double px = e.cx + e.rx * std::cos(th) * ca - e.ry * std::sin(th) * sa;
      const double py = e.cy + e.rx * std::cos(th) * sa + e.ry * std::sin(th) * ca;
      double z1 = 0, z2 = 0;
      CHECK(sad_q(sh, px / (0.5 * w) - 1.0, py / (0.5 * h) - 1.0, z1, z2) == doctest::Approx(1.0).epsilon(1e-4));
    }
  }
}

TEST_CASE("primitive view: the owner map names the site of least energy, as a search of every site finds it") {
  const NetworkSnapshot net = sites_snapshot(30);
  const int32_t w = 90, h = 60;
  const PrimitiveView v = primitive_view(net, w, h, nullptr, 45);
  REQUIRE(v.map_w == 45);
  REQUIRE(v.map_h == 30);
  REQUIRE(v.owner.size() == size_t(45 * 30));
  const float cell = sad_params(30).cell;
  // The owner by brute force: the least energy over every site, at the map pixel's centre.
  int64_t agree = 0, sum_owned = 0;
  for (int32_t j = 0; j < v.map_h; ++j)
    for (int32_t i = 0; i < v.map_w; ++i) {
      const float x = pixel_centre<float>(i, v.map_w), y = pixel_centre<float>(j, v.map_h);
      int32_t want = -1;
      float best = 0;
      for (int32_t s = 0; s < 30; ++s) {
        const float e = sad_key(sad_shape<float>(net.params.data() + s * k_sad_floats, cell), x, y);
        if (want < 0 || e < best) best = e, want = s;
      }
      agree += v.owner[size_t(j * v.map_w + i)] == want;
    }
  CHECK(agree == int64_t(v.owner.size())); // 30 sites: every node's list holds its nearest 8
  int64_t idle = 0;
  for (const PrimitiveEllipse& e : v.ellipses) {
    sum_owned += e.owned;
    idle += e.owned == 0;
  }
  CHECK(sum_owned == int64_t(v.owner.size()));
  CHECK(v.idle == idle);
  CHECK(idle < 30);
  // The pointer reads the owner map.
  double weight = 0;
  CHECK(primitive_at(v, 0.5, 0.5, weight) == v.owner[0]);
  CHECK(weight == 1.0);
  CHECK(primitive_at(v, w - 0.5, h - 0.5, weight) == v.owner.back());
  CHECK(primitive_at(v, -1, 5, weight) == -1);
  // A Gaussians view has no owner map.
  const PrimitiveView g = primitive_view(snapshot(12, 3), 64, 64, nullptr);
  CHECK_FALSE(g.sites);
  CHECK(g.owner.empty());
}
