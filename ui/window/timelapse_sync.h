#pragma once
/// The timelapse's upkeep each frame and the picture the reconstruction pane shows. GUI thread only.
#include "ui/session/training_session.h"
#include "ui/state/ui_state.h"

namespace redraw {

/// Timelapse upkeep each frame: plays, serves the wanted frame from the cache or asks the session.
void sync_timelapse(UiState& ui, TrainingSession& session);
/// The picture the reconstruction pane shows: the scrubbed frame, or the live preview.
const Image* displayed_reconstruction(const UiState& ui);

} // namespace redraw
