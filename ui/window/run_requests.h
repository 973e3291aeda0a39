#pragma once
/// What the app asks a run to open: load requests with the remembered backend, precision and
/// image memory budget, and the model paths they name. GUI thread only.
#include "ui/session/load_request.h"
#include "ui/state/ui_state.h"

#include <string>

namespace redraw {

struct GuiOptions;

/// True when `path`'s extension is `ext` (".redraw", with the dot), in any case.
bool has_extension(const std::string& path, const char* ext);
/// True for a path ending in ".redraw", in any case.
bool is_model_path(const std::string& path);
/// `path`, with ".redraw" added unless it names a model already.
std::string model_path_for(const std::string& path);
/// A load with the app's remembered backend and precision and its image memory budget (`gui
/// --max-image-memory` for this session, else Settings::max_image_memory_mb); the caller sets what
/// is loaded.
LoadRequest base_load_request(const UiState& ui);
/// The run the window opens with: `opts.model`, or a positional path that is a .redraw model
/// (`redraw MODEL.redraw`), or the image (the bundled one when none is given), with the
/// edited config and the remembered backend and precision.
LoadRequest initial_load_request(const GuiOptions& opts, const UiState& ui);

} // namespace redraw
