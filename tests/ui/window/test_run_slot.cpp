// Runs A and B as two RunSlots (ui/window/run_slot.h): where each saves beside the app's autosave, what
// each session is told of the screen, and the label on each run's messages. Built when the GUI
// is (REDRAW_TEST_UI).
#include <doctest/doctest.h>

#if REDRAW_TEST_UI
#include "ui/window/run_slot.h"

#include "app/backend_registry.h"
#include "engine/images/image.h"
#include "engine/model_files/checkpoint.h"
#include "ui/state/settings_store.h"
#include "test_support.h"

#include <filesystem>

using namespace redraw;

namespace {
RunSlot make_slot(const std::string& label) { return RunSlot(std::make_unique<TrainingSession>(backend_factory()), label); }
} // namespace

TEST_CASE("run slot: run A saves at the path given, run B beside it as NAME-B") {
  CHECK(slot_model_path("/tmp/x/autosave.redraw", "") == "/tmp/x/autosave.redraw");
  CHECK(slot_model_path("/tmp/x/autosave.redraw", "B") == "/tmp/x/autosave-B.redraw");
  CHECK(slot_model_path("model", "B") == "model-B.redraw");
  const RunSlot a = make_slot(""), b = make_slot("B");
  CHECK(a.autosave_path("/tmp/s.redraw") == "/tmp/s.redraw");
  CHECK(b.autosave_path("/tmp/s.redraw") == "/tmp/s-B.redraw");
}

TEST_CASE("run slot: the screen's preview wishes are told once, and a jittering gap is not told again") {
  RunSlot a = make_slot("");
  CHECK(a.told().every == -1);
  CHECK(a.told().max_w == -1);
  CHECK(a.told().gap == -1);
  a.tell(PreviewAsk{-1, -1, -1, 0.1}); // only the gap
  CHECK(a.told().every == -1);
  CHECK(a.told().max_w == -1);
  CHECK(a.told().gap == 0.1);
  a.tell(PreviewAsk{10, 512, 768, 0.11}); // the gap moved by 10%: kept
  CHECK(a.told().every == 10);
  CHECK(a.told().max_w == 512);
  CHECK(a.told().max_h == 768);
  CHECK(a.told().gap == 0.1);
  a.tell(PreviewAsk{20, 256, 768, 0.2}); // moved by half: told
  CHECK(a.told().every == 20);
  CHECK(a.told().max_w == 256);
  CHECK(a.told().gap == 0.2);
  CHECK(a.flush(30)); // every command it posted ran on the session's thread
}

TEST_CASE("run slot: run B's messages carry its label, run A's none, and both are taken once") {
  UiState ui;
  SessionSnapshot take;
  take.errors = {"bad"};
  take.notices = {"saved x"};
  make_slot("B").report_messages(ui, take);
  CHECK(take.errors.empty());
  CHECK(take.notices.empty());
  take.notices = {"done"};
  make_slot("").report_messages(ui, take);
  std::vector<std::string> texts;
  for (const auto& m : ui.messages)
    texts.push_back(m.text);
  REQUIRE(texts.size() == 3);
  CHECK(texts[0] == "B: bad");
  CHECK(texts[1] == "B: saved x");
  CHECK(texts[2] == "done");
}

TEST_CASE("run slot: runs A and B each autosave their own run beside the app's autosave") {
  const test::TempDir dir;
  RunConfig config = load_run_config(std::filesystem::path(REDRAW_TEST_ASSET_DIR) / "../tests/gui/gui_tiny.json");
  config.data.max_side = 24;
  config.training.steps = 3;
  RunSlot a = make_slot(""), b = make_slot("B");
  const std::string autosave = (dir.path / "autosave" / "last.redraw").string();
  for (RunSlot* slot : {&a, &b}) {
    LoadRequest req;
    req.image = default_image_path().string();
    req.config = config;
    req.config.training.steps = slot == &a ? 2 : 3; // tells the two files apart
    req.backend = "cpu";
    slot->post(run_command::Load{req});
    slot->post(run_command::StepOnce{});
    slot->post(run_command::Autosave{slot->autosave_path(autosave)});
  }
  REQUIRE(a.flush(60));
  REQUIRE(b.flush(60));
  CHECK(a.session().autosave_error().empty());
  CHECK(b.session().autosave_error().empty());
  REQUIRE(std::filesystem::exists(autosave));
  REQUIRE(std::filesystem::exists(dir.path / "autosave" / "last-B.redraw"));
  CHECK(load_checkpoint(autosave).config.training.steps == 2);
  CHECK(load_checkpoint((dir.path / "autosave" / "last-B.redraw").string()).config.training.steps == 3);
}
#endif
