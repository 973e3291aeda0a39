#pragma once
/// The config the controls edit (EditState): presets loaded into it, the preset it still names,
/// and the time budget it asks for. GUI thread only.
#include "engine/run_config.h"
#include "ui/state/ui_state.h"

#include <string>
#include <vector>

namespace redraw {

/// Loads a preset (a name from assets/presets, or a path to a .json config) into the edited config,
/// with `sets` ("KEY=VALUE", the command line's --set) over it: the controls then show it edited.
/// A preset or field that cannot be read is a notice, and the edited config stays as it was.
void load_preset_into(UiState& ui, const std::string& name_or_path, const std::vector<std::string>& sets = {});
/// The preset the controls name once `running` (a new trainer's config) is in the editor:
/// `edit.preset` while `running` has that preset's shape, data, loss and optimizer (requires_new_trainer
/// with `edit.preset_config`), "" (shown as "custom") otherwise, e.g. for a model made elsewhere.
std::string preset_for_run(const EditState& edit, const RunConfig& running);

} // namespace redraw
