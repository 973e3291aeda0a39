/// Compare runs on the GUI side (ui/panels/compare_view.h): where run B is saved, the dialog's change
/// parsed from an intent, and two training sessions sharing one device in turns. Built when the
/// GUI is (REDRAW_TEST_UI).
#include <doctest/doctest.h>

#if REDRAW_TEST_UI
#include "ui/state/settings_flags_check.h"
#include "ui/ui_test_support.h"

#include "ui/window/compare_runs.h"
#include "ui/state/settings_store.h"
#include "ui/state/shown_runs.h"
#include "ui/session/training_session.h"

#include "app/backend_registry.h"
#include "engine/errors.h"

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
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

namespace {
/// A texture that only has a size (what shown_runs and run_frame look at); it draws nothing.
struct SizedTexture final : PreviewTexture {
  int32_t w = 0, h = 0;
  void upload_host(const uint8_t*, int32_t nw, int32_t nh) override { w = nw, h = nh; }
  void* imgui_id() const override { return nullptr; }
  int32_t width() const override { return w; }
  int32_t height() const override { return h; }
  const char* kind() const override { return "host"; }
  double last_upload_ms() const override { return 0; }
};
} // namespace

TEST_CASE("compare: the runs shown are UiState::runs in order, and a run's timelapse frame is read by its place") {
  UiState ui;
  const std::vector<ShownRun> lone = shown_runs(ui);
  REQUIRE(lone.size() == 1);
  CHECK(lone[0].view == &ui.run_a());
  CHECK(lone[0].label == nullptr);
  ui.compare.open = true;
  ui.compare.label_a = "A: siren";
  ui.compare.label_b = "B: fourier";
  const std::vector<ShownRun> both = shown_runs(ui);
  REQUIRE(both.size() == k_max_runs);
  for (size_t i = 0; i < both.size(); ++i) {
    CHECK(both[i].view == &ui.runs[i]);
    CHECK(both[i].index == i);
  }
  CHECK(std::string(both[k_run_b].label) == "B: fourier");
  CHECK(std::string(both[k_run_b].letter) == "B");

  SizedTexture frame_a, frame_b;
  ui.runs[k_run_a].tex.frame = &frame_a;
  ui.runs[k_run_b].tex.frame = &frame_b;
  const auto picture = std::make_shared<const Image>();
  ui.compare.frame = picture; // B's linked frame arrived...
  ui.compare.frame_step = 40;
  CHECK(run_frame(ui, k_run_b).image == nullptr); // ...but its texture holds nothing yet
  frame_b.upload_host(nullptr, 4, 4);
  CHECK(run_frame(ui, k_run_b).image == picture.get());
  CHECK(run_frame(ui, k_run_b).step == 40);
  frame_a.upload_host(nullptr, 4, 4);
  ui.timelapse.frame = picture;
  ui.timelapse.shown_step = 50;
  CHECK(run_frame(ui, k_run_a).step == -1); // A's timelapse is live
  ui.timelapse.active = true;
  CHECK(run_frame(ui, k_run_a).step == 50);
}

TEST_CASE("compare: a run's start shows in its status while it waits for the other run's turn") {
  // Space toggles from the status the GUI holds: before the fix, a run told to train published
  // nothing until it had its turn on the device, so a second Space read "paused" and trained it on.
  auto turns = std::make_shared<SliceTurns>();
  TrainingSession a(backend_factory(), nullptr, turns);
  RunConfig cfg = load_run_config(std::filesystem::path(REDRAW_TEST_ASSET_DIR) / "../tests/gui/gui_tiny.json");
  cfg.data.max_side = 32;
  LoadRequest req;
  req.image = default_image_path().string();
  req.config = cfg;
  req.backend = "cpu";
  a.post(run_command::Load{req});
  // The status comes after the commands a flush waits for: poll for it (the deadline only ends a
  // broken run).
  SessionStatus st;
  for (const auto t0 = std::chrono::steady_clock::now();
       !st.has_run && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60);)
    if (!(st = a.take().status).has_run) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  REQUIRE(st.has_run);
  REQUIRE_FALSE(st.running);
  turns->begin_slice(); // the other run holds the device
  a.post(run_command::SetRunning{true});
  // Bounded by the wait for the session to reach the device, not by a clock: it shows "running" no
  // later than when it stands blocked for its turn (the fail-safe deadline only ends a broken run).
  const auto start = std::chrono::steady_clock::now();
  while (turns->waiting() == 0 && std::chrono::steady_clock::now() - start < std::chrono::seconds(60))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  CHECK(turns->waiting() == 1);
  st = a.take().status;
  CHECK(st.running);
  CHECK(st.step == 0); // not one step yet: the status came from the command, not from a slice
  turns->end_slice();
  a.post(run_command::SetRunning{false});
  REQUIRE(a.flush(60.0));
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
