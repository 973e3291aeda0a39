// The Gaussians' cosine carrier (model.encoding.carrier, engine/gaussian_math.h): the CPU's cos and
// sin against float64; the tiled passes against an all-pairs float64 sum and the gradient of all ten
// fields against its central differences; frequencies of 0 as the plain Gaussians; the same bits at
// 1, 2 and 3 threads and on either kernel family; a carrier model through the CPU backend, saved,
// loaded and rendered; the config field, the preset's budget and the model file's layout checks.
#include "primitive_fixtures.h"
#include "test_support.h"

#include "cpu/cpu_backend.h"
#include "cpu/cpu_gaussian_grid.h"
#include "cpu/cpu_gaussians.h"
#include "engine/errors.h"
#include "engine/gaussian_bounds.h"
#include "engine/gaussian_growth.h"
#include "engine/frames/renderer.h"
#include "engine/images/image.h"
#include "engine/model_files/checkpoint.h"
#include "engine/model_files/model_check.h"
#include "engine/model_family.h"
#include "engine/model_spec.h"
#include "engine/rng_math.h"
#include "engine/run_config.h"
#include "engine/training/open_run.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

using namespace redraw;

namespace {

constexpr uint64_t k_carrier_seed = 77;
constexpr int32_t k_cf = k_gaussian_carrier_floats;

/// `count` Gaussians with the carrier: the fields vary as tests/engine/bench/test_gaussians.cpp's,
/// frequencies up to 3 radians per standard deviation (several stripes across a Gaussian).
constexpr test::GaussianDraw k_carrier_draw{.stream = 41, .carrier = true, .frequency = 3.0};
std::vector<float> carrier_gaussians(int64_t count, uint64_t seed, double most_frequency = 3.0) {
  test::GaussianDraw d = k_carrier_draw;
  d.frequency = most_frequency;
  return test::drawn_gaussians(count, seed, d);
}

RunConfig carrier_config(int64_t count, int64_t steps) {
  return test::short_primitive_run("gaussians-wipes", &EncodingSpec::gaussians, count, steps);
}

} // namespace

TEST_CASE("gaussian carrier: the CPU's cos and sin are within 2e-7 of float64's for |x| <= 1e4, exact at 0") {
  double worst = 0;
  for (int64_t i = -2000000; i <= 2000000; ++i) {
    const float x = float(10000.0 * double(i) / 2000000.0);
    float c = 0, s = 0;
    cpu::gaussian_cpu_cos_sin(x, c, s);
    worst = std::max({worst, std::abs(double(c) - std::cos(double(x))), std::abs(double(s) - std::sin(double(x)))});
  }
  MESSAGE("worst " << worst);
  CHECK(worst <= 2e-7);
  float c = 0, s = 0;
  cpu::gaussian_cpu_cos_sin(0.0f, c, s);
  CHECK(c == 1.0f);
  CHECK(s == 0.0f);
}

TEST_CASE("gaussian carrier: the tiled CPU forward pass is the all-pairs float64 sum within 1e-5") {
  for (const int64_t count : {int64_t(1), int64_t(37), int64_t(600)}) {
    CAPTURE(count);
    const GaussianParams g = gaussian_params(count, true);
    const std::vector<float> p = carrier_gaussians(count, k_carrier_seed + uint64_t(count));
    const std::vector<float> coords = test::margin_coords(3000, k_carrier_seed);
    const test::ForwardErrors e = test::gaussian_forward_errors(g, p, coords);
    const test::GaussianReference ref = test::gaussian_reference(g, p);
    int64_t negative = 0;
    for (int64_t i = 0; i < count; ++i) // the carrier swings: some weight is below 0
      for (int64_t j = 0; j < 50; ++j) negative += ref.weight(i, coords[size_t(2 * j)], coords[size_t(2 * j + 1)]) < 0;
    MESSAGE(count << " Gaussians: worst difference " << e.worst << " on values up to " << e.largest);
    CHECK(e.worst < 1e-5);
    CHECK(e.largest > 0.1);
    if (count > 1) CHECK(negative > 0);
  }
}

TEST_CASE("gaussian carrier: the gradient of all ten fields matches central differences in float64") {
  test::check_gaussian_gradient(test::gaussian_case(40, 400, k_carrier_draw, k_carrier_seed, 1, 23),
                                {"mx", "my", "l11", "l21", "l22", "colour 0", "colour 1", "colour 2", "wx", "wy"});
}

TEST_CASE("gaussian carrier: frequencies of 0 give the plain Gaussians' bits forward and their gradient") {
  const int64_t count = 500, n = 3000;
  const std::vector<float> on = carrier_gaussians(count, k_carrier_seed + 3, 0.0);
  std::vector<float> off(size_t(count * k_gaussian_floats));
  for (int64_t i = 0; i < count; ++i)
    std::copy_n(on.begin() + i * k_cf, k_gaussian_floats, off.begin() + i * k_gaussian_floats);
  const std::vector<float> coords = test::margin_coords(n, k_carrier_seed + 4);
  const std::vector<float> r = test::uniform_values(size_t(n * k_gaussian_channels), k_carrier_seed, 24, -1.0f, 1.0f);
  std::vector<float> out_on(size_t(n * 3)), out_off(size_t(n * 3)), g_on(on.size()), g_off(off.size());
  gaussian_encode_rows(gaussian_params(count, true), on.data(), coords.data(), n, out_on.data());
  gaussian_encode_rows(gaussian_params(count), off.data(), coords.data(), n, out_off.data());
  CHECK(std::memcmp(out_on.data(), out_off.data(), out_on.size() * sizeof(float)) == 0);
  gaussian_backward_rows(gaussian_params(count, true), on.data(), coords.data(), r.data(), n, g_on.data(), false);
  gaussian_backward_rows(gaussian_params(count), off.data(), coords.data(), r.data(), n, g_off.data(), false);
  int64_t same = 0, moved = 0;
  for (int64_t i = 0; i < count; ++i) {
    for (int f = 0; f < k_gaussian_floats; ++f)
      same += g_on[size_t(i * k_cf + f)] == g_off[size_t(i * k_gaussian_floats + f)];
    // sin 0 = 0: at frequencies of 0 the frequencies' own gradient is 0 (why they start off 0)
    moved += g_on[size_t(i * k_cf + k_gauss_wx)] != 0.0f || g_on[size_t(i * k_cf + k_gauss_wy)] != 0.0f;
  }
  CHECK(same == count * k_gaussian_floats);
  CHECK(moved == 0);
}

TEST_CASE("gaussian carrier: the same bits at 1, 2 and 3 threads, and on the AVX2 and baseline kernels") {
  const int64_t count = 900, n = 5000;
  const test::GaussianCase c = test::gaussian_case(count, n, k_carrier_draw, k_carrier_seed, 5, 25);
  const test::GridPasses one = test::rows_passes_at_1_2_3_threads(c);
  size_t moved = 0;
  for (int64_t i = 0; i < count; ++i) moved += one.grads[size_t(i * k_cf + k_gauss_wx)] != 0.25f;
  CHECK(moved > size_t(count) / 2);
  if (!cpu::GaussianGrid::avx2_available()) {
    MESSAGE("skipped the AVX2 half: this CPU has no AVX2");
    return;
  }
  const test::GridPasses base = test::cpu_grid_passes(c.g, c.p, c.coords, n, c.r, false);
  const test::GridPasses avx2 = test::cpu_grid_passes(c.g, c.p, c.coords, n, c.r, true);
  CHECK(test::same_bits(base.out, avx2.out));
  CHECK(test::same_bits(base.grads, avx2.grads));
}

TEST_CASE("gaussian carrier model: the seed's Gaussians are the plain model's, with small frequencies after each") {
  const ModelSpec plain = test::gaussians_spec(3000);
  ModelSpec carried = plain;
  carried.encoding.carrier = true;
  const std::vector<float> a = initial_parameters(plain, 7), b = initial_parameters(carried, 7);
  REQUIRE(int64_t(b.size()) == 3000 * k_cf + 12);
  CHECK(parameter_count(carried) == 3000 * k_cf + 12);
  int64_t same = 0, small = 0;
  double spread = 0;
  for (int64_t i = 0; i < 3000; ++i) {
    same += std::memcmp(a.data() + i * k_gaussian_floats, b.data() + i * k_cf, k_gaussian_floats * sizeof(float)) == 0;
    for (int f : {k_gauss_wx, k_gauss_wy}) {
      const float w = b[size_t(i * k_cf + f)];
      small += w != 0.0f && std::abs(w) * k_gaussian_carrier_step <= k_gaussian_carrier_init * (1 + 1e-6);
      spread = std::max(spread, double(std::abs(w)));
    }
  }
  CHECK(same == 3000);
  CHECK(small == 6000);
  CHECK(spread * k_gaussian_carrier_step > 0.9 * k_gaussian_carrier_init); // drawn over the whole range
  CHECK(std::equal(a.end() - 12, a.end(), b.end() - 12)); // the head
}

TEST_CASE("gaussian carrier model: trained, saved, loaded and rendered, the same bits; the layout is checked") {
  test::TempDir dir;
  const test::SavedRun run = test::train_save_and_load(carrier_config(400, 3), dir.path / "w.redraw");
  const Checkpoint &c = run.trained, &back = run.loaded;
  REQUIRE(int64_t(c.params.size()) == parameter_count(c.config.model));
  int64_t stepped = 0; // the frequencies train
  for (int64_t i = 0; i < 400; ++i)
    stepped += c.params[size_t(i * k_cf + k_gauss_wx)] != run.start[size_t(i * k_cf + k_gauss_wx)];
  CHECK(stepped > 100);
  CHECK(back.config.model.encoding.carrier);
  CHECK(back.config.model.encoding.gaussians == 400);
  REQUIRE(back.params == c.params);
  const Image a = test::check_same_render(c, back);
  CpuBackend cpu;
  // Read as carrier-off, the same floats are another model, refused by its parameter count.
  Checkpoint plain = back;
  plain.config.model.encoding.carrier = false;
  CHECK_THROWS(render_image(cpu, NetworkView{&plain.config.model, back.params, {}}, 40, 28));
  // The render is the carrier's: the same Gaussians without their frequencies draw another picture.
  std::vector<float> stripped = back.params;
  for (int64_t i = 0; i < 400; ++i) stripped[size_t(i * k_cf + k_gauss_wx)] = stripped[size_t(i * k_cf + k_gauss_wy)] = 0.0f;
  const Image d = render_image(cpu, NetworkView{&back.config.model, stripped, {}}, 40, 28);
  CHECK(std::memcmp(a.pixels.data(), d.pixels.data(), a.pixels.size() * sizeof(float)) != 0);
  // A file cut short is refused, naming the file.
  const std::filesystem::path cut = dir.path / "cut.redraw";
  {
    std::ifstream in(dir.path / "w.redraw", std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream out(cut, std::ios::binary);
    out.write(bytes.data(), std::streamsize(bytes.size() / 2));
  }
  CHECK_THROWS_WITH(load_checkpoint(cut), doctest::Contains("cut.redraw"));
  // A frequency that is not finite is refused on save, and named in PARM by the model check; so
  // are Gaussians far larger than the picture, read at the carrier's stride.
  Checkpoint nan = c;
  nan.params[size_t(5 * k_cf + k_gauss_wy)] = NAN;
  CHECK_THROWS(save_checkpoint(dir.path / "nan.redraw", nan));
  REQUIRE_FALSE(check_model(nan).empty());
  CHECK(check_model(nan).front().field == "PARM");
  CHECK(check_model(c).empty());
  ModelSpec m = c.config.model;
  m.encoding.gaussians = 5000; // past the least pair budget (engine/gaussian_bounds.h) when wide
  std::vector<float> wide = initial_parameters(m, 3);
  CHECK(gaussian_coverage_problem(m, wide).empty());
  for (int64_t i = 0; i < 5000; ++i) wide[size_t(i * k_cf + k_gauss_l11)] = wide[size_t(i * k_cf + k_gauss_l22)] = 1000.0f;
  CHECK(gaussian_coverage_problem(m, wide).find("Gaussians far larger than the picture") != std::string::npos);
}

TEST_CASE("config: model.encoding.carrier is read, written only when on, and refused where it does not apply") {
  nlohmann::json j = {{"model", {{"encoding", {{"otype", "Gaussians"}, {"carrier", true}}}, {"hidden", nlohmann::json::array()},
                                 {"output_activation", "Identity"}, {"gaussians", 1000}}}};
  const RunConfig c = parse_run_config(j, "w.json");
  CHECK(c.model.encoding.carrier);
  CHECK(parameter_count(c.model) == 1000 * k_cf + 12);
  CHECK(to_json(c)["model"]["encoding"]["carrier"] == true);
  CHECK(parse_run_config(to_json(c), "again.json").model.encoding.carrier);
  CHECK_FALSE(load_preset("gaussians").model.encoding.carrier);
  CHECK_FALSE(to_json(load_preset("gaussians"))["model"]["encoding"].contains("carrier"));
  RunConfig other = c;
  other.model.encoding.carrier = false;
  CHECK(requires_new_trainer(c, other));
  for (const nlohmann::json& bad : {nlohmann::json(1), nlohmann::json("yes"), nlohmann::json(nullptr)}) {
    CAPTURE(bad.dump());
    nlohmann::json b = j;
    b["model"]["encoding"]["carrier"] = bad;
    CHECK_THROWS_WITH_AS(parse_run_config(b, "w.json"), doctest::Contains("model.encoding.carrier: must be true or false"),
                         ConfigError);
  }
  nlohmann::json siren = to_json(load_preset("siren"));
  siren["model"]["encoding"]["carrier"] = true;
  CHECK_THROWS_WITH_AS(parse_run_config(siren, "s.json"), doctest::Contains("model.encoding.carrier: only the Gaussians"),
                       ConfigError);
}

TEST_CASE("gaussians-wipes preset: the carrier on, at the gaussians preset's parameter count") {
  const RunConfig w = load_preset("gaussians-wipes"), g = load_preset("gaussians");
  CHECK(w.model.encoding.carrier);
  CHECK(parameter_count(w.model) == parameter_count(g.model));
  CHECK(model_shape(w.model) == "24000 Gaussians with a carrier");
}

TEST_CASE("gaussian carrier growth: a moved Gaussian's frequencies start again small, its ten moments at 0") {
  const int64_t count = 200;
  const int32_t w = 24, h = 20;
  std::vector<float> params = carrier_gaussians(count, k_carrier_seed + 7);
  for (int64_t i = 0; i < count; ++i) // sizes about a cell, as a trained model's
    params[size_t(i * k_cf + k_gauss_l11)] = params[size_t(i * k_cf + k_gauss_l22)] = 1.0f;
  const std::vector<float> before = params;
  const std::vector<float> target = test::uniform_values(size_t(w) * h * 3, 9, 1, 0.0f, 1.0f);
  const std::vector<float> prediction(target.size(), 0.5f);
  OptimizerState moments{std::vector<float>(params.size(), 0.5f), std::vector<float>(params.size(), 0.25f)};
  const std::vector<int64_t> moved = {7, 150, 42};
  const std::vector<int64_t> pixels = {0, int64_t(w) * 11 + 5, int64_t(w) * h - 1};
  const float head[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  const GrowthPicture pic{w, h, 3, target.data(), prediction.data(), {}};
  relocate_gaussians(params, count, head, pic, moved, pixels, moments, true);
  for (size_t j = 0; j < moved.size(); ++j) {
    CAPTURE(j);
    const float* g = params.data() + moved[j] * k_cf;
    CHECK(g[k_gauss_mx] == pixel_centre<float>(pixels[j] % w, w));
    CHECK(g[k_gauss_my] == pixel_centre<float>(pixels[j] / w, h));
    for (int f : {k_gauss_wx, k_gauss_wy}) {
      CHECK(g[f] != 0.0f);
      CHECK(std::abs(g[f]) * k_gaussian_carrier_step <= k_gaussian_carrier_init * (1 + 1e-6));
    }
    for (int f = 0; f < k_cf; ++f) {
      CHECK(moments.first[size_t(moved[j] * k_cf + f)] == 0.0f);
      CHECK(moments.second[size_t(moved[j] * k_cf + f)] == 0.0f);
    }
  }
  int64_t untouched = 0;
  for (int64_t i = 0; i < count; ++i)
    untouched += std::memcmp(params.data() + i * k_cf, before.data() + i * k_cf, k_cf * sizeof(float)) == 0 &&
                 moments.first[size_t(i * k_cf + k_gauss_wy)] == 0.5f;
  CHECK(untouched == count - 3);
}
