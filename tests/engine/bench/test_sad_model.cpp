// A sad model (engine/sad_family.cpp) through the whole CPU backend: its initial sites, a saved,
// loaded and rendered model, a short fit, model.sites in configs, the weights export and the
// family's refusals (the fused GPU path; neuron maps).
#include "primitive_fixtures.h"
#include "test_support.h"

#include "cpu/cpu_backend.h"
#include "cpu/cpu_sad.h"
#include "cuda/fused_mlp_rules.h"
#include "engine/bench/param_budget.h"
#include "engine/errors.h"
#include "engine/frames/renderer.h"
#include "engine/images/image.h"
#include "engine/insight/neuron_maps.h"
#include "engine/model_files/checkpoint.h"
#include "engine/model_files/weights_export.h"
#include "engine/model_spec.h"
#include "engine/run_config.h"
#include "engine/training/open_run.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <set>
#include <vector>

using namespace redraw;

namespace {

RunConfig sad_config(int64_t sites, int64_t steps) {
  return test::short_primitive_run("sad", &EncodingSpec::sites, sites, steps);
}

} // namespace

TEST_CASE("sad model: the seed alone sets the sites, one per cell of a grid over the picture; the head is the identity") {
  ModelSpec m = load_preset("sad").model;
  m.encoding.sites = 1000;
  m.output_channels = 3;
  const std::vector<float> a = initial_parameters(m, 7), b = initial_parameters(m, 7), c = initial_parameters(m, 8);
  CHECK(a == b);
  CHECK(a != c);
  REQUIRE(int64_t(a.size()) == 1000 * k_sad_floats + 12);
  const DenseLayer head = dense_layers(m)[0];
  for (int32_t o = 0; o < 3; ++o) {
    CHECK(a[size_t(head.bias_offset + o)] == 0.0f);
    for (int32_t k = 0; k < 3; ++k) CHECK(a[size_t(head.weight_offset + o * 3 + k)] == (o == k ? 1.0f : 0.0f));
  }
  // 1000 sites on a 32 x 32 grid of cells: each in the picture, no two in one cell.
  std::set<int64_t> cells;
  for (int64_t i = 0; i < 1000; ++i) {
    const float x = a[size_t(i * k_sad_floats + k_sad_mx)], y = a[size_t(i * k_sad_floats + k_sad_my)];
    REQUIRE((x > -1.0f && x < 1.0f && y > -1.0f && y < 1.0f));
    cells.insert(int64_t((y + 1) * 16) * 32 + int64_t((x + 1) * 16));
  }
  CHECK(cells.size() == 1000);
  // The first picture: a noisy mid grey.
  const SadParams p = sad_params(1000);
  SadLists lists;
  sad_build_lists(p, a.data(), lists);
  const int64_t n = 2000;
  const std::vector<float> coords = test::uniform_values(size_t(2 * n), 3, 26, -0.95f, 0.95f);
  std::vector<float> out(size_t(n * 3));
  sad_encode_rows(p, a.data(), lists, coords.data(), n, out.data());
  double sum = 0;
  for (float v : out) sum += v;
  CHECK(sum / double(out.size()) == doctest::Approx(0.5).epsilon(0.05));
}

TEST_CASE("sad model: saved, loaded and rendered, the same bits") {
  test::TempDir dir;
  const test::SavedRun run = test::train_save_and_load(sad_config(300, 3), dir.path / "s.redraw");
  const Checkpoint &c = run.trained, &back = run.loaded;
  CHECK(back.config.model.encoding.kind == EncodingKind::Sad);
  CHECK(back.config.model.encoding.sites == 300);
  REQUIRE(back.params == c.params);
  const Image a = test::check_same_render(c, back);
  // The render is the sites': a picture, not a constant.
  double lo = 1e9, hi = -1e9;
  for (float v : a.pixels) lo = std::min(lo, double(v)), hi = std::max(hi, double(v));
  CHECK(hi - lo > 0.05);
  Checkpoint other = back;
  other.config.model.encoding.sites = 299; // another count reads other parameters and is refused
  CpuBackend cpu;
  CHECK_THROWS(render_image(cpu, NetworkView{&other.config.model, back.params, {}}, 40, 28));
}

TEST_CASE("sad model: a few hundred steps fit a synthetic picture far above its start") {
  RunConfig cfg = sad_config(1500, 300);
  const Image img = test::busy_pattern(64, 64, 3);
  Trainer t = test::small_trainer(cfg, img);
  const double start = t.measure().psnr_db;
  t.run(300);
  const double end = t.measure().psnr_db;
  MESSAGE("1500 sites on a 64x64 pattern: PSNR " << start << " dB -> " << end << " dB after 300 steps");
  CHECK(end > 30.0);
  CHECK(end > start + 15.0);
}

TEST_CASE("config: model.sites is read, written only for a sad model, and bad values name the field") {
  nlohmann::json j = {{"model", {{"encoding", {{"otype", "Sad"}}}, {"hidden", nlohmann::json::array()},
                                 {"output_activation", "Identity"}, {"sites", 50000}}}};
  const RunConfig c = parse_run_config(j, "s.json");
  CHECK(c.model.encoding.kind == EncodingKind::Sad);
  CHECK(c.model.encoding.sites == 50000);
  CHECK(parameter_count(c.model) == 50000 * k_sad_floats + 12);
  CHECK(to_json(c)["model"]["sites"] == 50000);
  CHECK_FALSE(to_json(load_preset("gaussians"))["model"].contains("sites"));
  for (const nlohmann::json& bad : {nlohmann::json(0), nlohmann::json(1000001), nlohmann::json(2.5), nlohmann::json("many")}) {
    CAPTURE(bad.dump());
    nlohmann::json b = j;
    b["model"]["sites"] = bad;
    std::string what;
    try {
      (void)parse_run_config(b, "s.json");
    } catch (const ConfigError& e) {
      what = e.what();
    }
    CHECK(what.find("s.json: model.sites") != std::string::npos);
  }
}

TEST_CASE("sad model: exported weights hold the sites as a count x 10 tensor; sized to a budget; refusals named") {
  RunConfig cfg = sad_config(10, 1);
  cfg.model.output_channels = 3;
  const std::vector<float> p = initial_parameters(cfg.model, 3);
  const std::vector<uint8_t> bytes = weights_safetensors(WeightsSource{&cfg, p, 8, 8, 0});
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  const nlohmann::json header = nlohmann::json::parse(std::string(bytes.begin() + 8, bytes.begin() + 8 + int64_t(n)));
  REQUIRE(header.contains("encoding.sites"));
  CHECK(header["encoding.sites"]["shape"] == nlohmann::json({10, k_sad_floats}));
  const uint64_t at = header["encoding.sites"]["data_offsets"][0].get<uint64_t>();
  std::vector<float> first(size_t(10 * k_sad_floats));
  std::memcpy(first.data(), bytes.data() + 8 + n + at, first.size() * sizeof(float));
  CHECK(std::equal(first.begin(), first.end(), p.begin()));
  CHECK(header["__metadata__"]["sites"] == "10");
  CHECK_THROWS_WITH_AS(compute_neuron_maps(cfg.model, p, {}, 0, 8, 8), doctest::Contains("sad model"), ConfigError);
  CHECK(cuda::fused_mlp_unsupported(cfg.model) == "the sad encoding");
  // A budget: the count whose parameters are nearest, the head's 12 included.
  ModelSpec m = cfg.model;
  CHECK(size_to_budget(m, 240012, 256, 256) == 240012);
  CHECK(m.encoding.sites == 24000);
}

TEST_CASE("sad model: the CPU backend's loss gradient, head included, matches central differences") {
  // K sites: every point blends them all, whatever its lists, so the reference is the softmax over
  // all of them, written here in float64 from the rule (engine/sad_math.h's header).
  ModelSpec m = load_preset("sad").model;
  m.encoding.sites = k_sad_k;
  for (const int32_t channels : {1, 3}) {
    CAPTURE(channels);
    m.output_channels = channels;
    std::vector<float> p = initial_parameters(m, 11);
    for (int64_t i = 0; i < k_sad_k * k_sad_floats; ++i) // every field off its starting value
      p[size_t(i)] += float(0.4 * (random_unit(12, 51, uint64_t(i)) - 0.5));
    const int64_t n = 200;
    const std::vector<float> coords = test::uniform_values(size_t(2 * n), 13, 52, -1.0f, 1.0f);
    const std::vector<float> targets = test::uniform_values(size_t(n * channels), 14, 53, 0.0f, 1.0f);
    CpuBackend cpu;
    std::vector<float> grads(p.size());
    cpu.loss_and_gradients(m, LossParams{}, p, {}, coords.data(), targets.data(), n, grads);
    const DenseLayer head = dense_layers(m)[0];
    const double cell = double(sad_params(k_sad_k).cell);
    auto loss = [&](const std::vector<double>& q) {
      double total = 0;
      for (int64_t j = 0; j < n; ++j) {
        const double x = coords[size_t(2 * j)], y = coords[size_t(2 * j + 1)];
        double e[k_sad_k], lo = 1e300, enc[3] = {0, 0, 0}, sum = 0;
        for (int i = 0; i < k_sad_k; ++i) {
          const double* s = q.data() + i * k_sad_floats;
          const double f = k_sad_diag_floor;
          const double a = cell * std::sqrt(s[2] * s[2] + f * f), b = cell * s[3], c = cell * std::sqrt(s[4] * s[4] + f * f);
          const double z1 = (x - s[0]) / a, z2 = (y - s[1] - b * z1) / c;
          e[i] = (z1 * z1 + z2 * z2 - s[5]) / (k_sad_tau_floor + std::exp(s[6]));
          lo = std::min(lo, e[i]);
        }
        for (int i = 0; i < k_sad_k; ++i) {
          const double w = std::exp(lo - e[i]);
          sum += w;
          for (int k = 0; k < 3; ++k) enc[k] += w * q[size_t(i * k_sad_floats + k_sad_colour + k)];
        }
        for (int32_t o = 0; o < channels; ++o) {
          double out = q[size_t(head.bias_offset + o)];
          for (int k = 0; k < 3; ++k) out += q[size_t(head.weight_offset + o * 3 + k)] * enc[k] / sum;
          const double d = out - double(targets[size_t(j * channels + o)]);
          total += d * d;
        }
      }
      return total / double(n * channels);
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
