// Presets and run configs: the shipped presets, and clear errors for every bad key or value.
#include "engine/errors.h"
#include "engine/run_config.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <nlohmann/json.hpp>

using namespace redraw;
using nlohmann::json;

namespace {
void expect_config_error(const json& j, const std::string& needle) {
  CAPTURE(j.dump());
  try {
    parse_run_config(j, "my.json");
    FAIL("no error");
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    CAPTURE(what);
    CHECK(what.rfind("my.json: ", 0) == 0);
    CHECK(what.find(needle) != std::string::npos);
  }
}
} // namespace

TEST_CASE("classic and classic-sgd are the original network, and classic-sgd trains it as the original did") {
  for (const char* name : {"classic", "classic-sgd"}) {
    CAPTURE(std::string(name));
    const RunConfig c = load_preset(name);
    CHECK(c.model.hidden == std::vector<int32_t>{128, 128, 256, 128, 64, 64, 64});
    for (Activation a : c.model.hidden_activations)
      CHECK(a == Activation::Tanh);
    CHECK(c.model.encoding.kind == EncodingKind::Identity);
    CHECK(parameter_count(c.model) == 99457);
    CHECK(c.model.output_activation == Activation::Sigmoid);
    CHECK(c.data.color_mode == ColorMode::Binary);
  }
  // classic: the recipe that learns (Adam, warm-up, minibatches, sharp first-layer edges).
  const RunConfig n = load_preset("classic");
  CHECK(n.optimizer.kind == OptimizerKind::Adam);
  CHECK(n.schedule.warmup_steps > 0);
  CHECK(n.training.batch_size > 0);
  CHECK(n.model.first_layer_scale > 0);
  // The first layer starts with weights and biases in +-first_layer_scale; later layers as Xavier.
  const auto p = initial_parameters(n.model, n.training.seed);
  const auto layers = dense_layers(n.model);
  float w_max = 0, b_max = 0, next_max = 0;
  for (int64_t i = 0; i < 2 * 128; ++i)
    w_max = std::max(w_max, std::abs(p[size_t(layers[0].weight_offset + i)]));
  for (int64_t i = 0; i < 128; ++i)
    b_max = std::max(b_max, std::abs(p[size_t(layers[0].bias_offset + i)]));
  for (int64_t i = 0; i < 128 * 128; ++i)
    next_max = std::max(next_max, std::abs(p[size_t(layers[1].weight_offset + i)]));
  CHECK(w_max <= n.model.first_layer_scale);
  CHECK(w_max > 0.8f * n.model.first_layer_scale);
  CHECK(b_max > 0.8f * n.model.first_layer_scale);
  CHECK(next_max <= float(std::sqrt(6.0 / 256.0)) + 1e-6f);
  // classic-sgd: the original recipe, full-batch SGD.
  const RunConfig c = load_preset("classic-sgd");
  CHECK(c.model.first_layer_scale == 0.0f);
  CHECK(c.optimizer.kind == OptimizerKind::Sgd);
  CHECK(c.schedule.kind == ScheduleKind::Cosine);
  CHECK(c.schedule.lr_max == 0.01);
  CHECK(c.schedule.lr_min == 1e-6);
  CHECK(c.data.color_mode == ColorMode::Binary);
  CHECK(c.training.batch_size == 0);
}

TEST_CASE("siren and fourier presets") {
  const RunConfig s = load_preset("siren");
  CHECK(s.model.hidden == std::vector<int32_t>{256, 256, 256});
  CHECK(s.model.hidden_activations[0] == Activation::Sine);
  CHECK(s.model.omega_0 == 30.0f);
  CHECK(s.model.init == InitKind::Siren);
  CHECK(s.model.output_activation == Activation::Identity);
  CHECK(s.optimizer.kind == OptimizerKind::Adam);
  CHECK(s.schedule.lr_max == doctest::Approx(1e-4));
  const RunConfig f = load_preset("fourier");
  CHECK(f.model.encoding.kind == EncodingKind::Fourier);
  CHECK(f.model.encoding.features == 256);
  CHECK(f.model.encoding.sigma == 10.0f);
  CHECK(f.model.hidden == std::vector<int32_t>{256, 256, 256, 256});
  CHECK(f.schedule.lr_max == doctest::Approx(1e-3));
}

TEST_CASE("config round trip through JSON") {
  for (const auto& name : preset_names()) {
    CAPTURE(name);
    const RunConfig c = load_preset(name);
    CHECK(to_json(parse_run_config(to_json(c), "x")) == to_json(c));
  }
}

TEST_CASE("float fields are written as their shortest decimal and read back bit for bit") {
  RunConfig c = load_preset("siren");
  c.optimizer.adam.beta1 = 0.9f;
  c.loss.bce_epsilon = 1e-6f;
  const std::string text = to_json(c).dump();
  CHECK(text.find("\"beta1\":0.9,") != std::string::npos);
  CHECK(text.find("\"epsilon\":1e-06") != std::string::npos);
  CHECK(text.find("0.8999999") == std::string::npos);
  // Awkward values: thirds, the largest and smallest floats, a denormal.
  for (float v : {1.0f / 3.0f, 0.1f, 3.4028235e38f, 1.17549435e-38f, 1e-45f, 2.5e-7f, 0.999f}) {
    CAPTURE(v);
    c.model.encoding.sigma = std::clamp(v, 1e-6f, 1e4f); // the range sigma accepts
    const float bg = v <= 1.0f ? v : 1.0f / v; // background is a colour in [0, 1]
    c.data.background = {bg, 0.0f, 1.0f};
    c.optimizer.adam.beta2 = bg;
    const RunConfig back = parse_run_config(json::parse(to_json(c).dump()), "back.json");
    CHECK(std::bit_cast<uint32_t>(back.optimizer.adam.beta2) == std::bit_cast<uint32_t>(bg));
    CHECK(std::bit_cast<uint32_t>(back.model.encoding.sigma) == std::bit_cast<uint32_t>(c.model.encoding.sigma));
    CHECK(std::bit_cast<uint32_t>(back.data.background[0]) == std::bit_cast<uint32_t>(bg));
  }
}

TEST_CASE("unknown presets list the known ones") {
  try {
    load_preset("nope");
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("Preset 'nope' not found (known:") != std::string::npos);
    CHECK(std::string(e.what()).find("classic") != std::string::npos);
  }
}

TEST_CASE("bad config keys and values name the field") {
  expect_config_error({{"modle", json::object()}}, "modle: unknown key");
  expect_config_error({{"model", {{"hidden", {64, 0}}}}}, "model.hidden[1]");
  expect_config_error({{"model", {{"activation", "Swish"}}}}, "Activation 'Swish' not found");
  expect_config_error({{"model", {{"encoding", {{"otype", "Fourier"}, {"features", -3}}}}}}, "model.encoding.features");
  expect_config_error({{"optimizer", {{"otype", "Adam"}, {"beta1", "big"}}}}, "optimizer.beta1: must be a number");
  expect_config_error({{"schedule", {{"lr_max", 1e-3}, {"lr_min", 1e-2}}}}, "schedule.lr_min");
  expect_config_error({{"training", {{"batch", "half"}}}}, "training.batch");
  expect_config_error({{"training", {{"steps", 1.5}}}}, "training.steps: must be a whole number");
  expect_config_error({{"data", {{"width", 64}}}}, "data.width");
  expect_config_error(json::array(), "must be a JSON object");
}

TEST_CASE("config files: missing file and invalid JSON") {
  CHECK_THROWS_WITH_AS(load_run_config("/nonexistent/run.json"), doctest::Contains("/nonexistent/run.json"),
                       ConfigError);
}

TEST_CASE("seeds are read as exact 64-bit integers, and out-of-range ones name the field") {
  // Each of these would change (or be refused) on its way through a double.
  for (const char* text : {"18446744073709551615", "9007199254740993", "10000000000000000", "0"}) {
    CAPTURE(text);
    const uint64_t want = std::stoull(text);
    const json j = json::parse(std::string(R"({"training": {"seed": )") + text +
                               R"(}, "model": {"encoding": {"seed": )" + text + "}}}");
    const RunConfig c = parse_run_config(j, "my.json");
    CHECK(c.training.seed == want);
    CHECK(c.model.encoding.seed == want);
    // What to_json writes (and a model file stores) reads back to the same seed.
    const RunConfig back = parse_run_config(json::parse(to_json(c).dump()), "back.json");
    CHECK(back.training.seed == want);
    CHECK(back.model.encoding.seed == want);
  }
  CHECK(parse_run_config(json::parse(R"({"training": {"seed": 12.0}})"), "my.json").training.seed == 12);
  expect_config_error(json::parse(R"({"training": {"seed": -1}})"), "training.seed: -1 is negative");
  expect_config_error(json::parse(R"({"training": {"seed": 18446744073709551616}})"), "training.seed");
  expect_config_error(json::parse(R"({"training": {"seed": 1.5}})"), "training.seed: 1.5");
  expect_config_error(json::parse(R"({"training": {"seed": "7"}})"), "training.seed: must be a whole number");
  expect_config_error(json::parse(R"({"model": {"encoding": {"seed": -3}}})"), "model.encoding.seed");
}
