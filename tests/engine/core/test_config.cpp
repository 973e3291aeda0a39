// Presets and run configs: the shipped presets, and clear errors for every bad key or value.
#include "engine/errors.h"
#include "engine/run_config.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
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

TEST_CASE("finer, gauss and wire presets: the activation papers' shape, init and learning rates") {
  const RunConfig f = load_preset("finer"), g = load_preset("gauss"), w = load_preset("wire");
  for (const RunConfig* c : {&f, &g, &w}) {
    CAPTURE(c->name);
    CHECK(c->model.hidden == std::vector<int32_t>{256, 256, 256});
    CHECK(c->model.output_activation == Activation::Identity);
    CHECK(c->model.encoding.kind == EncodingKind::Identity);
    CHECK(c->optimizer.kind == OptimizerKind::Adam);
    CHECK(c->training.batch_size == 0); // full batch
    CHECK(c->schedule.lr_min == doctest::Approx(c->schedule.lr_max / 10));
  }
  CHECK(f.model.hidden_activations == std::vector<Activation>(3, Activation::Finer));
  CHECK(f.model.init == InitKind::Finer);
  CHECK(f.model.omega_0 == 30.0f);
  CHECK(f.model.first_bias_scale == 1.0f);
  CHECK(f.schedule.lr_max == doctest::Approx(5e-4));
  CHECK(g.model.hidden_activations == std::vector<Activation>(3, Activation::Gauss));
  CHECK(g.model.init == InitKind::Linear);
  CHECK(g.model.gauss_scale == 30.0f);
  CHECK(g.schedule.lr_max == doctest::Approx(5e-3));
  CHECK(w.model.hidden_activations == std::vector<Activation>(3, Activation::Gabor));
  CHECK(w.model.init == InitKind::Linear);
  CHECK(w.model.omega_0 == 20.0f);
  CHECK(w.model.gauss_scale == 10.0f);
  CHECK(w.schedule.lr_max == doctest::Approx(5e-3));
}

TEST_CASE("gauss_scale and first_bias_scale: read, written only off their defaults, and bad values name the field") {
  RunConfig c = load_preset("siren");
  json j = to_json(c);
  CHECK_FALSE(j["model"].contains("gauss_scale")); // older redraws read this file
  CHECK_FALSE(j["model"].contains("first_bias_scale"));
  j["model"]["gauss_scale"] = 12.5;
  j["model"]["first_bias_scale"] = 0;
  j["model"]["activation"] = "gabor"; // names are case-insensitive
  j["model"].erase("activations");
  const RunConfig back = parse_run_config(j, "x");
  CHECK(back.model.gauss_scale == 12.5f);
  CHECK(back.model.first_bias_scale == 0.0f);
  CHECK(back.model.hidden_activations.front() == Activation::Gabor);
  CHECK(to_json(back)["model"]["gauss_scale"] == 12.5);
  CHECK(to_json(back)["model"]["activations"][0] == "Gabor");
  expect_config_error({{"model", {{"gauss_scale", 0}}}}, "model.gauss_scale: 0 is outside");
  expect_config_error({{"model", {{"gauss_scale", "wide"}}}}, "model.gauss_scale: must be a number");
  expect_config_error({{"model", {{"first_bias_scale", -1}}}}, "model.first_bias_scale: -1 is outside");
  expect_config_error({{"model", {{"activation", "Gaussian"}}}}, "Finer, Gauss, Gabor");
  expect_config_error({{"model", {{"init", "WIRE"}}}}, "FINER, Linear");
  // A spec built in code (the GUI's, a sweep's) is checked by validate().
  ModelSpec m = back.model;
  m.gauss_scale = std::nanf("");
  CHECK_THROWS_WITH_AS(validate(m), doctest::Contains("model.gauss_scale"), ConfigError);
  m = back.model;
  m.first_bias_scale = -0.5f;
  CHECK_THROWS_WITH_AS(validate(m), doctest::Contains("model.first_bias_scale"), ConfigError);
}

TEST_CASE("initialisations: FINER's first-layer biases span first_bias_scale, Linear is torch.nn.Linear's") {
  ModelSpec m;
  m.hidden = {256, 256};
  m.hidden_activations.assign(2, Activation::Finer);
  m.output_channels = 3;
  m.init = InitKind::Finer;
  m.first_bias_scale = 4.0f;
  m.omega_0 = 30.0f;
  auto span = [](const std::vector<float>& p, int64_t from, int64_t n) {
    float lo = 0, hi = 0;
    for (int64_t i = from; i < from + n; ++i) lo = std::min(lo, p[size_t(i)]), hi = std::max(hi, p[size_t(i)]);
    return std::pair<float, float>{lo, hi};
  };
  const auto layers = dense_layers(m);
  std::vector<float> p = initial_parameters(m, 5);
  // 256 draws of U(-4, 4): both extremes lie within 0.4 of the bounds but for odds of 2e-6.
  const auto b0 = span(p, layers[0].bias_offset, 256);
  CHECK(b0.first < -3.6f);
  CHECK(b0.first >= -4.0f);
  CHECK(b0.second > 3.6f);
  CHECK(b0.second <= 4.0f);
  const auto w0 = span(p, layers[0].weight_offset, 512); // SIREN's first layer: U(-1/2, 1/2)
  CHECK(w0.second <= 0.5f);
  CHECK(w0.second > 0.45f);
  const auto w1 = span(p, layers[1].weight_offset, 256 * 256); // U(-sqrt(6/256)/30, +)
  CHECK(w1.second <= float(std::sqrt(6.0 / 256) / 30));
  CHECK(w1.second > 0.99f * float(std::sqrt(6.0 / 256) / 30));
  const auto b1 = span(p, layers[1].bias_offset, 256); // torch.nn.Linear's: U(-1/16, 1/16)
  CHECK(b1.second <= 0.0625f);
  CHECK(b1.second > 0.05f);
  m.init = InitKind::Linear;
  p = initial_parameters(m, 5);
  const auto lw0 = span(p, layers[0].weight_offset, 512), lb0 = span(p, layers[0].bias_offset, 256);
  CHECK(lw0.second <= float(1 / std::sqrt(2.0)));
  CHECK(lw0.second > 0.65f);
  CHECK(lb0.second <= float(1 / std::sqrt(2.0)));
  const auto lw1 = span(p, layers[1].weight_offset, 256 * 256);
  CHECK(lw1.second <= 0.0625f);
  CHECK(lw1.second > 0.062f);
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

namespace {
/// The rule as it was first written, in ui/: both configs as JSON, minus the keys a running
/// trainer takes without a rebuild. An independent reference for the typed comparison.
bool json_rule(const RunConfig& a, const RunConfig& b) {
  json x = to_json(a), y = to_json(b);
  for (json* j : {&x, &y}) {
    j->erase("name");
    j->erase("schedule");
    (*j)["training"].erase("steps");
    (*j)["training"].erase("metrics_every");
    (*j)["data"].erase("width");
    (*j)["data"].erase("height");
  }
  return x != y;
}

struct Edit {
  const char* what;
  void (*apply)(RunConfig&);
  bool (*rebuilds)(const RunConfig& base); ///< whether this edit of `base` needs a new trainer
};
bool always(const RunConfig&) { return true; }
bool never(const RunConfig&) { return false; }
bool on_hash_grid(const RunConfig& c) { return c.model.encoding.kind == EncodingKind::HashGrid; }
bool on_gaussians(const RunConfig& c) { return c.model.encoding.kind == EncodingKind::Gaussians; }
/// A network with a hidden layer (the gaussians preset has none: nothing to widen or re-activate).
bool has_hidden(const RunConfig& c) { return !c.model.hidden.empty(); }

const Edit k_edits[] = {
    // What a running trainer takes, or sets itself.
    {"name", [](RunConfig& c) { c.name = "renamed"; }, never},
    {"schedule.kind", [](RunConfig& c) { c.schedule.kind = ScheduleKind::WarmRestarts; }, never},
    {"schedule.lr_max", [](RunConfig& c) { c.schedule.lr_max *= 3; }, never},
    {"schedule.lr_min", [](RunConfig& c) { c.schedule.lr_min = 1e-9; }, never},
    {"schedule.period", [](RunConfig& c) { c.schedule.period = 77; }, never},
    {"schedule.period_mult", [](RunConfig& c) { c.schedule.period_mult = 2.5; }, never},
    {"schedule.warmup_steps", [](RunConfig& c) { c.schedule.warmup_steps = 9; }, never},
    {"training.steps", [](RunConfig& c) { c.training.steps = 12345; }, never},
    {"training.metrics_every", [](RunConfig& c) { c.training.metrics_every = 3; }, never},
    {"data.width", [](RunConfig& c) { c.data.width = 31; }, never},
    {"data.height", [](RunConfig& c) { c.data.height = 17; }, never},
    {"model.output_channels", [](RunConfig& c) { c.model.output_channels = 4 - c.model.output_channels; }, never},
    {"cpu batch below 0", [](RunConfig& c) { c.training.cpu_batch_size = c.training.cpu_batch_size < 0 ? -7 : c.training.cpu_batch_size; }, never},
    // Only meaningful for one encoding.
    {"encoding.n_levels", [](RunConfig& c) { c.model.encoding.n_levels += 1; }, on_hash_grid},
    {"encoding.n_features_per_level", [](RunConfig& c) { c.model.encoding.n_features_per_level = c.model.encoding.n_features_per_level == 4 ? 2 : 4; }, on_hash_grid},
    {"encoding.log2_hashmap_size",
     [](RunConfig& c) {
       c.model.encoding.log2_hashmap_size += 1;
       c.model.encoding.auto_table_size = false; // an auto size is the image's, not an edit
     },
     on_hash_grid},
    {"encoding.base_resolution", [](RunConfig& c) { c.model.encoding.base_resolution += 2; }, on_hash_grid},
    {"encoding.per_level_scale", [](RunConfig& c) { c.model.encoding.per_level_scale += 0.25f; }, on_hash_grid},
    {"encoding.finest_resolution",
     [](RunConfig& c) {
       c.model.encoding.finest_resolution += 64;
       c.model.encoding.auto_finest_resolution = false;
     },
     on_hash_grid},
    {"model.gaussians", [](RunConfig& c) { c.model.encoding.gaussians += 1; }, on_gaussians},
    {"encoding.interpolation", [](RunConfig& c) { c.model.encoding.interpolation = c.model.encoding.interpolation == GridInterpolation::Linear ? GridInterpolation::Smoothstep : GridInterpolation::Linear; }, on_hash_grid},
    // What a trainer is built from.
    {"encoding.kind", [](RunConfig& c) { c.model.encoding.kind = c.model.encoding.kind == EncodingKind::Fourier ? EncodingKind::Positional : EncodingKind::Fourier; }, always},
    {"encoding.levels", [](RunConfig& c) { c.model.encoding.levels += 1; }, always},
    {"encoding.features", [](RunConfig& c) { c.model.encoding.features += 8; }, always},
    {"encoding.sigma", [](RunConfig& c) { c.model.encoding.sigma = std::nextafter(c.model.encoding.sigma, 100.0f); }, always},
    {"encoding.seed", [](RunConfig& c) { c.model.encoding.seed += 1; }, always},
    {"model.hidden width", [](RunConfig& c) { if (has_hidden(c)) c.model.hidden.back() += 1; }, has_hidden},
    {"model.hidden layer", [](RunConfig& c) { c.model.hidden.push_back(8); c.model.hidden_activations.push_back(Activation::Tanh); }, always},
    {"model.activation", [](RunConfig& c) { if (has_hidden(c)) c.model.hidden_activations.front() = c.model.hidden_activations.front() == Activation::Relu ? Activation::Tanh : Activation::Relu; }, has_hidden},
    {"model.output_activation", [](RunConfig& c) { c.model.output_activation = c.model.output_activation == Activation::Sigmoid ? Activation::Identity : Activation::Sigmoid; }, always},
    {"model.init", [](RunConfig& c) { c.model.init = c.model.init == InitKind::He ? InitKind::Xavier : InitKind::He; }, always},
    {"model.omega_0", [](RunConfig& c) { c.model.omega_0 += 1; }, always},
    {"model.first_layer_scale", [](RunConfig& c) { c.model.first_layer_scale += 0.5f; }, always},
    {"model.gauss_scale", [](RunConfig& c) { c.model.gauss_scale += 1; }, always},
    {"model.first_bias_scale", [](RunConfig& c) { c.model.first_bias_scale += 0.5f; }, always},
    {"loss.kind", [](RunConfig& c) { c.loss.kind = c.loss.kind == LossKind::L1 ? LossKind::MSE : LossKind::L1; }, always},
    {"loss.huber_delta", [](RunConfig& c) { c.loss.huber_delta *= 2; }, always},
    {"loss.bce_epsilon", [](RunConfig& c) { c.loss.bce_epsilon *= 2; }, always},
    {"optimizer.kind", [](RunConfig& c) { c.optimizer.kind = c.optimizer.kind == OptimizerKind::Adam ? OptimizerKind::Sgd : OptimizerKind::Adam; }, always},
    {"adam.beta1", [](RunConfig& c) { c.optimizer.adam.beta1 = 0.8f; }, always},
    {"adam.beta2", [](RunConfig& c) { c.optimizer.adam.beta2 = 0.98f; }, always},
    {"adam.epsilon", [](RunConfig& c) { c.optimizer.adam.epsilon *= 10; }, always},
    {"weight_decay", [](RunConfig& c) { c.optimizer.adam.weight_decay = c.optimizer.sgd.weight_decay = 0.125f; }, always},
    {"sgd.momentum", [](RunConfig& c) { c.optimizer.sgd.momentum = 0.5f; }, always},
    {"sgd.nesterov", [](RunConfig& c) { c.optimizer.sgd.nesterov = !c.optimizer.sgd.nesterov; }, always},
    {"training.batch_size", [](RunConfig& c) { c.training.batch_size += 64; }, always},
    {"training.cpu_batch_size", [](RunConfig& c) { c.training.cpu_batch_size = c.training.cpu_batch_size == 128 ? 256 : 128; }, always},
    {"training.seed", [](RunConfig& c) { c.training.seed += 1; }, always},
    {"training.max_recoveries", [](RunConfig& c) { c.training.max_recoveries += 1; }, always},
    {"training.recovery_lr_factor", [](RunConfig& c) { c.training.recovery_lr_factor = 0.25; }, always},
    {"training.good_state_every", [](RunConfig& c) { c.training.good_state_every += 1; }, always},
    {"data.color_mode", [](RunConfig& c) { c.data.color_mode = c.data.color_mode == ColorMode::Rgb ? ColorMode::Gray : ColorMode::Rgb; }, always},
    {"data.threshold", [](RunConfig& c) { c.data.threshold = 0.25f; }, always},
    {"data.max_side", [](RunConfig& c) { c.data.max_side += 1; }, always},
    {"data.background", [](RunConfig& c) { c.data.background[1] = 0.5f; }, always},
};
} // namespace

TEST_CASE("requires_new_trainer: a schedule edit needs no new trainer, a shape edit does") {
  const RunConfig a = load_preset("siren");
  RunConfig b = a;
  b.schedule.lr_max = 0.5;
  b.training.steps = 12345;
  CHECK_FALSE(requires_new_trainer(b, a));
  b.model.hidden.push_back(32);
  b.model.hidden_activations.push_back(Activation::Sine);
  CHECK(requires_new_trainer(b, a));
}

TEST_CASE("requires_new_trainer: every field of every preset, against the JSON rule it replaced") {
  for (const std::string& preset : preset_names()) {
    const RunConfig base = load_preset(preset);
    CHECK_FALSE(requires_new_trainer(base, base));
    for (const Edit& e : k_edits) {
      CAPTURE(preset);
      CAPTURE(e.what);
      RunConfig edited = base;
      e.apply(edited);
      const bool expected = e.rebuilds(base);
      CHECK(requires_new_trainer(base, edited) == expected);
      CHECK(requires_new_trainer(edited, base) == expected);
      CHECK(json_rule(base, edited) == expected);
    }
  }
}
