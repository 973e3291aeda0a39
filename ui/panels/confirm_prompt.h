#pragma once
/// "Never lose work": the Save / Discard / Cancel prompt before an action drops an unsaved run,
/// and the unsaved-changes mark in the window title.
/// - Guarded actions: Open (Ctrl+O before its dialog, drag & drop, recent files), Quit (Ctrl+Q,
///   File > Quit, the window's close button), Reset (R) and Apply & reset, when the run has
///   training not saved to a model file (SessionStatus::unsaved).
/// - Save writes the run to its model file (the one it was loaded from or last saved to), or to
///   a new `<image name>.redraw` in the last folder (never over another file), and carries on
///   with the action once the save succeeded; a failed save cancels the action.
/// - Discard first keeps a copy in the autosave folder (ConfirmState::keep_folder, the five
///   newest discarded runs are kept), when autosave is on; then the action goes ahead.
/// - Cancel (or Escape) keeps everything as it was.
/// GUI thread only; the state is plain data in UiState (docs/contributing.md, 8).
#include "ui/state/ui_state.h"

#include <filesystem>
#include <string>

#include <string>
#include <vector>

namespace redraw {

/// True when `in` would drop an unsaved run: it needs the user's answer first.
bool needs_confirmation(const UiState& ui, const UiIntent& in);
/// Holds `in` and opens the prompt (once; a second guarded action while it is open is ignored).
void ask_confirmation(UiState& ui, const UiIntent& in);
/// The prompt's answers (the buttons, and the tests). Save and Discard push intents.
void confirm_save(UiState& ui);
void confirm_discard(UiState& ui);
void confirm_cancel(UiState& ui);
/// Carries on with (or gives up) the held action once its save is reported (absorb_snapshot).
void confirm_after_saves(UiState& ui, const std::vector<std::string>& saved, const std::vector<std::string>& failed);
/// Where Save writes: the run's model file, or a new `<stem>.redraw` (stem, stem-2, ...) in the
/// last folder; never a file in the autosave folder, never over another file.
std::string save_destination(const UiState& ui);
/// The copy Discard keeps: `<keep_folder>/discarded-<YYYYmmdd-HHMMSS>[-n].redraw`; "" when
/// autosave is off. Older discarded copies beyond the newest `keep - 1` are removed.
std::string discard_copy_path(const ConfirmState& c, int keep = 5);
/// A .redraw path in `folder` that does not exist yet: PREFIX<date>-<time>.redraw, numbered
/// (-2, -3, ...) when that is taken. Names sort by time.
std::string unused_stamped_path(const std::filesystem::path& folder, const std::string& prefix);
/// "horse.png - Redraw", with a leading '*' while the run has unsaved changes.
std::string window_title(const UiState& ui);

} // namespace redraw
