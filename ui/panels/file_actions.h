#pragma once
/// The file side of the app: File > Open / Save / Export's dialog as it opens, the intent its
/// button sends, and the recent files. GUI thread only.
#include "engine/export/timelapse_export.h"
#include "ui/state/ui_state.h"

#include <string>

namespace redraw {

/// Opens the file dialog for `purpose`, in the last folder, named after the run's source.
void open_dialog(UiState& ui, FileDialogPurpose purpose);
/// Adds `path` to the recent files (not the bundled picture) and remembers its folder.
void remember_file(UiState& ui, const std::string& path);
/// The export size File > Export opens with for a w x h picture: 4x the picture the first time;
/// afterwards the size chosen last time, its height following the picture's aspect when locked.
void prepare_export_size(FileDialogState& d, int32_t w, int32_t h);
/// The intent File > Export's button sends for the dialog's choices (ExportImage, -Comparison
/// -Timelapse or ExportCompare, from the dialog's kind).
UiIntent export_intent(const FileDialogState& dialog, const TimelapseState& timelapse);
/// An ExportTimelapse intent's options (size, fps, overlay, bit depth for PNG frames).
TimelapseOptions timelapse_options(const intent::ExportTimelapse& in);

} // namespace redraw
