// The `gaussians` encoding (engine/gaussian_math.h, cpu/cpu_gaussians.cpp): the tiled CPU forward
// pass against an all-pairs float64 sum that inverts Sigma = L L^T explicitly (another route than
// the passes' forward substitution); the gradient of every parameter kind against central
// differences of that sum; the same bits at 1, 2 and 3 threads; a gaussians model through the
// whole CPU backend (its loss gradient, a saved model, a short fit); and model.gaussians in configs.
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
#include <omp.h>

#include <cmath>
#include <cstring>
#include <vector>

using namespace redraw;

namespace {

constexpr uint64_t k_seed = 55;

/// `count` Gaussians drawn to vary every field: means a little past the picture's edge, sizes
/// from the floor to several cells (diagonal values of either sign), shears, colours of either sign.
std::vector<float> random_gaussians(int64_t count, uint64_t seed) {
  std::vector<float> p(size_t(count * k_gaussian_floats));
  auto u = [&](uint64_t i, double lo, double hi) { return float(lo + (hi - lo) * random_unit(seed, 21, i)); };
  for (int64_t i = 0; i < count; ++i) {
    float* g = p.data() + i * k_gaussian_floats;
    const uint64_t c = uint64_t(i) * 16;
    g[k_gauss_mx] = u(c, -1.1, 1.1);
    g[k_gauss_my] = u(c + 1, -1.1, 1.1);
    g[k_gauss_l11] = u(c + 2, -3.0, 3.0);
    g[k_gauss_l21] = u(c + 3, -2.0, 2.0);
    g[k_gauss_l22] = u(c + 4, -3.0, 3.0);
    for (int k = 0; k < k_gaussian_channels; ++k) g[k_gauss_colour + k] = u(c + 5 + uint64_t(k), -1.0, 1.0);
  }
  return p;
}

/// n coordinates over [-1.2, 1.2]^2: samples may fall outside the picture (a render's margin).
std::vector<float> margin_coords(int64_t n, uint64_t seed) {
  return test::uniform_values(size_t(2 * n), seed, 22, -1.2f, 1.2f);
}

/// The float64 all-pairs reference: Sigma = L L^T and its inverse written out, q = d^T Sigma^-1 d,
/// the same cutoff rule; params in double so central differences can move them.
struct Reference {
  double cell;
  std::vector<double> params;
  int64_t count() const { return int64_t(params.size()) / k_gaussian_floats; }

  double weight(int64_t i, double x, double y) const {
    const double* g = params.data() + i * k_gaussian_floats;
    const double f = k_gaussian_diag_floor;
    const double a = cell * std::sqrt(g[2] * g[2] + f * f), b = cell * g[3], c = cell * std::sqrt(g[4] * g[4] + f * f);
    const double sxx = a * a, sxy = a * b, syy = b * b + c * c, det = sxx * syy - sxy * sxy;
    const double dx = x - g[0], dy = y - g[1];
    const double q = (syy * dx * dx - 2 * sxy * dx * dy + sxx * dy * dy) / det;
    return q < k_gaussian_cutoff ? std::exp(-0.5 * q) - std::exp(-0.5 * k_gaussian_cutoff) : 0.0;
  }
  /// The encoding at (x, y), channel k.
  double value(double x, double y, int k) const {
    double s = 0;
    for (int64_t i = 0; i < count(); ++i) s += params[size_t(i * k_gaussian_floats + k_gauss_colour + k)] * weight(i, x, y);
    return s;
  }
  /// sum over samples and channels of r * value: the loss whose dLoss/dEncoding is r.
  double loss(const std::vector<float>& coords, const std::vector<float>& r) const {
    double s = 0;
    for (size_t j = 0; j < coords.size() / 2; ++j)
      for (int k = 0; k < k_gaussian_channels; ++k) s += double(r[j * k_gaussian_channels + size_t(k)]) * value(coords[2 * j], coords[2 * j + 1], k);
    return s;
  }
};

Reference reference_of(const GaussianParams& g, const std::vector<float>& p) {
  return Reference{double(g.cell), std::vector<double>(p.begin(), p.end())};
}

/// A gaussians model of `count` Gaussians and C output channels, as the preset builds it.
RunConfig gaussians_config(int64_t count, int64_t steps) {
  RunConfig cfg = load_preset("gaussians");
  cfg.model.encoding.gaussians = count;
  cfg.training.steps = steps;
  cfg.training.metrics_every = steps;
  return cfg;
}

BackendFactory cpu_factory() {
  return [](const std::string&, std::string*, const std::string&) {
    return std::unique_ptr<Backend>(std::make_unique<CpuBackend>());
  };
}

} // namespace

TEST_CASE("gaussians: the tiled CPU forward pass is the all-pairs float64 sum within 1e-5") {
  for (const int64_t count : {int64_t(1), int64_t(37), int64_t(600)}) {
    CAPTURE(count);
    const GaussianParams g = gaussian_params(count);
    const std::vector<float> p = random_gaussians(count, k_seed + uint64_t(count));
    const int64_t n = 3000;
    const std::vector<float> coords = margin_coords(n, k_seed);
    std::vector<float> out(size_t(n * k_gaussian_channels), NAN);
    gaussian_encode_rows(g, p.data(), coords.data(), n, out.data());
    const Reference ref = reference_of(g, p);
    double worst = 0, largest = 0;
    int64_t covered = 0;
    for (int64_t j = 0; j < n; ++j)
      for (int k = 0; k < k_gaussian_channels; ++k) {
        const double want = ref.value(coords[size_t(2 * j)], coords[size_t(2 * j + 1)], k);
        worst = std::max(worst, std::abs(double(out[size_t(j * k_gaussian_channels + k)]) - want));
        largest = std::max(largest, std::abs(want));
        covered += want != 0.0;
      }
    MESSAGE(count << " Gaussians: worst difference " << worst << " on values up to " << largest);
    CHECK(worst < 1e-5);
    CHECK(covered > n / 10); // the samples see Gaussians: not a comparison of zeros
  }
}

TEST_CASE("gaussians: the gradient of every field matches central differences in float64") {
  const int64_t count = 40, n = 400;
  const GaussianParams g = gaussian_params(count);
  const std::vector<float> p = random_gaussians(count, k_seed + 1);
  const std::vector<float> coords = margin_coords(n, k_seed + 2);
  const std::vector<float> r = test::uniform_values(size_t(n * k_gaussian_channels), k_seed, 23, -1.0f, 1.0f);
  std::vector<float> grads(p.size(), NAN);
  gaussian_backward_rows(g, p.data(), coords.data(), r.data(), n, grads.data(), false);
  Reference ref = reference_of(g, p);
  double worst[k_gaussian_floats] = {}, scale[k_gaussian_floats] = {};
  for (size_t i = 0; i < p.size(); ++i) {
    const double keep = ref.params[i], h = 1e-6;
    ref.params[i] = keep + h;
    const double up = ref.loss(coords, r);
    ref.params[i] = keep - h;
    const double down = ref.loss(coords, r);
    ref.params[i] = keep;
    const double fd = (up - down) / (2 * h);
    const size_t field = i % k_gaussian_floats;
    worst[field] = std::max(worst[field], std::abs(double(grads[i]) - fd));
    scale[field] = std::max(scale[field], std::abs(fd));
  }
  const std::string names[k_gaussian_floats] = {"mx", "my", "l11", "l21", "l22", "colour 0", "colour 1", "colour 2"};
  for (int f = 0; f < k_gaussian_floats; ++f) {
    CAPTURE(names[f]); // a string: doctest prints a char*'s address
    MESSAGE(names[f] << ": worst difference " << worst[f] << " on gradients up to " << scale[f]);
    CHECK(scale[f] > 1e-3); // a field the samples move
    CHECK(worst[f] <= 1e-4 * scale[f] + 1e-6);
  }
}

TEST_CASE("gaussians: forward and backward give the same bits at 1, 2 and 3 threads") {
  const int64_t count = 900, n = 5000;
  const GaussianParams g = gaussian_params(count);
  const std::vector<float> p = random_gaussians(count, k_seed + 3);
  const std::vector<float> coords = margin_coords(n, k_seed + 4);
  const std::vector<float> r = test::uniform_values(size_t(n * k_gaussian_channels), k_seed, 24, -1.0f, 1.0f);
  const int before = omp_get_max_threads();
  std::vector<float> out1, grad1;
  for (int threads : {1, 2, 3}) {
    CAPTURE(threads);
    omp_set_num_threads(threads);
    std::vector<float> out(size_t(n * k_gaussian_channels)), grads(p.size(), 0.25f);
    gaussian_encode_rows(g, p.data(), coords.data(), n, out.data());
    gaussian_backward_rows(g, p.data(), coords.data(), r.data(), n, grads.data(), true);
    if (threads == 1) {
      out1 = out, grad1 = grads;
      continue;
    }
    CHECK(std::memcmp(out.data(), out1.data(), out.size() * sizeof(float)) == 0);
    CHECK(std::memcmp(grads.data(), grad1.data(), grads.size() * sizeof(float)) == 0);
  }
  omp_set_num_threads(before);
  size_t moved = 0;
  for (float v : grad1) moved += v != 0.25f;
  CHECK(moved > grad1.size() / 2); // accumulate added something
}

TEST_CASE("gaussians model: the CPU backend's loss gradient, head included, matches central differences") {
  ModelSpec m;
  m.encoding.kind = EncodingKind::Gaussians;
  m.encoding.gaussians = 25;
  m.output_activation = Activation::Identity;
  for (const int32_t channels : {1, 3}) {
    CAPTURE(channels);
    m.output_channels = channels;
    std::vector<float> p = initial_parameters(m, k_seed);
    const std::vector<float> shaped = random_gaussians(m.encoding.gaussians, k_seed + 5);
    std::copy(shaped.begin(), shaped.end(), p.begin());
    const int64_t n = 300;
    const std::vector<float> coords = margin_coords(n, k_seed + 6);
    const std::vector<float> targets = test::uniform_values(size_t(n * channels), k_seed, 25, 0.0f, 1.0f);
    CpuBackend cpu;
    std::vector<float> grads(p.size());
    const LossParams mse{};
    cpu.loss_and_gradients(m, mse, p, {}, coords.data(), targets.data(), n, grads);
    // The model in float64: the reference encoding, then the head.
    const std::vector<DenseLayer> layers = dense_layers(m);
    REQUIRE(layers.size() == 1);
    auto loss = [&](const std::vector<double>& q) {
      const Reference ref{double(gaussian_params(m.encoding.gaussians).cell),
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
      const double keep = q[i], h = 1e-6;
      q[i] = keep + h;
      const double up = loss(q);
      q[i] = keep - h;
      const double down = loss(q);
      q[i] = keep;
      const double fd = (up - down) / (2 * h);
      worst = std::max(worst, std::abs(double(grads[i]) - fd));
      largest = std::max(largest, std::abs(fd));
    }
    MESSAGE(channels << " channel(s): worst difference " << worst << " on gradients up to " << largest);
    CHECK(largest > 1e-2);
    CHECK(worst < 1e-4 * largest);
  }
}

TEST_CASE("gaussians model: the seed alone sets the Gaussians, which tile the picture, and the head is the identity") {
  ModelSpec m;
  m.encoding.kind = EncodingKind::Gaussians;
  m.encoding.gaussians = 4000;
  m.output_channels = 3;
  m.output_activation = Activation::Identity;
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
  RunConfig cfg = gaussians_config(500, 3);
  cfg.data.max_side = 24;
  RunSource src{test::sample("horse.png").string(), ""};
  OpenRunOptions opts;
  opts.config = cfg;
  OpenedRun run = open_run(src, cpu_factory(), opts);
  run.trainer->run(3);
  const Checkpoint c = run.trainer->checkpoint("horse.png");
  test::TempDir dir;
  save_checkpoint(dir.path / "g.redraw", c);
  const Checkpoint back = load_checkpoint(dir.path / "g.redraw");
  CHECK(back.config.model.encoding.kind == EncodingKind::Gaussians);
  CHECK(back.config.model.encoding.gaussians == 500);
  REQUIRE(back.params == c.params);
  CpuBackend cpu;
  const Image a = render_image(cpu, NetworkView{&c.config.model, c.params, {}}, 40, 28);
  const Image b = render_image(cpu, NetworkView{&back.config.model, back.params, {}}, 40, 28);
  REQUIRE(a.pixels.size() == b.pixels.size());
  CHECK(std::memcmp(a.pixels.data(), b.pixels.data(), a.pixels.size() * sizeof(float)) == 0);
  // The render is the Gaussians': another count reads other parameters and is refused.
  Checkpoint other = back;
  other.config.model.encoding.gaussians = 499;
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
