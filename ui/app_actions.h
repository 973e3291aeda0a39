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
void absorb_snapshot(UiState& ui, SessionSnapshot&& take);
/// The part of absorb_snapshot every run shares (run A, and run B when comparing): appends the new
/// metrics rows to the history and plot columns (or replaces them) and takes the status.
void absorb_run_rows(RunView& run, SessionSnapshot& take);
/// The time budget the edited controls ask for, in seconds: 0 when off, else time_budget_s
/// within 1..1e7.
double edit_time_budget(const EditState& edit);
/// Takes a new host preview into `run` and uploads it into `texture` (may be null).
void absorb_run_preview(RunView& run, PreviewTexture* texture, SessionSnapshot& take);
/// Recomputes the error heat map of `shown` against the ground truth into the error texture, at
/// the automatic scale (view.error_auto) or the manual gain; sets view.error_full_scale.
void update_error_map(UiState& ui, const Image& shown);
/// Timelapse upkeep each frame: plays, serves the wanted frame from the cache or asks the session.
void sync_timelapse(UiState& ui, TrainingSession& session);
/// The picture the reconstruction pane shows: the scrubbed frame, or the live preview.
const Image* displayed_reconstruction(const UiState& ui);
/// Loads a preset (a name from assets/presets, or a path to a .json config) into the edited config.
void load_preset_into(UiState& ui, const std::string& name_or_path);
/// The export size File > Export opens with for a w x h picture: 4x the picture the first time;
/// afterwards the size chosen last time, its height following the picture's aspect when locked.
void prepare_export_size(FileDialogState& d, int32_t w, int32_t h);
/// The preset the controls name once `running` (a new trainer's config) is in the editor:
/// `edit.preset` while `running` has that preset's shape, data, loss and optimizer (requires_new_trainer
/// with `edit.preset_config`), "" (shown as "custom") otherwise, e.g. for a model made elsewhere.
std::string preset_for_run(const EditState& edit, const RunConfig& running);
/// True for a path ending in ".redraw", in any case.
bool is_model_path(const std::string& path);
/// The run the window opens with: `opts.model`, or a positional path that is a .redraw model
/// (`redraw MODEL.redraw`), or the image (the bundled one when none is given), with the
/// edited config and the remembered backend and precision.
LoadRequest initial_load_request(const GuiOptions& opts, const UiState& ui);
/// A load with the app's remembered backend and precision and its image memory budget (`gui
/// --max-image-memory` for this session, else Settings::max_image_memory_mb); the caller sets what
/// is loaded.
LoadRequest base_load_request(const UiState& ui);
/// The intent File > Export's button sends for the dialog's choices (ExportImage, -Comparison
/// -Timelapse or ExportCompare, from the dialog's kind).
UiIntent export_intent(const FileDialogState& dialog, const TimelapseState& timelapse);
/// An ExportTimelapse intent's options (size, fps, overlay, bit depth for PNG frames).
TimelapseOptions timelapse_options(const intent::ExportTimelapse& in);
/// `path`, with ".redraw" added unless it names a model already.
std::string model_path_for(const std::string& path);

} // namespace redraw
