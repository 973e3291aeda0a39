// Neuron maps (engine/insight/neuron_maps.h) against the float64 reference MLP of tests/reference_mlp.h.
#include "engine/errors.h"
#include "engine/hd_common.h"
#include "engine/insight/neuron_maps.h"
#include "reference_mlp.h"
#include "test_support.h"

#include <doctest/doctest.h>

#include <cmath>
#include <random>

namespace redraw {
namespace {

ModelSpec model_with(EncodingKind enc, Activation act) {
  ModelSpec m;
  // The grid's settings, used when `enc` is HashGrid: 3, 36, 432 cells, the last level hashed.
  m.encoding = test::hash_grid_spec(3, 2, 10, 3);
  m.encoding.per_level_scale = 12.0f;
  m.encoding.kind = enc;
  m.encoding.levels = 3;
  m.encoding.features = 6;
  m.encoding.sigma = 2.0f;
  m.hidden = {7, 5};
  m.hidden_activations = {act, act};
  m.output_activation = Activation::Sigmoid;
  m.init = act == Activation::Sine ? InitKind::Siren : InitKind::Xavier;
  m.omega_0 = 30.0f;
  m.output_channels = 3;
  return m;
}

} // namespace

TEST_CASE("neuron maps: every unit of every layer equals the reference MLP's activation at the pixel centres") {
  struct Case {
    EncodingKind enc;
    Activation act;
  };
  for (Case k : {Case{EncodingKind::Identity, Activation::Tanh}, Case{EncodingKind::Positional, Activation::Relu},
                 Case{EncodingKind::Fourier, Activation::Relu}, Case{EncodingKind::Identity, Activation::Sine},
                 Case{EncodingKind::HashGrid, Activation::Relu}}) {
    CAPTURE(encoding_name(k.enc));
    CAPTURE(activation_name(k.act));
    const ModelSpec m = model_with(k.enc, k.act);
    std::vector<float> params = initial_parameters(m, 11);
    if (k.enc == EncodingKind::HashGrid) { // a visible table instead of the 1e-4 start
      std::mt19937 rng(3);
      std::uniform_real_distribution<float> u(-1, 1);
      for (int64_t i = 0; i < encoding_parameter_count(m.encoding); ++i)
        params[size_t(i)] = u(rng);
    }
    const std::vector<float> b = fourier_matrix(m.encoding, 5);
    const test::ReferenceMlp ref(m, params, b);
    const int32_t w = 9, h = 6;
    REQUIRE(neuron_layer_count(m) == 4);
    for (int32_t layer = 0; layer < neuron_layer_count(m); ++layer) {
      CAPTURE(layer);
      const NeuronMaps maps = compute_neuron_maps(m, params, b, layer, w, h);
      REQUIRE(maps.units == neuron_layer_width(m, layer));
      double worst = 0;
      for (int32_t y = 0; y < h; ++y)
        for (int32_t x = 0; x < w; ++x) {
          std::vector<std::vector<double>> zs, ys;
          std::vector<double> input;
          ref.forward(pixel_centre<double>(x, w), pixel_centre<double>(y, h), &zs, &ys, &input);
          const std::vector<double>& want = layer == 0 ? input : ys[size_t(layer - 1)];
          REQUIRE(int32_t(want.size()) == maps.units);
          for (int32_t u = 0; u < maps.units; ++u)
            worst = std::max(worst, std::abs(double(maps.map(u)[y * w + x]) - want[size_t(u)]) /
                                        (1 + std::abs(want[size_t(u)])));
        }
      CHECK(worst < 1e-4); // float32 against float64 (Fourier and sine arguments reach ~40)
      // The range and variance describe the map.
      for (int32_t u = 0; u < maps.units; ++u) {
        const float* p = maps.map(u);
        CHECK(maps.lo[size_t(u)] == *std::min_element(p, p + w * h));
        CHECK(maps.hi[size_t(u)] == *std::max_element(p, p + w * h));
        CHECK(maps.variance[size_t(u)] >= 0);
      }
    }
  }
}

TEST_CASE("neuron maps: layer names, sizes and bad requests") {
  const ModelSpec m = model_with(EncodingKind::Fourier, Activation::Relu);
  CHECK(neuron_layer_name(m, 0) == "encoding: Fourier, 12");
  CHECK(neuron_layer_name(m, 2) == "hidden 2: 5 ReLU");
  CHECK(neuron_layer_name(m, 3) == "output: 3 Sigmoid");
  int32_t w = 0, h = 0;
  neuron_map_size(300, 150, 64, w, h);
  CHECK((w == 64 && h == 32));
  neuron_map_size(10, 1000, 64, w, h);
  CHECK((w == 1 && h == 64));
  const std::vector<float> params = initial_parameters(m, 1), b = fourier_matrix(m.encoding, 1);
  CHECK_THROWS_AS(compute_neuron_maps(m, params, b, 4, 8, 8), ConfigError);
  CHECK_THROWS_AS(compute_neuron_maps(m, params, b, -1, 8, 8), ConfigError);
  CHECK_THROWS_AS(compute_neuron_maps(m, std::span(params).first(3), b, 1, 8, 8), ConfigError);
  CHECK_THROWS_AS(compute_neuron_maps(m, params, b, 1, 8, 8, [] { return true; }), CancelledError);
}

} // namespace redraw
