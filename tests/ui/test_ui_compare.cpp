/// Compare runs on the GUI side (ui/compare_view.h): where run B is saved, the dialog's change
/// parsed from an intent, and two training sessions sharing one device in turns. Built when the
/// GUI is (REDRAW_TEST_UI).
#include <doctest/doctest.h>

#if REDRAW_TEST_UI
#include "ui_test_support.h"

#include "ui/compare_view.h"
#include "ui/settings_store.h"
#include "ui/training_session.h"

#include "app/backend_registry.h"
#include "engine/errors.h"

#include <chrono>
#include <filesystem>
#include <thread>

using namespace redraw;

TEST_CASE("compare: run B is saved beside A as NAME-B with A's extension") {
  CHECK(b_model_path("/tmp/x/horse.redraw") == "/tmp/x/horse-B.redraw");
  CHECK(b_model_path("horse.redraw") == "horse-B.redraw");
  CHECK(b_model_path("/tmp/a.b/model") == "/tmp/a.b/model-B.redraw");
}

TEST_CASE("compare: the dialog's intent becomes the change it names, and bad values are refused") {
  intent::OpenCompare in{CompareChangeKind::Preset, "siren"};
  CompareChange c = compare_change_from(in);
  REQUIRE(c.preset.has_value());
  CHECK(c.preset->model.hidden_activations.front() == Activation::Sine);
  CHECK(c.preset_name == "siren");
  in = intent::OpenCompare{CompareChangeKind::Activation, "Tanh"};
  CHECK(compare_change_from(in).activation == Activation::Tanh);
  in = intent::OpenCompare{CompareChangeKind::Omega0, "60"};
  CHECK(compare_change_from(in).omega_0 == 60.0f);
  in = intent::OpenCompare{CompareChangeKind::LrMax, "0.01"};
  CHECK(compare_change_from(in).lr_max == doctest::Approx(0.01));
  in = intent::OpenCompare{CompareChangeKind::LrMax, "fast"};
  CHECK_THROWS_AS(compare_change_from(in), ConfigError);
  in = intent::OpenCompare{CompareChangeKind::Preset, "no-such-preset"};
  CHECK_THROWS_AS(compare_change_from(in), ConfigError);
}

TEST_CASE("compare: the split view and the curves against time are remembered in settings.json") {
  test::check_flags_remembered({&Settings::compare_split, &Settings::compare_same_step, &Settings::plots_seconds});
}

TEST_CASE("compare: two sessions sharing one device both train, and each renders its own picture") {
  auto turns = std::make_shared<SliceTurns>();
  TrainingSession a(backend_factory(), nullptr, turns), b(backend_factory(), nullptr, turns);
  RunConfig ca = load_run_config(std::filesystem::path(REDRAW_TEST_ASSET_DIR) / "../tests/gui/gui_tiny.json");
  ca.data.max_side = 32;
  ca.training.steps = 100000;
  CompareChange change;
  change.kind = CompareChangeKind::Activation;
  change.activation = Activation::Tanh;
  const RunConfig cb = config_with_change(ca, change);
  for (auto* s : {&a, &b}) {
    LoadRequest req;
    req.image = default_image_path().string();
    req.config = s == &a ? ca : cb;
    req.backend = "cpu";
    s->post(run_command::Load{req});
    s->post(run_command::SetRunning{true});
  }
  int64_t step_a = 0, step_b = 0;
  const auto start = std::chrono::steady_clock::now();
  while ((step_a < 200 || step_b < 200) && std::chrono::steady_clock::now() - start < std::chrono::seconds(60)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    step_a = a.take().status.step;
    step_b = b.take().status.step;
  }
  a.post(run_command::SetRunning{false});
  b.post(run_command::SetRunning{false});
  CAPTURE(step_a);
  CAPTURE(step_b);
  CHECK(step_a >= 200);
  CHECK(step_b >= 200);
  a.post(run_command::RenderPicture{20, 10});
  b.post(run_command::RenderPicture{20, 10});
  std::shared_ptr<const Image> pa, pb;
  const auto t0 = std::chrono::steady_clock::now();
  while ((!pa || !pb) && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(30)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (auto t = a.take(); t.picture) pa = t.picture;
    if (auto t = b.take(); t.picture) pb = t.picture;
  }
  REQUIRE(pa);
  REQUIRE(pb);
  CHECK(pa->width == 20);
  CHECK(pa->height == 10);
  CHECK(pb->width == 20);
  double diff = 0;
  for (size_t i = 0; i < pa->pixels.size(); ++i)
    diff += std::abs(pa->pixels[i] - pb->pixels[i]);
  CHECK(diff / double(pa->pixels.size()) > 1e-3); // ReLU and tanh nets draw different pictures
}
#endif
