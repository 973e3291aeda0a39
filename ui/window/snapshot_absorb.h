#pragma once
/// Folds what the training thread published (SessionSnapshot) into the UI state once per frame:
/// messages, history and plot columns, status, ground truth and host preview (uploaded into the
/// host textures, the error map recomputed). GUI thread only.
#include "ui/session/session_snapshot.h"
#include "ui/state/ui_state.h"

namespace redraw {

/// Takes run A's snapshot: history, status, messages (those its RunSlot has not reported yet),
/// ground truth and host preview (uploaded into ui.run_a()'s textures, error map recomputed). Device
/// frames are uploaded by the caller.
void absorb_snapshot(UiState& ui, SessionSnapshot&& take);
/// The part of absorb_snapshot every run shares (run A, and run B when comparing): appends the new
/// metrics rows to the history and plot columns (or replaces them) and takes the status.
void absorb_run_rows(RunView& run, SessionSnapshot& take);
/// Takes a new host preview into `run` and uploads it into `texture` (may be null).
void absorb_run_preview(RunView& run, PreviewTexture* texture, SessionSnapshot& take);
/// Recomputes the error heat map of `shown` against the ground truth into the error texture, at
/// the automatic scale (view.error_auto) or the manual gain; sets view.error_full_scale.
void update_error_map(UiState& ui, const Image& shown);

} // namespace redraw
