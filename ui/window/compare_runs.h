#pragma once
/// Compare runs, the window's side (the dialog is ui/panels/compare_view.h): run B, made from run A's config with one change
/// (engine/insight/compare_runs.h), trains from step 0 on the same image beside A.
/// - CompareSessions opens and closes B's RunSlot, which the window's RunSlots hold beside A's
///   (ui/window/run_slot.h: the same type);
///   both sessions share one SliceTurns, so on one device they train in alternating slices.
/// - apply_compare_intent carries out the compare intents and makes B follow A's Train / Pause /
///   Step / Reset / Save (B saves beside A's file as NAME-B.redraw).
/// - Closing the comparison asks which run goes on. Keep A: B's unsaved work is kept as a copy (the
///   folder Discard keeps copies in, ConfirmState::keep_folder). Keep B: B is written to
///   compare-B-<time>.redraw there and run A opens it (A's unsaved work meets the usual Save /
///   Discard / Cancel prompt). Nothing trained is lost either way.
/// GUI thread only.
#include "engine/insight/compare_runs.h"
#include "ui/window/run_slot.h"
#include "ui/session/training_session.h"
#include "ui/state/ui_state.h"

#include <memory>
#include <string>

namespace redraw {

struct CompareSessions {
  /// `runs`: the window's slots, which hold run B's (at k_run_b) while comparing.
  explicit CompareSessions(RunSlots& runs) : b(runs[k_run_b]) {}
  BackendFactory make_backend;
  std::shared_ptr<SliceTurns> turns = std::make_shared<SliceTurns>();
  std::unique_ptr<RunSlot>& b; ///< run B while comparing, labelled "B": its place in the RunSlots
  // A pending side-by-side export: both pictures are asked for, then composed.
  std::string export_path;
  std::shared_ptr<const Image> export_a, export_b;
};

/// Where run B's model goes when A is saved to `a_path`: "dir/name.redraw" -> "dir/name-B.redraw".
std::string b_model_path(const std::string& a_path);
/// The change an OpenCompare intent asks for; ConfigError when the value is no valid value for
/// the kind. A preset is loaded here (load_preset).
CompareChange compare_change_from(const intent::OpenCompare& in);
/// Handles OpenCompare, CloseCompare and ExportCompare, and makes B follow A's run intents. Returns
/// true when the intent was a compare one (nothing more to do).
bool apply_compare_intent(UiState& ui, TrainingSession& a, CompareSessions& cs, const UiIntent& in);
/// Each frame: folds B's snapshot `take_b` (null while not comparing; its messages already
/// reported) into ui.runs[k_run_b] and B's texture; finishes a pending export once both pictures
/// arrived. `take_a` is A's snapshot of this frame (its export picture). True when B brought
/// something to show (a frame is due).
bool absorb_compare(UiState& ui, CompareSessions& cs, SessionSnapshot& take_a, SessionSnapshot* take_b);
/// Ends the comparison (keeping A); waits for B's copy to be written. Also at quit.
void close_compare(UiState& ui, CompareSessions& cs);
} // namespace redraw
