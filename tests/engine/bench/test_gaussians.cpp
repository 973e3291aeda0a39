// The `gaussians` encoding (engine/gaussian_math.h, cpu/cpu_gaussians.cpp): the tiled CPU forward
// pass against an all-pairs float64 sum that inverts Sigma = L L^T explicitly (another route than
// the passes' forward substitution); the gradient of every parameter kind against central
// differences of that sum; the same bits at 1, 2 and 3 threads; a gaussians model through the
// whole CPU backend (its loss gradient, a saved model, a short fit); and model.gaussians in configs.
#include "primitive_fixtures.h"
#include "test_support.h"

#include "cpu/cpu_backend.h"
#include "cpu/cpu_gaussians.h"
#include "cuda/fused_mlp_rules.h"
#include "engine/backend_names.h"
#include "engine/bench/param_budget.h"
#include "engine/errors.h"
#include "engine/frames/renderer.h"
#include "engine/images/image.h"
#include "engine/insight/neuron_maps.h"
#include "engine/model_files/weights_export.h"
#include "engine/model_files/checkpoint.h"
#include "engine/model_spec.h"
#include "engine/rng_math.h"
#include "engine/run_config.h"
#include "engine/sweep/sweep_plan.h"
#include "engine/training/open_run.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <vector>

using namespace redraw;

namespace {

constexpr uint64_t k_seed = 55;

/// `count` Gaussians drawn to vary every field: means a little past the picture's edge, sizes
/// from the floor to several cells (diagonal values of either sign), shears, colours of either sign.
constexpr test::GaussianDraw k_draw{.stream = 21};
std::vector<float> random_gaussians(int64_t count, uint64_t seed) { return test::drawn_gaussians(count, seed, k_draw); }

/// A gaussians model of `count` Gaussians and C output channels, as the preset builds it.
RunConfig gaussians_config(int64_t count, int64_t steps) {
  return test::short_primitive_run("gaussians", &EncodingSpec::gaussians, count, steps);
}

} // namespace

TEST_CASE("gaussians: the tiled CPU forward pass is the all-pairs float64 sum within 1e-5") {
  for (const int64_t count : {int64_t(1), int64_t(37), int64_t(600)}) {
    CAPTURE(count);
    const GaussianParams g = gaussian_params(count);
    const std::vector<float> p = random_gaussians(count, k_seed + uint64_t(count));
    const int64_t n = 3000;
    const test::ForwardErrors e = test::gaussian_forward_errors(g, p, test::margin_coords(n, k_seed));
    MESSAGE(count << " Gaussians: worst difference " << e.worst << " on values up to " << e.largest);
    CHECK(e.worst < 1e-5);
    CHECK(e.covered > n / 10); // the samples see Gaussians: not a comparison of zeros
  }
}

TEST_CASE("gaussians: the gradient of every field matches central differences in float64") {
  test::check_gaussian_gradient(test::gaussian_case(40, 400, k_draw, k_seed, 1, 23),
                                {"mx", "my", "l11", "l21", "l22", "colour 0", "colour 1", "colour 2"});
}

TEST_CASE("gaussians: forward and backward give the same bits at 1, 2 and 3 threads") {
  const test::GaussianCase c = test::gaussian_case(900, 5000, k_draw, k_seed, 3, 24);
  const test::GridPasses one = test::rows_passes_at_1_2_3_threads(c);
  size_t moved = 0;
  for (float v : one.grads) moved += v != 0.25f;
  CHECK(moved > one.grads.size() / 2); // accumulate added something
}

TEST_CASE("gaussians model: the CPU backend's loss gradient, head included, matches central differences") {
  ModelSpec m = test::gaussians_spec(25);
  for (const int32_t channels : {1, 3}) {
    CAPTURE(channels);
    m.output_channels = channels;
    std::vector<float> p = initial_parameters(m, k_seed);
    const std::vector<float> shaped = random_gaussians(m.encoding.gaussians, k_seed + 5);
    std::copy(shaped.begin(), shaped.end(), p.begin());
    const int64_t n = 300;
    const std::vector<float> coords = test::margin_coords(n, k_seed + 6);
    const std::vector<float> targets = test::uniform_values(size_t(n * channels), k_seed, 25, 0.0f, 1.0f);
    CpuBackend cpu;
    std::vector<float> grads(p.size());
    const LossParams mse{};
    cpu.loss_and_gradients(m, mse, p, {}, coords.data(), targets.data(), n, grads);
    // The model in float64: the reference encoding, then the head.
    const std::vector<DenseLayer> layers = dense_layers(m);
    REQUIRE(layers.size() == 1);
    auto loss = [&](const std::vector<double>& q) {
      const test::GaussianReference ref{double(gaussian_params(m.encoding.gaussians).cell),
                                        std::vector<double>(q.begin(), q.begin() + int64_t(shaped.size()))};
      double s = 0;
      for (int64_t j = 0; j < n; ++j) {
        double enc[k_gaussian_channels];
        for (int k = 0; k < k_gaussian_channels; ++k) enc[k] = ref.value(coords[size_t(2 * j)], coords[size_t(2 * j + 1)], k);
        for (int32_t o = 0; o < channels; ++o) {
          double y = q[size_t(layers[0].bias_offset + o)];
          for (int k = 0; k < k_gaussian_channels; ++k) y += q[size_t(layers[0].weight_offset + o * 3 + k)] * enc[k];
          const double d = y - double(targets[size_t(j * channels + o)]);
          s += d * d;
        }
      }
      return s / double(n * channels);
    };
    std::vector<double> q(p.begin(), p.end());
    double worst = 0, largest = 0;
    for (size_t i = 0; i < q.size(); ++i) {
      const double fd = test::central_difference(q, i, [&] { return loss(q); });
      worst = std::max(worst, std::abs(double(grads[i]) - fd));
      largest = std::max(largest, std::abs(fd));
    }
    MESSAGE(channels << " channel(s): worst difference " << worst << " on gradients up to " << largest);
    CHECK(largest > 1e-2);
    CHECK(worst < 1e-4 * largest);
  }
}

TEST_CASE("gaussians model: the seed alone sets the Gaussians, which tile the picture, and the head is the identity") {
  const ModelSpec m = test::gaussians_spec(4000);
  const std::vector<float> a = initial_parameters(m, 7), b = initial_parameters(m, 7), c = initial_parameters(m, 8);
  CHECK(a == b);
  CHECK(a != c);
  REQUIRE(int64_t(a.size()) == 4000 * k_gaussian_floats + 12);
  const DenseLayer head = dense_layers(m)[0];
  for (int32_t o = 0; o < 3; ++o) {
    CHECK(a[size_t(head.bias_offset + o)] == 0.0f);
    for (int32_t k = 0; k < 3; ++k) CHECK(a[size_t(head.weight_offset + o * 3 + k)] == (o == k ? 1.0f : 0.0f));
  }
  // The first picture: covered everywhere, about mid grey on average (init_gaussians).
  const GaussianParams g = gaussian_params(m.encoding.gaussians);
  const int64_t n = 2000;
  const std::vector<float> coords = test::uniform_values(size_t(2 * n), 3, 26, -0.95f, 0.95f);
  std::vector<float> out(size_t(n * 3));
  gaussian_encode_rows(g, a.data(), coords.data(), n, out.data());
  double sum = 0, lowest = 1e9;
  for (float v : out) sum += v, lowest = std::min(lowest, double(v));
  MESSAGE("initial picture: mean " << sum / double(out.size()) << ", lowest " << lowest);
  CHECK(sum / double(out.size()) == doctest::Approx(0.5).epsilon(0.1));
  CHECK(lowest > 0.05);
}

TEST_CASE("gaussians model: saved, loaded and rendered, the same bits") {
  test::TempDir dir;
  const test::SavedRun run = test::train_save_and_load(gaussians_config(500, 3), dir.path / "g.redraw");
  const Checkpoint& back = run.loaded;
  CHECK(back.config.model.encoding.kind == EncodingKind::Gaussians);
  CHECK(back.config.model.encoding.gaussians == 500);
  REQUIRE(back.params == run.trained.params);
  (void)test::check_same_render(run.trained, back);
  // The render is the Gaussians': another count reads other parameters and is refused.
  Checkpoint other = back;
  other.config.model.encoding.gaussians = 499;
  CpuBackend cpu;
  CHECK_THROWS(render_image(cpu, NetworkView{&other.config.model, back.params, {}}, 40, 28));
}

TEST_CASE("gaussians model: a few hundred steps fit a synthetic picture far above its start") {
  RunConfig cfg = gaussians_config(2000, 300);
  const Image img = test::busy_pattern(64, 64, 3);
  Trainer t = test::small_trainer(cfg, img);
  const double start = t.measure().psnr_db;
  t.run(300);
  const double end = t.measure().psnr_db;
  MESSAGE("2000 Gaussians on a 64x64 pattern: PSNR " << start << " dB -> " << end << " dB after 300 steps");
  CHECK(end > 35.0);
  CHECK(end > start + 20.0);
}

TEST_CASE("config: model.gaussians is read, written only for a gaussians model, and bad values name the field") {
  nlohmann::json j = {{"model", {{"encoding", {{"otype", "Gaussians"}}}, {"hidden", nlohmann::json::array()},
                                 {"output_activation", "Identity"}, {"gaussians", 70000}}}};
  const RunConfig c = parse_run_config(j, "g.json");
  CHECK(c.model.encoding.kind == EncodingKind::Gaussians);
  CHECK(c.model.encoding.gaussians == 70000);
  CHECK(parameter_count(c.model) == 70000 * k_gaussian_floats + 12);
  CHECK(to_json(c)["model"]["gaussians"] == 70000);
  CHECK_FALSE(to_json(load_preset("siren"))["model"].contains("gaussians"));
  for (const nlohmann::json& bad : {nlohmann::json(0), nlohmann::json(4000001), nlohmann::json(2.5), nlohmann::json("many")}) {
    CAPTURE(bad.dump());
    nlohmann::json b = j;
    b["model"]["gaussians"] = bad;
    std::string what;
    try {
      (void)parse_run_config(b, "g.json");
    } catch (const ConfigError& e) {
      what = e.what();
    }
    CHECK(what.find("g.json: model.gaussians") != std::string::npos);
  }
  nlohmann::json big = j;
  big["model"]["gaussians"] = 0;
  std::string what;
  try {
    (void)parse_run_config(big, "g.json");
  } catch (const ConfigError& e) {
    what = e.what();
  }
  CHECK(what.find("[1, 4000000]") != std::string::npos);
}

TEST_CASE("gaussians model: \"auto\" opens it like any model (its GPU kernels are tested); the fp16 path declines") {
  CHECK(cuda::fused_mlp_unsupported(load_preset("gaussians").model) == "the gaussians encoding");
  // open_run asks its factory for the backend named, "auto" included, whatever the encoding.
  std::vector<std::string> asked;
  const BackendFactory factory = [&asked](const std::string& name, std::string*, const std::string&) {
    asked.push_back(name);
    return std::unique_ptr<Backend>(std::make_unique<CpuBackend>());
  };
  OpenRunOptions opts;
  opts.config = gaussians_config(50, 1);
  opts.config.data.max_side = 16;
  opts.backend = "auto";
  const OpenedRun run = open_run(RunSource{test::sample("horse.png").string(), ""}, factory, opts);
  CHECK(asked == std::vector<std::string>{"auto"});
  CHECK(run.backend_notice.empty());
  opts.backend = "cuda";
  (void)open_run(RunSource{test::sample("horse.png").string(), ""}, factory, opts);
  CHECK(asked.back() == "cuda");
}

TEST_CASE("gaussians model: exported weights hold the Gaussians as a count x 8 tensor; neuron maps decline") {
  RunConfig cfg = gaussians_config(10, 1);
  cfg.model.output_channels = 3;
  std::vector<float> p = initial_parameters(cfg.model, 3);
  const std::vector<uint8_t> bytes = weights_safetensors(WeightsSource{&cfg, p, 8, 8, 0});
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  const nlohmann::json header = nlohmann::json::parse(std::string(bytes.begin() + 8, bytes.begin() + 8 + int64_t(n)));
  REQUIRE(header.contains("encoding.gaussians"));
  CHECK(header["encoding.gaussians"]["shape"] == nlohmann::json({10, 8}));
  const uint64_t at = header["encoding.gaussians"]["data_offsets"][0].get<uint64_t>();
  std::vector<float> first(80);
  std::memcpy(first.data(), bytes.data() + 8 + n + at, 80 * sizeof(float));
  CHECK(std::equal(first.begin(), first.end(), p.begin()));
  CHECK(header["__metadata__"]["gaussians"] == "10");
  CHECK_THROWS_WITH_AS(compute_neuron_maps(cfg.model, p, {}, 0, 8, 8), doctest::Contains("gaussians model"),
                       ConfigError);
}

TEST_CASE("sweep: --set model.gaussians=70000 trains that many Gaussians; a bad count is refused, named") {
  test::TempDir dir;
  Image img;
  img.width = 16, img.height = 12, img.channels = 3;
  img.pixels.assign(size_t(16 * 12 * 3), 0.5f);
  write_png(dir.path / "p.png", img);
  SweepGrid g;
  g.images = {(dir.path / "p.png").string()};
  g.presets = {"gaussians"};
  g.axes = {parse_sweep_axis("model.gaussians=70000,500")};
  const SweepPlan plan = build_sweep_plan(g);
  REQUIRE(plan.cells.size() == 2);
  CHECK(plan.cells[0].config.model.encoding.gaussians == 70000);
  CHECK(plan.cells[1].config.model.encoding.gaussians == 500);
  g.axes = {parse_sweep_axis("model.gaussians=0")};
  std::string what;
  try {
    (void)build_sweep_plan(g);
  } catch (const Error& e) {
    what = e.what();
  }
  CHECK(what.find("model.gaussians") != std::string::npos);
  CHECK(what.find("[1, 4000000]") != std::string::npos);
}

TEST_CASE("gaussians model: sized to a parameter budget by its count, as a benchmark compares methods") {
  ModelSpec m = load_preset("gaussians").model;
  m.output_channels = 3;
  CHECK(size_to_budget(m, 273000, 512, 512) == 273004); // 34,124 Gaussians and the 3 x 3 head's 12
  CHECK(m.encoding.gaussians == 34124);
  m.output_channels = 1;
  CHECK(size_to_budget(m, 133124, 256, 256) == 133124); // the docs' like-for-like with siren
  CHECK(m.encoding.gaussians == 16640);
  CHECK_THROWS_WITH_AS(size_to_budget(m, 3, 64, 64), doctest::Contains("out of reach of a gaussians model"), ConfigError);
}

TEST_CASE("gaussians model: a dense start climbs from its first steps (a step moves a mean cells, not the picture)") {
  // 120,000 Gaussians on a 32 x 27 picture, 140 a pixel: a step of lr picture units moved every
  // mean 1.7 cells, far past its own support, and the picture fell from 5.8 to 2 dB.
  RunConfig cfg = gaussians_config(120000, 2000);
  cfg.data.max_side = 32;
  const Image img = prepare_training_image(default_image_path(), cfg.data);
  Trainer t = test::small_trainer(cfg, img);
  double before = t.measure().psnr_db;
  for (int s = 1; s <= 3; ++s) {
    t.step();
    const double after = t.measure().psnr_db;
    MESSAGE("step " << s << ": " << before << " dB -> " << after << " dB");
    CHECK(after > before + 0.5);
    before = after;
  }
}

TEST_CASE("gaussians model: Adam's first step moves a mean k_gaussian_mean_step_cells * lr cells at any count") {
  // Adam's first update is lr * g / (|g| + epsilon) per float: lr for a size or a colour, and
  // lr * k_gaussian_mean_step_cells * cell for a mean (gaussian_lane_step), in picture units.
  for (const int64_t count : {int64_t(500), int64_t(20000)}) {
    CAPTURE(count);
    RunConfig cfg = gaussians_config(count, 2000);
    cfg.data.max_side = 40;
    const Image img = test::busy_pattern(40, 30, 3);
    Trainer t = test::small_trainer(cfg, img);
    const std::vector<float> p0 = t.parameters();
    const double lr = t.learning_rate_at(0);
    t.step();
    const std::vector<float> p1 = t.parameters();
    const double cell = 2.0 / std::sqrt(double(count));
    double mean_step = 0, other_step = 0;
    for (int64_t i = 0; i < count * k_gaussian_floats; ++i) {
      double& most = i % k_gaussian_floats < 2 ? mean_step : other_step;
      most = std::max(most, std::abs(double(p1[size_t(i)]) - double(p0[size_t(i)])));
    }
    MESSAGE(count << " Gaussians: a mean moved up to " << mean_step / cell << " cells, a size or colour " << other_step);
    CHECK(mean_step == doctest::Approx(lr * k_gaussian_mean_step_cells * cell).epsilon(1e-3));
    CHECK(other_step == doctest::Approx(lr).epsilon(1e-3));
  }
}
