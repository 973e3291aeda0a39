/// The unsaved-run prompt's logic (ui/panels/confirm_prompt.h), without a window: which actions ask,
/// what Save / Discard / Cancel do to the held action, where Save writes, the discarded copies
/// kept, and the window title's mark. The prompt on screen is tested under Xvfb
/// (tests/gui/gui_lose_nothing.cmake).
#include <doctest/doctest.h>

#if REDRAW_TEST_UI
#include "ui/panels/confirm_prompt.h"

#include "test_support.h"

#include <fstream>

using namespace redraw;

namespace {
UiState unsaved_run(const std::string& source) {
  UiState ui;
  ui.run_a().status.has_run = true;
  ui.run_a().status.unsaved = true;
  ui.run_a().status.step = 120;
  ui.run_a().status.source_path = source;
  ui.run_a().status.image_path = source;
  return ui;
}
} // namespace

TEST_CASE("ui confirm: Open, Quit, Reset and Apply & reset ask on an unsaved run; nothing else does") {
  UiState ui = unsaved_run("/pics/horse.png");
  CHECK(needs_confirmation(ui, UiIntent{intent::OpenPath{"/pics/cat.png"}}));
  CHECK(needs_confirmation(ui, UiIntent{intent::Quit{}}));
  CHECK(needs_confirmation(ui, UiIntent{run_command::Reset{}}));
  CHECK(needs_confirmation(ui, UiIntent{intent::ApplyReset{}}));
  CHECK(needs_confirmation(ui, UiIntent{intent::ShowDialog{FileDialogPurpose::Open}}));
  CHECK_FALSE(needs_confirmation(ui, UiIntent{intent::ShowDialog{FileDialogPurpose::SaveModel}}));
  CHECK_FALSE(needs_confirmation(ui, UiIntent{intent::ToggleRun{}}));
  CHECK_FALSE(needs_confirmation(ui, UiIntent{intent::OpenPath{"/pics/cat.png", true}})); // from an answered dialog
  UiIntent answered{intent::Quit{}};
  answered.confirmed = true;
  CHECK_FALSE(needs_confirmation(ui, answered));
  ui.run_a().status.unsaved = false;
  CHECK_FALSE(needs_confirmation(ui, UiIntent{intent::Quit{}}));
}

TEST_CASE("ui confirm: Cancel drops the held action, Discard releases it with a kept copy, Save waits for its save") {
  test::TempDir dir;
  UiState ui = unsaved_run((dir.path / "horse.png").string());
  ui.settings.last_folder = dir.path.string();
  ui.confirm.keep_folder = (dir.path / "autosave").string();
  std::filesystem::create_directories(ui.confirm.keep_folder);

  ask_confirmation(ui, UiIntent{intent::OpenPath{"/pics/cat.png"}});
  CHECK(ui.confirm.holding);
  ask_confirmation(ui, UiIntent{intent::Quit{}}); // one question at a time
  CHECK(ui.confirm.pending.is<intent::OpenPath>());
  confirm_cancel(ui);
  CHECK_FALSE(ui.confirm.holding);
  CHECK(ui.intents.empty());

  ask_confirmation(ui, UiIntent{intent::OpenPath{"/pics/cat.png"}});
  confirm_discard(ui);
  REQUIRE(ui.intents.size() == 2);
  REQUIRE(ui.intents[0].is<run_command::KeepCopy>());
  CHECK(ui.intents[0].get<run_command::KeepCopy>()->path.find("/autosave/discarded-") != std::string::npos);
  CHECK(ui.intents[1].is<intent::OpenPath>());
  CHECK(ui.intents[1].confirmed);
  CHECK_FALSE(ui.confirm.holding);
  ui.intents.clear();

  ask_confirmation(ui, UiIntent{intent::Quit{}});
  confirm_save(ui);
  REQUIRE(ui.intents.size() == 1);
  REQUIRE(ui.intents[0].is<intent::SaveModel>());
  CHECK(ui.intents[0].get<intent::SaveModel>()->path == (dir.path / "horse.redraw").string());
  ui.intents.clear();
  confirm_after_saves(ui, {"/elsewhere.redraw"}, {});
  CHECK(ui.intents.empty()); // not its save
  confirm_after_saves(ui, {}, {(dir.path / "horse.redraw").string()});
  CHECK(ui.intents.empty()); // the save failed: the action is given up, the run kept
  CHECK_FALSE(ui.confirm.holding);
  CHECK(ui.messages.back().text.find("not done") != std::string::npos);

  ask_confirmation(ui, UiIntent{intent::Quit{}});
  confirm_save(ui);
  ui.intents.clear();
  confirm_after_saves(ui, {(dir.path / "horse.redraw").string()}, {});
  REQUIRE(ui.intents.size() == 1);
  CHECK(ui.intents[0].is<intent::Quit>());
  CHECK(ui.intents[0].confirmed);
}

TEST_CASE("ui confirm: Save never writes over another file or into the autosave folder") {
  test::TempDir dir;
  UiState ui = unsaved_run((dir.path / "horse.png").string());
  ui.settings.last_folder = dir.path.string();
  ui.confirm.keep_folder = (dir.path / "autosave").string();
  CHECK(save_destination(ui) == (dir.path / "horse.redraw").string());
  std::ofstream(dir.path / "horse.redraw") << "x";
  std::ofstream(dir.path / "horse-2.redraw") << "x";
  CHECK(save_destination(ui) == (dir.path / "horse-3.redraw").string());
  ui.run_a().status.model_path = (dir.path / "mine.redraw").string(); // its own model file: saved in place
  CHECK(save_destination(ui) == ui.run_a().status.model_path);
  std::filesystem::create_directories(ui.confirm.keep_folder);
  ui.run_a().status.model_path = (dir.path / "autosave" / "restored-12.redraw").string();
  CHECK(save_destination(ui) == (dir.path / "horse-3.redraw").string());
}

TEST_CASE("ui confirm: the five newest discarded copies are kept") {
  test::TempDir dir;
  ConfirmState c;
  c.keep_folder = dir.path.string();
  for (int i = 0; i < 7; ++i)
    std::ofstream(dir.path / ("discarded-2026010" + std::to_string(i) + "-000000.redraw")) << "x";
  const std::string next = discard_copy_path(c);
  CHECK(next.find("discarded-") != std::string::npos);
  CHECK(test::files_in(dir.path) == 4); // 4 kept + the new one = 5
  CHECK(std::filesystem::exists(dir.path / "discarded-20260106-000000.redraw"));
  CHECK_FALSE(std::filesystem::exists(dir.path / "discarded-20260102-000000.redraw"));
  c.keep_folder.clear();
  CHECK(discard_copy_path(c).empty()); // autosave off: nothing kept, and the prompt says so
}

TEST_CASE("ui confirm: the window title marks unsaved training") {
  UiState ui = unsaved_run("/pics/horse.png");
  CHECK(window_title(ui) == "*horse.png - Redraw (unsaved)");
  ui.run_a().status.unsaved = false;
  CHECK(window_title(ui) == "horse.png - Redraw");
  ui.run_a().status.model_path = "/models/horse.redraw";
  CHECK(window_title(ui) == "horse.redraw - Redraw");
  const UiState empty; // a named object: GCC 12 warns (falsely) on a temporary UiState here
  CHECK(window_title(empty) == "Redraw");
}
#endif
