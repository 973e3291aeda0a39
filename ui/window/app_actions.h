#pragma once
/// Carries out what the panels and keys asked for (UiIntent): the run's intents become the
/// session's commands (ui/session/run_commands.h). GUI thread only. Every failure becomes a UiMessage.
/// The other themes of the app's GUI-thread work have their own files, included here for the
/// callers that use several: run_requests.h (what a load asks for), edited_config.h (the
/// controls' config), file_actions.h (the file dialog, recent files), snapshot_absorb.h (the
/// session's news into UiState) and timelapse_sync.h.
#include "ui/window/edited_config.h"
#include "ui/panels/file_actions.h"
#include "ui/window/run_requests.h"
#include "ui/window/snapshot_absorb.h"
#include "ui/window/timelapse_sync.h"
#include "ui/session/training_session.h"
#include "ui/state/ui_state.h"

namespace redraw {

/// Applies one intent. Returns false when the app should quit.
bool apply_intent(UiState& ui, TrainingSession& session, const UiIntent& intent);
/// Keyboard shortcuts (Space, R, Ctrl+O, Ctrl+S, Ctrl+E, F) -> intents, unless a text field has focus.
void handle_shortcuts(UiState& ui);

} // namespace redraw
