#pragma once
/// What the GUI asks a TrainingSession to do, as typed commands (docs/contributing.md, 14): one
/// small struct per command in the RunCommand variant, posted with TrainingSession::post and run
/// in order on the session's training thread, each by its own handler in run_commands.cpp.
/// - A command about the run does nothing without one; those that say so report it ("save:
///   nothing to save yet").
/// - A command that fails reports an error message, and the run goes on as it was.
/// - A few take part of their effect at once, on the posting thread (see TrainingSession::post).
/// - Each command carries its traits beside its struct (`traits`, a CommandTraits; none: all
///   false): whether the unsaved-training prompt holds it (confirm_prompt.cpp), whether run B is
///   given it too while comparing (compare_view.cpp), whether part of it takes effect at once
///   (TrainingSession::post). Panels push a command as an intent (ui/state/intents.h) as it is.
/// - Adding a command: its struct here (with its traits), its place in RunCommand, its handler in
///   run_commands.cpp.
#include "engine/frames/renderer.h"
#include "engine/export/timelapse_export.h"
#include "engine/run_config.h"
#include "ui/session/load_request.h"

#include <cstddef>
#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <type_traits>
#include <variant>

namespace redraw {

/// What the GUI side does with a command besides running it; read through command_traits().
struct CommandTraits {
  bool guarded = false;          ///< the Save / Discard / Cancel prompt holds it while the run is unsaved
  bool followed = false;         ///< while comparing, every run beside A is given the same command
  bool immediate = false;        ///< part of it takes effect at once, on the posting thread (RunContext::take_at_once)
  bool leaves_timelapse = false; ///< the canvas follows the run again instead of a scrubbed frame
};

namespace run_command {

// ---- the run ------------------------------------------------------------------------------------
/// Opens an image or a model; the run it replaces goes only once the new one has opened.
struct Load {
  static constexpr CommandTraits traits{.guarded = true};
  LoadRequest request;
};
/// Train or pause. A pause also leaves a step in progress at once (between its chunks).
struct SetRunning {
  static constexpr CommandTraits traits{.followed = true, .immediate = true};
  bool on = false;
};
/// One step while paused.
struct StepOnce {
  static constexpr CommandTraits traits{.followed = true};
};
/// The network re-initialised, the run tree cleared; the config stays.
struct Reset {
  static constexpr CommandTraits traits{.guarded = true, .followed = true};
};
/// A schedule and step count mid-run (Trainer::set_schedule / set_total_steps).
struct SetSchedule {
  ScheduleSpec schedule;
  int64_t total_steps = 0;
};
/// Pause when this step is reached (the screenshot mode); -1 clears.
struct StopAt {
  int64_t step = -1;
};
/// A time budget in training seconds (0: none), as `redraw train --time-limit`: the schedule is
/// annealed to it and training pauses when it is spent. Counts from now for the current run, and
/// from the start of each run opened, reset, branched or switched to afterwards.
struct SetTimeBudget {
  double seconds = 0;
};
/// The timelapse frames' memory cap in bytes; every trainer built afterwards starts with it.
struct SetSnapshotCap {
  size_t bytes = 0;
};
/// "Resume training from here": the line left is kept in the run tree, a new one continues from
/// the frame at or before `step`, and training goes on (unless the run is at its last step).
struct Branch {
  static constexpr CommandTraits traits{.leaves_timelapse = true};
  int64_t step = 0;
};
/// Makes run-tree line `line` (RunLine::id) the current one; the run pauses.
struct SwitchLine {
  static constexpr CommandTraits traits{.leaves_timelapse = true};
  int32_t line = 0;
};

// ---- files ----------------------------------------------------------------------------------------
/// Saves the model; the run counts as saved, and SessionSnapshot::saved_models names the file.
struct Save {
  std::string path;
};
/// Saves the model quietly (an error is said once until a save works again); skipped when the
/// trainer and step are those of the last autosave. TrainingSession::autosave_error tells how it went.
struct Autosave {
  std::string path;
};
/// Writes a copy without marking the run saved (the copy kept when a run is discarded).
struct KeepCopy {
  std::string path;
};
/// The network, or the timelapse frame at `frame_step` (>= 0), as a PNG.
struct ExportImage {
  std::string path;
  int32_t width = 0, height = 0;
  int bit_depth = 8;
  int64_t frame_step = -1;
};
/// The original upscaled bicubically beside the network's redraw (2 width x height).
struct ExportComparison {
  std::string path;
  int32_t width = 0, height = 0;
  int bit_depth = 8;
};
/// Every timelapse frame as GIF, MP4 or PNG frames (by the destination).
struct ExportTimelapse {
  std::string path;
  TimelapseOptions options;
};

// ---- pictures and data for the GUI ----------------------------------------------------------
/// The current network at width x height into SessionSnapshot::picture (the compare export).
struct RenderPicture {
  int32_t width = 0, height = 0;
};
/// `window` of the network (or, with frame_step >= 0, of that timelapse frame's weights) at
/// width x height into SessionSnapshot::zoom with `generation`. A newer request cancels one still
/// rendering; generation 0 only cancels. Failures are silent: the enlarged preview stays.
struct RenderZoom {
  static constexpr CommandTraits traits{.immediate = true};
  RenderWindow window;
  int32_t width = 0, height = 0;
  uint64_t generation = 0;
  int64_t frame_step = -1;
};
struct RequestHostPreview {}; ///< a host copy of the current picture (the error map on the GPU path)
struct RequestNetwork {};     ///< the network's parameters into SessionSnapshot::network

// ---- previews (frame_pacing.h's PreviewPacing) --------------------------------------------------
/// A preview every this many training steps (at least 1).
struct SetPreviewEvery {
  int32_t steps = 10;
};
/// Previews no larger than max_w x max_h (the pane that shows them, in screen pixels); 0: no
/// limit. Takes effect at once, even for a load in progress.
struct SetPreviewLimit {
  static constexpr CommandTraits traits{.immediate = true};
  int32_t max_w = 0, max_h = 0;
};
/// Previews while training at least this many seconds apart (0..10; the GUI's frame interval).
struct SetMinPreviewInterval {
  double seconds = 1.0 / 30.0;
};
/// The share of the training thread's time previews may take (1 or more: no limit from their cost).
struct SetPreviewShare {
  double share = 0.15;
};

// ---- the queue itself ------------------------------------------------------------------------------
/// Done when every command posted before it has run (TrainingSession::flush).
struct Flush {
  std::shared_ptr<std::promise<void>> done;
};

} // namespace run_command

using RunCommand =
    std::variant<run_command::Load, run_command::SetRunning, run_command::StepOnce, run_command::Reset,
                 run_command::SetSchedule, run_command::StopAt, run_command::SetTimeBudget, run_command::SetSnapshotCap,
                 run_command::Branch, run_command::SwitchLine, run_command::Save, run_command::Autosave,
                 run_command::KeepCopy, run_command::ExportImage, run_command::ExportComparison,
                 run_command::ExportTimelapse, run_command::RenderPicture, run_command::RenderZoom,
                 run_command::RequestHostPreview, run_command::RequestNetwork, run_command::SetPreviewEvery,
                 run_command::SetPreviewLimit, run_command::SetMinPreviewInterval, run_command::SetPreviewShare,
                 run_command::Flush>;

/// `C`'s traits (all false when its struct declares none).
template <class C> constexpr CommandTraits traits_of() {
  if constexpr (requires { C::traits; })
    return C::traits;
  else
    return CommandTraits{};
}
/// The traits of the command `command` holds.
inline CommandTraits command_traits(const RunCommand& command) {
  return std::visit([](const auto& c) { return traits_of<std::decay_t<decltype(c)>>(); }, command);
}
/// Whether `C` is one of RunCommand's commands.
template <class C, class V = RunCommand> struct is_run_command;
template <class C, class... T> struct is_run_command<C, std::variant<T...>> {
  static constexpr bool value = (std::is_same_v<C, T> || ...);
};
template <class C> constexpr bool is_run_command_v = is_run_command<C>::value;

} // namespace redraw
