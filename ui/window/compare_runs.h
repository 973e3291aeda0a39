#pragma once
/// Compare runs, the window's side (the dialog is ui/panels/compare_view.h): each run beside run A
/// is made from A's config with one change (engine/insight/compare_runs.h) and trains from step 0
/// on the same image, up to k_max_runs runs in all.
/// - CompareSessions opens and closes their RunSlots, which the window's RunSlots hold beside A's
///   (ui/window/run_slot.h: the same type), each at its place; all the sessions share one
///   SliceTurns, so on one device they train in turns, each under its place's slot.
/// - apply_compare_intent carries out the compare intents and makes every compared run follow A's
///   Train / Pause / Step / Reset / Save (run B saves beside A's file as NAME-B.redraw, C as
///   NAME-C.redraw, ...).
/// - Each frame, every run's news goes the same way (absorb_run, ui/window/snapshot_absorb.h), and
///   take_compare_news takes what a run holds for the comparison: its linked frame and its picture
///   for a pending export.
/// - Closing the comparison asks which run goes on. Keep A: each other run's unsaved work is kept
///   as a copy (the folder Discard keeps copies in, ConfirmState::keep_folder). Keep another: it is
///   written to compare-<letter>-<time>.redraw there and run A opens it (A's unsaved work meets the
///   usual Save / Discard / Cancel prompt). Nothing trained is lost either way.
/// GUI thread only.
#include "engine/insight/compare_runs.h"
#include "ui/session/training_session.h"
#include "ui/state/ui_state.h"
#include "ui/window/run_slot.h"

#include <array>
#include <memory>
#include <string>

namespace redraw {

static_assert(k_max_runs <= size_t(SliceTurns::k_slots), "every run takes its turns under a slot of its own");

struct CompareSessions {
  /// `runs`: the window's slots: run A's at k_run_a, each compared run's at its place.
  explicit CompareSessions(RunSlots& runs) : slots(runs) {}
  BackendFactory make_backend;
  std::shared_ptr<SliceTurns> turns = std::make_shared<SliceTurns>();
  RunSlots& slots;
  // A pending side-by-side export: every shown run's picture is asked for, then composed.
  std::string export_path;
  std::array<bool, k_max_runs> export_asked{};
  std::array<std::shared_ptr<const Image>, k_max_runs> export_pictures;
};

/// Where run `index` (of UiState::runs) saves when A is saved to `a_path`: `a_path` for run A,
/// "dir/name.redraw" -> "dir/name-B.redraw" for run B, and so on.
std::string compared_model_path(const std::string& a_path, size_t index);
/// The change an OpenCompare intent asks for; ConfigError when the value is no valid value for
/// the kind. A preset is loaded here (load_preset).
CompareChange compare_change_from(const intent::OpenCompare& in);
/// Handles OpenCompare, CloseCompare and ExportCompare, and makes every compared run follow A's run
/// intents. Returns true when the intent was a compare one (nothing more to do).
bool apply_compare_intent(UiState& ui, CompareSessions& cs, const UiIntent& in);
/// Each frame, for every open run `index` (run A's too) and its snapshot `take`, before
/// absorb_run: its picture for a pending export, and, for a run beside A, its linked frame (it asks
/// its session for the frame at the step A's timelapse shows).
void take_compare_news(UiState& ui, CompareSessions& cs, size_t index, SessionSnapshot& take);
/// Writes the pending export once every picture asked for has arrived.
void finish_compare_export(UiState& ui, CompareSessions& cs);
/// Ends the comparison (keeping A); waits for the other runs' copies to be written. Also at quit.
void close_compare(UiState& ui, CompareSessions& cs);

} // namespace redraw
