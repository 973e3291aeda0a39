/// Compare runs on the GUI side (ui/window/compare_runs.h): where each compared run is saved, the
/// dialog's change parsed from an intent, training sessions sharing one device in turns, and the
/// window's k_max_runs runs opened, trained and shown through one path. Built when the GUI is
/// (REDRAW_TEST_UI).
#include <doctest/doctest.h>

#if REDRAW_TEST_UI
#include "ui/state/settings_flags_check.h"
#include "ui/ui_test_support.h"

#include "ui/window/app_actions.h"
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

TEST_CASE("compare: each compared run is saved beside A as NAME-<letter> with A's extension") {
  CHECK(compared_model_path("/tmp/x/horse.redraw", k_run_a) == "/tmp/x/horse.redraw");
  CHECK(compared_model_path("/tmp/x/horse.redraw", 1) == "/tmp/x/horse-B.redraw");
  CHECK(compared_model_path("horse.redraw", 1) == "horse-B.redraw");
  CHECK(compared_model_path("/tmp/a.b/model", 1) == "/tmp/a.b/model-B.redraw");
  CHECK(compared_model_path("/tmp/x/horse.redraw", 3) == "/tmp/x/horse-D.redraw");
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

TEST_CASE("compare: the runs shown are run A and the compared runs in place order, and a run's frame is read by its place") {
  static_assert(k_max_runs >= 4, "the test opens runs at places 1 and 3");
  UiState ui;
  const std::vector<ShownRun> lone = shown_runs(ui);
  REQUIRE(lone.size() == 1);
  CHECK(lone[0].view == &ui.run_a());
  CHECK(lone[0].label == nullptr);
  ui.compare.open = true;
  ui.run_a().label = "A: siren";
  ui.runs[1].compared = true;
  ui.runs[1].label = "B: fourier";
  ui.runs[3].compared = true; // a place left free between them (C was closed) is skipped
  ui.runs[3].label = "D: gaussians";
  const std::vector<ShownRun> shown = shown_runs(ui);
  REQUIRE(shown.size() == 3);
  const size_t places[] = {k_run_a, 1, 3};
  const char* letters[] = {"A", "B", "D"};
  for (size_t i = 0; i < shown.size(); ++i) {
    CHECK(shown[i].view == &ui.runs[places[i]]);
    CHECK(shown[i].index == places[i]);
    CHECK(std::string(shown[i].letter) == letters[i]);
    CHECK(std::string(shown[i].label) == ui.runs[places[i]].label);
  }
  CHECK_FALSE(split_shown(ui)); // three runs: side by side whatever the setting
  ui.compare.split = true;
  CHECK_FALSE(split_shown(ui));
  ui.runs[3].forget();
  CHECK(split_shown(ui));
  CHECK_FALSE(ui.runs[3].compared); // forget() leaves nothing of the run but its textures

  SizedTexture frame_a, frame_b;
  ui.runs[k_run_a].tex.frame = &frame_a;
  ui.runs[1].tex.frame = &frame_b;
  const auto picture = std::make_shared<const Image>();
  ui.runs[1].linked.image = picture; // B's linked frame arrived...
  ui.runs[1].linked.step = 40;
  CHECK(run_frame(ui, 1).image == nullptr); // ...but its texture holds nothing yet
  frame_b.upload_host(nullptr, 4, 4);
  CHECK(run_frame(ui, 1).image == picture.get());
  CHECK(run_frame(ui, 1).step == 40);
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

namespace {
/// The frame loop's path for the runs' news (gui_app.cpp's take_news), the same for every open run.
void take_all_news(UiState& ui, CompareSessions& cs) {
  for (size_t i = 0; i < cs.slots.size(); ++i) {
    if (!cs.slots[i]) continue;
    SessionSnapshot& take = cs.slots[i]->take_news();
    cs.slots[i]->report_messages(ui, take);
    take_compare_news(ui, cs, i, take);
    absorb_run(ui, i, take);
  }
  finish_compare_export(ui, cs);
}

/// Takes the runs' news until `done` holds; false after 120 s (a broken run, not a slow machine).
template <class F> bool news_until(UiState& ui, CompareSessions& cs, F done) {
  for (const auto t0 = std::chrono::steady_clock::now(); std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120);) {
    take_all_news(ui, cs);
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

bool logged(const UiState& ui, const std::string& text) {
  for (const UiMessage& m : ui.message_log)
    if (m.text.find(text) != std::string::npos) return true;
  return false;
}
} // namespace

TEST_CASE("compare: k_max_runs runs open side by side, each trains and shows its picture, follows A and closes") {
  RunSlots slots;
  CompareSessions cs(slots);
  cs.make_backend = backend_factory();
  slots[k_run_a] = std::make_unique<RunSlot>(std::make_unique<TrainingSession>(cs.make_backend, nullptr, cs.turns), "");
  UiState ui;
  RunConfig cfg = load_run_config(std::filesystem::path(REDRAW_TEST_ASSET_DIR) / "../tests/gui/gui_tiny.json");
  cfg.data.max_side = 32;
  cfg.training.steps = 100000;
  LoadRequest req;
  req.image = ui.last_image = default_image_path().string();
  req.config = cfg;
  req.backend = "cpu";
  slots[k_run_a]->post(run_command::SetPreviewEvery{5});
  slots[k_run_a]->post(run_command::Load{req});
  REQUIRE(news_until(ui, cs, [&] { return ui.run_a().status.has_run && !ui.run_a().status.busy; }));

  // Every other place gets a run, each A's config with one change, through the dialog's intent.
  const intent::OpenCompare changes[] = {{CompareChangeKind::Activation, "Tanh"},
                                         {CompareChangeKind::LrMax, "0.02"},
                                         {CompareChangeKind::Activation, "Sine"}};
  for (size_t i = 1; i < k_max_runs; ++i)
    CHECK(apply_compare_intent(ui, cs, UiIntent{Intent(changes[(i - 1) % std::size(changes)])}));
  REQUIRE(ui.compare.open);
  const std::vector<ShownRun> shown = shown_runs(ui);
  REQUIRE(shown.size() == k_max_runs);
  for (size_t i = 0; i < k_max_runs; ++i) {
    REQUIRE(slots[i]);
    CHECK(shown[i].index == i);
    CHECK(std::string(shown[i].label).rfind(std::string(run_letter(i)) + ": ", 0) == 0);
  }
  // One more is refused, saying why; the runs open stay as they are.
  CHECK(apply_compare_intent(ui, cs, UiIntent{Intent(changes[0])}));
  CHECK(logged(ui, std::to_string(k_max_runs) + " runs are shown side by side at most"));
  CHECK(shown_runs(ui).size() == k_max_runs);

  // Train: A is told through its own intent, every other run follows it the same way.
  const UiIntent toggle{Intent(intent::ToggleRun{})};
  CHECK_FALSE(apply_compare_intent(ui, cs, toggle));
  CHECK(apply_intent(ui, slots[k_run_a]->session(), toggle));
  const auto all = [&](auto pred) {
    for (size_t i = 0; i < k_max_runs; ++i)
      if (!pred(ui.runs[i])) return false;
    return true;
  };
  // Each run trains and shows its own picture: its steps, rows and preview reach its own view.
  const bool trained = news_until(ui, cs, [&] {
    return all([](const RunView& r) { return r.status.step >= 30 && !r.history.empty() && r.reconstruction; });
  });
  for (size_t i = 0; i < k_max_runs; ++i) {
    CAPTURE(i);
    CHECK(ui.runs[i].status.step >= 30);
    CHECK(ui.runs[i].reconstruction != nullptr);
  }
  REQUIRE(trained);
  CHECK(ui.runs[1].status.config.model.hidden_activations.front() == Activation::Tanh); // each its own config
  CHECK(ui.runs[2].status.config.schedule.lr_max == doctest::Approx(0.02));
  // Pause follows A too.
  CHECK_FALSE(apply_compare_intent(ui, cs, toggle));
  CHECK(apply_intent(ui, slots[k_run_a]->session(), toggle));
  CHECK(news_until(ui, cs, [&] { return all([](const RunView& r) { return !r.status.running; }); }));

  close_compare(ui, cs);
  CHECK_FALSE(ui.compare.open);
  CHECK(shown_runs(ui).size() == 1);
  for (size_t i = 1; i < k_max_runs; ++i) {
    CHECK_FALSE(slots[i]);
    CHECK_FALSE(ui.runs[i].compared);
  }
}
#endif
