#pragma once
/// Folds what the training thread published (SessionSnapshot) into the UI state once per frame:
/// messages, history and plot columns, status, ground truth and host preview (uploaded into the
/// host textures, the error map recomputed). GUI thread only.
#include "ui/session/session_snapshot.h"
#include "ui/state/ui_state.h"

namespace redraw {

/// Takes run `index`'s snapshot into ui.runs[index], the same way for every run (run A and each run
/// compared with it): its rows and status (absorb_run_rows), its ground truth at its own training
/// size and its host preview, uploaded into its textures. Run A, the run the user edits, also
/// brings what follows it (absorb_snapshot). Device frames are uploaded by the caller. True when
/// the sharp zoom's render arrived (the screen changed beyond the snapshot's news).
bool absorb_run(UiState& ui, size_t index, SessionSnapshot& take);
/// Run A's part of absorb_run: its saves and messages (those its RunSlot has not reported yet), the
/// controls when a new trainer runs, the timelapse's frames, the performance profiles, the network
/// for the insight views, and the error map recomputed.
void absorb_snapshot(UiState& ui, SessionSnapshot&& take);
/// The part every run shares: appends the new metrics rows to the history and plot columns (or
/// replaces them) and takes the status and, when they changed, the growth events.
void absorb_run_rows(RunView& run, SessionSnapshot& take);
/// Takes a new ground truth into `run` (uploaded into its truth texture); true when one came.
bool absorb_run_truth(RunView& run, SessionSnapshot& take);
/// Takes a new host preview into `run` and uploads it into `texture` (may be null).
void absorb_run_preview(RunView& run, PreviewTexture* texture, SessionSnapshot& take);
/// Recomputes the error heat map of `shown` (run A's picture) against the ground truth into run A's
/// error texture, at the automatic scale (view.error_auto) or the manual gain; sets
/// view.error_full_scale. While compared runs show their error maps (compared_error_maps_shown),
/// theirs too, on the same scale: the largest of the runs' automatic scales.
void update_error_map(UiState& ui, const Image& shown);

} // namespace redraw
