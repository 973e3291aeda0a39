#include "ui/window/edited_config.h"

#include "ui/window/run_requests.h"

#include "engine/config_fields.h"

#include <algorithm>

namespace redraw {

std::string preset_for_run(const EditState& edit, const RunConfig& running) {
  if (edit.preset.empty() || requires_new_trainer(running, edit.preset_config)) return {};
  return edit.preset;
}

void load_preset_into(UiState& ui, const std::string& name_or_path, const std::vector<std::string>& sets) {
  try {
    RunConfig c = has_extension(name_or_path, ".json") ? load_run_config(name_or_path) : load_preset(name_or_path);
    ui.edit.config = with_config_fields(c, sets, has_extension(name_or_path, ".json") ? name_or_path : "preset " + name_or_path);
    ui.edit.preset_config = std::move(c);
    ui.edit.preset = name_or_path;
    ui.edit.full_batch = ui.edit.config.training.batch_size == 0;
    if (!ui.edit.full_batch) ui.edit.batch_size = int32_t(ui.edit.config.training.batch_size);
    ui.edit.selected_layer = 0;
    if (!has_extension(name_or_path, ".json")) ui.settings.preset = name_or_path;
  } catch (const std::exception& e) {
    ui.notify(e.what(), true);
  }
}

} // namespace redraw
