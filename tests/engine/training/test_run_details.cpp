// Details of a run's numbers that a user sees: the untrained frame's loss, the last row after a
// stop between metrics steps, what the first step's time holds, and the preset a model names.
#include "test_support.h"

#include "cpu/cpu_backend.h"
#include "engine/errors.h"
#include "engine/training/preset_match.h"
#include "engine/training/trainer.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>

using namespace redraw;

namespace {

/// The loss of `params` over the whole image, in float64 from the backend's predictions.
double loss_of(Trainer& t, const std::vector<float>& params) {
  const Dataset& d = t.dataset();
  std::vector<float> coords(size_t(2 * d.size())), pred(size_t(d.size() * d.channels()));
  for (int64_t i = 0; i < d.size(); ++i)
    d.coordinate(i, coords[size_t(2 * i)], coords[size_t(2 * i + 1)]);
  t.backend().predict(t.config().model, params, t.fourier_b(), coords.data(), d.size(), pred.data());
  double sum = 0;
  for (size_t e = 0; e < pred.size(); ++e)
    sum += loss_value<double>(t.config().loss, pred[e], d.targets()[e]);
  return sum / double(pred.size());
}

/// The CPU backend whose measurements (dataset_mse, predict) are slow: each moves the injected
/// clock `now` on by `pause`, so what is on the training clock shows whatever the machine's load.
class SlowMeasureBackend final : public test::CpuWrapperBackend {
public:
  SlowMeasureBackend(std::chrono::milliseconds pause, TrainingClock::TimePoint& now) : m_pause(pause), m_now(now) {}
  std::string device_description() const override { return "cpu, slow measurements (test)"; }

protected:
  double dataset_mse_impl() override {
    m_now += m_pause;
    return m_cpu.dataset_mse();
  }
  void predict_impl(const ModelSpec& model, std::span<const float> params, std::span<const float> fourier_b,
                    const float* coords, int64_t n, float* out) override {
    m_now += m_pause;
    m_cpu.predict(model, params, fourier_b, coords, n, out);
  }

private:
  std::chrono::milliseconds m_pause;
  TrainingClock::TimePoint& m_now;
};

} // namespace

TEST_CASE("the untrained frame carries the untrained network's loss, not nan") {
  for (LossKind loss : {LossKind::MSE, LossKind::L1}) {
    RunConfig cfg = test::small_config(OptimizerKind::Adam, 0);
    cfg.loss.kind = loss;
    Trainer t = test::small_trainer(cfg, test::gradient_image(12, 9, 1));
    const std::vector<float> initial = t.parameters();
    t.run(3);
    REQUIRE(t.frames().store().size() >= 1);
    const Snapshot& first = t.frames().frame(0);
    CHECK(first.metrics.step == 0);
    REQUIRE(std::isfinite(first.metrics.loss));
    CHECK(first.params == initial);
    CHECK(first.metrics.loss == doctest::Approx(loss_of(t, initial)).epsilon(1e-5));
    if (loss == LossKind::MSE) // a sigmoid output never needs clamping: the loss is the PSNR's MSE
      CHECK(first.metrics.psnr_db == doctest::Approx(-10.0 * std::log10(first.metrics.loss)).epsilon(1e-4));
    // The first history row is step 1's, whose loss is the full batch's at the initial weights.
    REQUIRE(!t.record().rows().empty());
    CHECK(t.record().rows().front().step == 1);
    CHECK(t.record().rows().front().loss == doctest::Approx(first.metrics.loss).epsilon(1e-5));
  }
}

TEST_CASE("the last row after a stop between metrics steps has the current loss, not an older step's") {
  RunConfig cfg = test::small_config(OptimizerKind::Adam, 0);
  cfg.training.metrics_every = 5;
  Trainer t = test::small_trainer(cfg, test::gradient_image(12, 9, 1));
  SnapshotPolicy frames;
  frames.enabled = false; // no frame steps: they record their loss too
  t.set_snapshot_policy(frames);
  t.run(8); // rows at 1 and 5; steps 6..8 make no row
  REQUIRE(t.record().rows().back().step == 5);
  const double older = t.record().rows().back().loss;
  const MetricsRow last = t.measure();
  CHECK(last.step == 8);
  CHECK(t.record().rows().back().step == 8);
  CHECK(last.loss != older);
  // Step 8's own loss (the CPU reports every step's): the full-batch loss of the weights it
  // started from, those of the same run stopped after 7 steps.
  Trainer seven = test::small_trainer(cfg, test::gradient_image(12, 9, 1));
  seven.set_snapshot_policy(frames);
  seven.run(7);
  CHECK(last.loss == doctest::Approx(loss_of(seven, seven.parameters())).epsilon(1e-5));
  // Measured again at the same step: the same numbers.
  CHECK(t.measure().loss == last.loss);
}

TEST_CASE("the untrained network's measurements are off the training clock") {
  RunConfig cfg = test::small_config(OptimizerKind::Adam, 0);
  cfg.training.metrics_every = 1000; // only step 1's row
  const auto pause = std::chrono::milliseconds(1500);
  TrainingClock::TimePoint now{};
  Trainer t(std::make_unique<SlowMeasureBackend>(pause, now), cfg, Dataset{test::gradient_image(6, 5, 1)});
  t.set_time_source([&now] { return now; });
  SnapshotPolicy untrained_only; // a frame's picture is rendered on the clock, like a metrics row
  untrained_only.per_octave = 0;
  untrained_only.every = 0;
  t.set_snapshot_policy(untrained_only);
  t.step(); // measures the untrained frame (slow), trains one tiny step, measures step 1's row (slow)
  t.pause_clock();
  const double wall = std::chrono::duration<double>(now - TrainingClock::TimePoint{}).count();
  REQUIRE(wall >= 2 * 1.5);
  // Before: the untrained frame, its PSNR and step 1's row were all on the clock (3 pauses).
  // Now only step 1's row is (a metrics row is measured inside the step, as on every later step).
  CHECK(t.clock().elapsed() < 2 * 1.5);
  CHECK(t.frames().frame(0).metrics.seconds == 0.0);
}

TEST_CASE("preset_label: a preset's name only while the recipe is the preset's") {
  RunConfig siren = load_preset("siren");
  CHECK(preset_label(siren) == "siren");
  siren.data.max_side = 64; // sizes, steps and seeds are not the recipe
  siren.training.steps = 7;
  siren.training.seed = 99;
  siren.data.color_mode = ColorMode::Gray;
  siren.model.output_channels = 1;
  CHECK(preset_label(siren) == "siren");
  RunConfig edited = siren;
  edited.model.hidden = {128, 128};
  edited.model.hidden_activations = {Activation::Sine, Activation::Sine};
  CHECK(preset_label(edited) == "custom (from siren)");
  edited = siren;
  edited.schedule.lr_max = 3e-4;
  CHECK(preset_label(edited) == "custom (from siren)");
  // A hash grid sized to its image (what a run stores) is still its preset; a fixed size is not.
  RunConfig instant = load_preset("instant");
  size_hash_grid_to_image(instant.model.encoding, 400, 328);
  CHECK(instant.model.encoding.finest_resolution == 400);
  CHECK(preset_label(instant) == "instant");
  instant.model.encoding.auto_finest_resolution = false;
  CHECK(preset_label(instant) == "custom (from instant)");
  instant = load_preset("instant");
  size_hash_grid_to_image(instant.model.encoding, 400, 328);
  instant.model.encoding.n_levels = 8;
  CHECK(preset_label(instant) == "custom (from instant)");
  RunConfig own;
  own.name = "my-net";
  CHECK(preset_label(own) == "my-net");
  for (const auto& name : preset_names()) {
    CAPTURE(name);
    CHECK(preset_label(load_preset(name)) == name);
  }
}

TEST_CASE("first_layer_scale: read, written only when set, and the first layer's init follows it") {
  RunConfig c = load_preset("classic");
  REQUIRE(c.model.first_layer_scale > 0);
  const nlohmann::json j = to_json(c);
  CHECK(j["model"]["first_layer_scale"].get<double>() == doctest::Approx(c.model.first_layer_scale));
  CHECK(parse_run_config(j, "round trip").model.first_layer_scale == c.model.first_layer_scale);
  // Unset: not written, so a model without it stays readable by a redraw that predates the key.
  c.model.first_layer_scale = 0;
  CHECK_FALSE(to_json(c)["model"].contains("first_layer_scale"));
  // Out of range names the field.
  nlohmann::json bad = to_json(c);
  bad["model"]["first_layer_scale"] = -1;
  CHECK_THROWS_WITH_AS(parse_run_config(bad, "bad.json"), doctest::Contains("model.first_layer_scale"), ConfigError);
  // Without it, the first layer's biases start at 0 (Xavier); with it, every one is drawn.
  RunConfig a = load_preset("classic-sgd"), b = a;
  b.model.first_layer_scale = 10;
  const auto pa = initial_parameters(a.model, 3), pb = initial_parameters(b.model, 3);
  const DenseLayer first = dense_layers(a.model)[0];
  int zero_a = 0, zero_b = 0;
  for (int64_t i = 0; i < first.out; ++i) {
    zero_a += pa[size_t(first.bias_offset + i)] == 0.0f;
    zero_b += pb[size_t(first.bias_offset + i)] == 0.0f;
  }
  CHECK(zero_a == first.out);
  CHECK(zero_b == 0);
}
