#pragma once
/// Carries out what the panels and keys asked for (UiIntent), and folds the session's snapshot
/// into the UI state each frame. GUI thread only. Every failure becomes a UiMessage.
#include "ui/training_session.h"
#include "ui/ui_state.h"

namespace redraw {

struct GuiOptions;

/// Applies one intent. Returns false when the app should quit.
bool apply_intent(UiState& ui, TrainingSession& session, const UiIntent& intent);
/// Keyboard shortcuts (Space, R, Ctrl+O, Ctrl+S, Ctrl+E, F) -> intents, unless a text field has focus.
void handle_shortcuts(UiState& ui);
/// Takes the session's snapshot: history, status, messages, ground truth and host preview
/// (uploaded into the host textures, error map recomputed). Device frames are uploaded by the caller.
void absorb_snapshot(UiState& ui, SessionTake&& take);
/// Timelapse upkeep each frame: plays, serves the wanted frame from the cache or asks the session.
void sync_timelapse(UiState& ui, TrainingSession& session);
/// The picture the reconstruction pane shows: the scrubbed frame, or the live preview.
const Image* displayed_reconstruction(const UiState& ui);
/// Loads a preset (a name from assets/presets, or a path to a .json config) into the edited config.
void load_preset_into(UiState& ui, const std::string& name_or_path);
/// True when the edited config differs from the running one in anything but the schedule and steps.
bool needs_reset(const RunConfig& edited, const RunConfig& running);

} // namespace redraw
