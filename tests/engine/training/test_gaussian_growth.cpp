// Gaussians that grow where the error is (training.grow; engine/gaussian_growth.h and the trainer's
// relocation, engine/training/growth_step.h): a relocation moves the chosen Gaussians to the chosen
// pixels and zeroes their moments, leaves the others' bits alone, and its error is a float64
// all-pairs render's; the ones it moves are those whose leaving costs a float64 render least, at
// the plain and the carrier's stride; the pixels drawn follow the error; the config's key is read,
// written and refused with errors naming the field; a run grows at the steps its config gives, the
// same bits on one thread and two and across a checkpoint; and on a picture with sharp detail on
// one side and black on the other, growth ends at a lower loss than the same model without it.
#include "primitive_fixtures.h"
#include "test_support.h"

#include "engine/errors.h"
#include "engine/gaussian_growth.h"
#include "engine/thread_budget.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <vector>

using namespace redraw;

namespace {

/// `count` Gaussians over the picture with varied sizes, shears and colours of either sign.
std::vector<float> growth_gaussians(int64_t count, uint64_t seed) {
  return test::drawn_gaussians(count, seed, {.stream = 31, .mean = 1.0, .diag_lo = 0.3, .diag_hi = 2.0, .shear = 0.5,
                                             .colour = 0.5});
}

RunConfig grow_config(int64_t gaussians, int64_t steps, bool grow) {
  RunConfig c = load_preset(grow ? "gaussians-grow" : "gaussians");
  c.model.encoding.gaussians = gaussians;
  return test::growth_run(c, steps, grow);
}

} // namespace

TEST_CASE("a relocation moves the chosen Gaussians to the chosen pixels and zeroes their moments") {
  const int64_t count = 200;
  const int32_t w = 24, h = 20;
  std::vector<float> params = growth_gaussians(count, 3);
  const std::vector<float> before = params;
  const std::vector<float> target = test::uniform_values(size_t(w) * h * 3, 9, 1, 0.0f, 1.0f);
  const std::vector<double> drawn = test::gaussian_render_f64(params, count, w, h);
  const std::vector<float> prediction(drawn.begin(), drawn.end());
  OptimizerState moments{std::vector<float>(params.size(), 0.5f), std::vector<float>(params.size(), 0.25f)};
  const std::vector<int64_t> moved = {7, 150, 42};
  const std::vector<int64_t> pixels = {0, int64_t(w) * 11 + 5, int64_t(w) * h - 1};
  const GrowthPicture pic{w, h, 3, target.data(), prediction.data(), {}};
  const double error = relocate_gaussians(params, count, test::k_identity_head, pic, moved, pixels, moments);

  for (size_t j = 0; j < moved.size(); ++j) {
    CAPTURE(j);
    const float* g = params.data() + moved[j] * k_gaussian_floats;
    CHECK(g[k_gauss_mx] == pixel_centre<float>(pixels[j] % w, w));
    CHECK(g[k_gauss_my] == pixel_centre<float>(pixels[j] / w, h));
    CHECK(g[k_gauss_l21] == 0.0f);
    CHECK(g[k_gauss_l11] == g[k_gauss_l22]);
    for (int f = 0; f < k_gaussian_floats; ++f) {
      CHECK(moments.first[size_t(moved[j] * k_gaussian_floats + f)] == 0.0f);
      CHECK(moments.second[size_t(moved[j] * k_gaussian_floats + f)] == 0.0f);
    }
  }
  const std::set<int64_t> chosen(moved.begin(), moved.end());
  int64_t untouched = 0;
  for (int64_t i = 0; i < count; ++i)
    if (!chosen.count(i)) {
      const size_t at = size_t(i * k_gaussian_floats);
      untouched += std::memcmp(params.data() + at, before.data() + at, k_gaussian_floats * sizeof(float)) == 0 &&
                   moments.first[at] == 0.5f && moments.second[at] == 0.25f;
    }
  CHECK(untouched == count - int64_t(moved.size()));

  // The error it reports is the float64 render's of the moved model; the moved Gaussians' colours
  // are a least-squares fit, so it is below that of the model without them.
  const double rendered = test::squared_error(target, test::gaussian_render_f64(params, count, w, h));
  CHECK(error == doctest::Approx(rendered).epsilon(1e-6));
  std::vector<float> without = before;
  for (int64_t i : moved) std::fill_n(without.begin() + i * k_gaussian_floats + k_gauss_colour, 3, 0.0f);
  const double removed = test::squared_error(target, test::gaussian_render_f64(without, count, w, h));
  MESSAGE("squared error: " << test::squared_error(target, drawn) << " before, " << removed << " without the three, "
                            << rendered << " after the move");
  CHECK(rendered < removed);
}

TEST_CASE("a relocation moves the Gaussians whose leaving costs the picture least, plain and with the carrier") {
  const int64_t count = 80;
  const int32_t w = 20, h = 16;
  for (const bool carrier : {false, true}) {
    CAPTURE(carrier);
    RunConfig c = load_preset("gaussians");
    c.model.encoding.gaussians = count;
    c.model.encoding.carrier = carrier;
    const DenseLayer head = dense_layers(c.model).front();
    REQUIRE(head.in == 3);
    REQUIRE(head.out == 3);
    std::vector<float> params(size_t(parameter_count(c.model)), 0.0f);
    const std::vector<float> drawn = test::drawn_gaussians(
        count, 5,
        {.stream = 31, .mean = 1.2, .diag_lo = 0.3, .diag_hi = 2.0, .shear = 0.5, .colour = 0.5, .carrier = carrier});
    std::copy(drawn.begin(), drawn.end(), params.begin());
    std::copy_n(test::k_identity_head, 9, params.begin() + head.weight_offset);
    const int32_t stride = gaussian_floats(carrier);
    const test::GaussianReference ref = test::gaussian_reference(gaussian_params(count, carrier), drawn);
    // The picture now: the float64 render; a target of random colours.
    const std::vector<float> target = test::uniform_values(size_t(w) * h * 3, 11, 2, 0.0f, 1.0f);
    std::vector<float> prediction(target.size());
    for (int32_t y = 0; y < h; ++y)
      for (int32_t x = 0; x < w; ++x)
        for (int k = 0; k < 3; ++k)
          prediction[(size_t(y) * w + x) * 3 + size_t(k)] =
              float(ref.value(pixel_centre<double>(x, w), pixel_centre<double>(y, h), k));
    // The reference's cost of each one's leaving, float64 over every pixel: sum (r + c w)^2 - r^2.
    std::vector<double> cost(size_t(count), 0.0);
    for (int64_t i = 0; i < count; ++i)
      for (int32_t y = 0; y < h; ++y)
        for (int32_t x = 0; x < w; ++x) {
          const double wi = ref.weight(i, pixel_centre<double>(x, w), pixel_centre<double>(y, h));
          for (int k = 0; k < 3; ++k) {
            const size_t e = (size_t(y) * w + x) * 3 + size_t(k);
            const double r = double(target[e]) - double(prediction[e]);
            const double d = double(drawn[size_t(i * stride + k_gauss_colour + k)]) * wi;
            cost[size_t(i)] += d * (2.0 * r + d);
          }
        }
    GrowSpec grow;
    grow.every = 10;
    grow.fraction = 0.1;
    const int64_t m = grow_count(count, grow.fraction);
    std::vector<int64_t> expected(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i)
      expected[size_t(i)] = i;
    std::stable_sort(expected.begin(), expected.end(),
                     [&](int64_t a, int64_t b) { return cost[size_t(a)] < cost[size_t(b)]; });
    MESSAGE("costs: least " << cost[size_t(expected[0])] << ", the last moved " << cost[size_t(expected[size_t(m - 1)])]
                            << ", the first kept " << cost[size_t(expected[size_t(m)])]);
    expected.resize(size_t(m));
    std::sort(expected.begin(), expected.end());

    const std::vector<float> before = params;
    OptimizerState moments{std::vector<float>(params.size(), 0.5f), std::vector<float>(params.size(), 0.25f)};
    const GrowthPicture pic{w, h, 3, target.data(), prediction.data(), {}};
    REQUIRE(grow_gaussians(c.model, grow, 7, 10, pic, params, moments) == m);
    std::vector<int64_t> moved;
    for (int64_t i = 0; i < count; ++i)
      if (std::memcmp(params.data() + i * stride, before.data() + i * stride, size_t(stride) * sizeof(float)) != 0)
        moved.push_back(i);
    CHECK(moved == expected);
  }
}

TEST_CASE("the pixels a relocation draws are distinct, follow the error, and come from the seed and step") {
  std::vector<double> error(1000, 0.0);
  for (size_t p = 0; p < 500; ++p) error[p] = p < 100 ? 100.0 : 1.0; // the second half has none
  const std::vector<int64_t> a = error_weighted_pixels(error, 60, 7, 40);
  REQUIRE(a.size() == 60);
  CHECK(std::set<int64_t>(a.begin(), a.end()).size() == 60);
  int64_t hot = 0;
  for (int64_t p : a) {
    CHECK(p < 500);
    hot += p < 100;
  }
  MESSAGE(hot << " of 60 drawn from the 100 pixels that hold 95% of the error");
  CHECK(hot > 40);
  CHECK(error_weighted_pixels(error, 60, 7, 40) == a);
  CHECK(error_weighted_pixels(error, 60, 7, 41) != a);
  CHECK(error_weighted_pixels(error, 600, 7, 40).size() == 500); // only pixels with an error
}

TEST_CASE("training.grow is read, written only when on, and refused naming the field") {
  const RunConfig grown = load_preset("gaussians-grow");
  CHECK(grown.training.grow.on());
  CHECK(grown.training.grow.every == 50);
  CHECK(parse_run_config(to_json(grown), "again").training.grow == grown.training.grow);
  CHECK_FALSE(to_json(load_preset("gaussians"))["training"].contains("grow"));
  CHECK(requires_new_trainer(grown, load_preset("gaussians")));
  CHECK(grow_count(30000, 0.05) == 1500);
  CHECK(grow_count(10, 1e-6) == 1);

  const auto error_of = [](const nlohmann::json& grow, const char* otype = "Gaussians") {
    nlohmann::json j = {{"model", {{"encoding", {{"otype", otype}}}, {"hidden", nlohmann::json::array()}}},
                        {"training", {{"grow", grow}}}};
    return test::config_error_of(j);
  };
  CHECK(error_of({{"every", 50}}).empty());
  CHECK(error_of({{"fraction", 0.1}}).find("training.grow.every: must be given") != std::string::npos);
  CHECK(error_of({{"every", 0}}).find("training.grow.every") != std::string::npos);
  CHECK(error_of({{"every", 10}, {"fraction", 0.9}}).find("training.grow.fraction") != std::string::npos);
  CHECK(error_of({{"every", 10}, {"until", 2}}).find("training.grow.until") != std::string::npos);
  CHECK(error_of({{"every", 10}, {"often", 2}}).find("training.grow.often: unknown key") != std::string::npos);
  CHECK(error_of({{"every", 10}}, "HashGrid").find("training.grow: the HashGrid family does not grow") !=
        std::string::npos);
  RunConfig deep = grow_config(100, 10, true);
  deep.model.hidden = {16};
  CHECK_THROWS_WITH_AS(Trainer(std::make_unique<CpuBackend>(), deep, Dataset{test::detail_picture(16)}),
                       doctest::Contains("model.hidden must be []"), ConfigError);
}

TEST_CASE("a growing run relocates at its config's steps, the same bits on 1 and 2 threads and across a resume") {
  const Image img = test::detail_picture(32);
  const RunConfig cfg = grow_config(300, 60, true);
  set_cpu_threads(1);
  Trainer one = test::small_trainer(cfg, img);
  one.run(60);
  const std::vector<GrowthEvent> expected = {{20, 30}, {40, 30}};
  CHECK(growth_events_until(cfg, 60) == expected); // 60 is not below 0.8 x 60
  CHECK(one.record().growth() == expected);
  set_cpu_threads(2);
  Trainer two = test::small_trainer(cfg, img);
  two.run(30);
  const Checkpoint half = two.checkpoint();
  Trainer resumed = test::small_trainer(cfg, img);
  resumed.restore(half);
  CHECK(resumed.record().growth() == std::vector<GrowthEvent>{{20, 30}});
  resumed.run(30);
  CHECK(resumed.record().growth() == expected);
  two.run(30);
  set_cpu_threads(0);
  CHECK(test::same_bits(test::weights_and_moments(one), test::weights_and_moments(two)));
  CHECK(test::same_bits(test::weights_and_moments(one), test::weights_and_moments(resumed)));
  test::check_growth_changed_bits(one, grow_config(300, 60, false), img);
}

TEST_CASE("on a picture with sharp detail, growth reaches a lower loss than the same Gaussians without it") {
  const Image img = test::detail_picture(48);
  Trainer plain = test::small_trainer(grow_config(300, 160, false), img);
  Trainer grown = test::small_trainer(grow_config(300, 160, true), img);
  plain.run(160);
  grown.run(160);
  const double p = plain.measure().psnr_db, g = grown.measure().psnr_db;
  MESSAGE("48 x 48 detail, 300 Gaussians, 160 steps: plain " << p << " dB, grown " << g << " dB ("
                                                             << grown.record().growth().size() << " relocations)");
  CHECK(g > p + 1.0); // 15.2 against 19.4 dB when written
}
