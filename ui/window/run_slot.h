#pragma once
/// One run of the window and the TrainingSession that trains it. Run A (the main run) and, while
/// comparing, each run compared with it (ui/window/compare_runs.h) are RunSlots: each tells its own session what the
/// screen wants of previews (posting only what changed), reports its session's messages under its
/// label ("B: ..."), and autosaves beside the app's autosave under that label (NAME-B.redraw).
/// What the GUI shows of each run is its RunView (UiState::runs: A at k_run_a, the others after it).
/// GUI thread only.
#include "ui/session/training_session.h"
#include "ui/state/ui_state.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>

namespace redraw {

/// What the screen wants of a run's previews (PreviewPacing's settings); a field below 0 is not
/// told (the session keeps what it has).
struct PreviewAsk {
  int32_t every = -1;            ///< SetPreviewEvery
  int32_t max_w = -1, max_h = -1; ///< SetPreviewLimit (both or neither)
  double gap = -1;               ///< SetMinPreviewInterval, in seconds
};

/// Where a run labelled `label` saves beside `path`: `path` itself for "" (run A),
/// "dir/name-B.redraw" for "B".
std::string slot_model_path(const std::string& path, const std::string& label);

class RunSlot {
public:
  /// `label`: "" for run A, its letter ("B", "C", ...) for a compared run.
  RunSlot(std::unique_ptr<TrainingSession> session, std::string label);

  TrainingSession& session() { return *m_session; }
  const std::string& label() const { return m_label; }
  uint64_t post(RunCommand command) { return m_session->post(std::move(command)); } ///< its ticket
  bool flush(double timeout_s) { return m_session->flush(timeout_s); }
  void request_frame(int64_t step) { m_session->request_frame(step); }
  SessionSnapshot take() { return m_session->take(); }
  /// Takes what the session published since the last call into this slot's own snapshot (kept, so
  /// that its has_news() compares with the take before) and returns it; the caller may move out of
  /// it until the next call.
  SessionSnapshot& take_news() {
    m_take.take_from(m_session->mailbox());
    return m_take;
  }

  /// Posts what of `ask` differs from what this slot's session was last told: the cadence and
  /// the size limit when they changed, the gap when it moved by more than 20% (so that a frame
  /// rate's jitter posts nothing).
  void tell(const PreviewAsk& ask);
  /// What the session was last told (-1: nothing yet).
  const PreviewAsk& told() const { return m_told; }
  /// Reports the snapshot's errors and notices as UiMessages ("B: "-prefixed for run B, and so on) and
  /// empties them.
  void report_messages(UiState& ui, SessionSnapshot& take) const;
  /// Where this run autosaves when the app autosaves to `path` (slot_model_path).
  std::string autosave_path(const std::string& path) const { return slot_model_path(path, m_label); }

private:
  std::unique_ptr<TrainingSession> m_session;
  std::string m_label;
  PreviewAsk m_told;
  SessionSnapshot m_take;
};

/// A run the window serves: its slot (session, label, textures told) and what the GUI shows of it
/// (its RunView in UiState::runs, at the slot's place). The frame loop goes over the open runs,
/// run A first, for their news, messages, preview pacing and autosave.
struct OpenRun {
  RunSlot* slot = nullptr;
  RunView* view = nullptr;
  size_t index = k_run_a; ///< its place in UiState::runs and in the RunSlots
};

/// The window's runs' slots, one owning list: run A's at k_run_a (always there while the window is
/// open), each compared run's at its place while comparing (null otherwise). Run i's view is UiState::runs[i].
using RunSlots = std::array<std::unique_ptr<RunSlot>, k_max_runs>;

/// Reports `take`'s errors and notices as UiMessages, each after `prefix`, and empties them.
void report_run_messages(UiState& ui, SessionSnapshot& take, const std::string& prefix = {});

} // namespace redraw
