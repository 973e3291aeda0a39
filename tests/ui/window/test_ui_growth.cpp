/// A growing run's growth events on their way to the loss plot's marks and the timelapse's ticks:
/// posted whole through the mailbox when they change, kept by the GUI's copy of the run, and, from
/// a real session, the relocations the config makes (growth_events_until, the engine's closed
/// form), emptied by a reset. Built when the GUI is (REDRAW_TEST_UI).
#include <doctest/doctest.h>

#if REDRAW_TEST_UI
#include "ui/session/training_session.h"
#include "ui/window/app_actions.h"

#include "app/backend_registry.h"
#include "engine/growth.h"
#include "test_support.h"

#include <chrono>
#include <filesystem>
#include <thread>

using namespace redraw;

TEST_CASE("growth events: the whole list through the mailbox, kept by the run until it changes") {
  SessionMailbox box;
  box.growth({{12, 75}});
  box.growth({{12, 75}, {24, 75}}); // a second post before the GUI took the first: the newer list
  SessionSnapshot take = box.take();
  CHECK(take.growth_changed);
  RunView run;
  absorb_run_rows(run, take);
  REQUIRE(run.growth.size() == 2);
  CHECK(run.growth[1] == GrowthEvent{24, 75});

  take = box.take(); // nothing new: the run keeps its events
  CHECK_FALSE(take.growth_changed);
  absorb_run_rows(run, take);
  CHECK(run.growth.size() == 2);

  box.growth({}); // a reset, or a branch before the first event
  take = box.take();
  absorb_run_rows(run, take);
  CHECK(run.growth.empty());
}

namespace {
/// Takes the session's snapshots, keeping the newest status and growth list, until `done` holds
/// (or 60 s pass).
template <class Pred> bool wait_growth(TrainingSession& s, SessionStatus& status, std::vector<GrowthEvent>& growth,
                                       Pred done) {
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(60)) {
    SessionSnapshot t = s.take();
    status = t.status;
    if (t.growth_changed) growth = t.growth;
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}
} // namespace

TEST_CASE("ui session: a growing run's events reach the GUI as its config makes them; a reset clears them") {
  LoadRequest req;
  req.image = default_image_path().string();
  req.config = load_run_config(std::filesystem::path(REDRAW_TEST_ASSET_DIR) / "../tests/gui/gui_growth.json");
  req.config.data.max_side = 32;
  req.config.model.encoding.gaussians = 200;
  req.config.training.steps = 40;
  req.config.training.grow.every = 6; // until half the run: steps 6, 12 and 18
  req.backend = "cpu";
  TrainingSession session(backend_factory());
  SessionStatus st;
  std::vector<GrowthEvent> growth;
  session.post(run_command::Load{req});
  REQUIRE(wait_growth(session, st, growth, [&] { return st.has_run; }));
  CHECK(growth.empty());
  session.post(run_command::SetRunning{true});
  REQUIRE(wait_growth(session, st, growth, [&] { return !st.running && st.step == 40; }));
  const std::vector<GrowthEvent> expected = growth_events_until(st.config, 40);
  REQUIRE(expected.size() == 3);
  CHECK(expected[0] == GrowthEvent{6, 10}); // 5% of 200
  CHECK(growth == expected);

  session.post(run_command::Reset{});
  REQUIRE(wait_growth(session, st, growth, [&] { return st.step == 0 && growth.empty(); }));
}
#endif
