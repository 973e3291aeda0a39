#pragma once
/// Compare runs, the panel: Training > Compare with... (the one change that makes run B) and the
/// "which run goes on" popup. They push intents; ui/window/compare_runs.h carries them out.
/// GUI thread only.
#include "ui/state/ui_state.h"

namespace redraw {

/// Training > Compare with...: the one change that makes run B; and the "which run goes on" popup.
void draw_compare_dialog(UiState& ui);

} // namespace redraw
