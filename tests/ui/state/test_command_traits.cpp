/// Run commands' traits (ui/session/run_commands.h), read in one place by the prompt, compare and post,
/// and intents that hold a run command as it is (ui/state/intents.h).
#include <doctest/doctest.h>

#if REDRAW_TEST_UI
#include "ui/state/intents.h"
#include "ui/session/run_commands.h"

using namespace redraw;

TEST_CASE("run command traits: each command's own record, all false where it declares none") {
  CHECK(command_traits(run_command::Reset{}).guarded);
  CHECK(command_traits(run_command::Reset{}).followed);
  CHECK(command_traits(run_command::Load{}).guarded);
  CHECK(command_traits(run_command::StepOnce{}).followed);
  CHECK_FALSE(command_traits(run_command::StepOnce{}).guarded);
  CHECK(command_traits(run_command::SetRunning{}).immediate);
  CHECK(command_traits(run_command::SetPreviewLimit{}).immediate);
  CHECK(command_traits(run_command::RenderZoom{}).immediate);
  CHECK(command_traits(run_command::Branch{}).leaves_timelapse);
  CHECK(command_traits(run_command::SwitchLine{}).leaves_timelapse);
  const CommandTraits none = command_traits(run_command::Save{});
  CHECK_FALSE((none.guarded || none.followed || none.immediate || none.leaves_timelapse));
  CHECK_FALSE(command_traits(run_command::StopAt{}).followed); // run B keeps its own limits
}

TEST_CASE("intents: a run command pushed as an intent is found by its own type") {
  const UiIntent in{run_command::Branch{42}};
  REQUIRE(in.command() != nullptr);
  REQUIRE(in.is<run_command::Branch>());
  CHECK(in.get<run_command::Branch>()->step == 42);
  CHECK_FALSE(in.is<run_command::SwitchLine>());
  CHECK_FALSE(in.is<intent::ToggleRun>());
  const UiIntent app{intent::ToggleRun{}};
  CHECK(app.command() == nullptr);
  CHECK_FALSE(app.is<run_command::Branch>());
  CHECK(app.is<intent::ToggleRun>());
}
#endif
