#pragma once
/// The runs the panels draw, in order: run A, then the runs compared with it (ui/window/compare_runs.h). A
/// panel goes over these rather than asking whether a comparison is open, so another run costs it
/// nothing. GUI thread only.
#include "ui/state/ui_state.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace redraw {

struct ShownRun {
  const RunView* view = nullptr;
  /// The run's name in the legends ("A: siren", "B: fourier"); null for a lone run A (no legend).
  const char* label = nullptr;
  const char* letter = ""; ///< "A", "B", ... while comparing; "" for a lone run A
  size_t index = k_run_a;  ///< where the run is in UiState::runs
};

/// Run A, then each run compared with it, in the order of their places.
inline std::vector<ShownRun> shown_runs(const UiState& ui) {
  if (!ui.compare.open) return {ShownRun{&ui.run_a(), nullptr, "", k_run_a}};
  std::vector<ShownRun> shown;
  for (size_t i = 0; i < k_max_runs; ++i)
    if (i == k_run_a || ui.runs[i].compared)
      shown.push_back(ShownRun{&ui.runs[i], ui.runs[i].label.c_str(), run_letter(i), i});
  return shown;
}

/// The split view (one pane, a divider between two pictures) is on: it shows two runs, and it is
/// shown while exactly two are.
inline bool split_shown(const UiState& ui) { return ui.compare.open && ui.compare.split && shown_runs(ui).size() == 2; }
/// Whether the canvas shows each compared run's error map under its picture (the runs side by
/// side, Settings::compare_errors).
inline bool compared_error_maps_shown(const UiState& ui) {
  return ui.compare.open && !split_shown(ui) && ui.settings.compare_errors;
}

/// A timelapse frame a run has on screen: its host pixels and its step.
struct ShownFrame {
  const Image* image = nullptr; ///< null: the run shows its live picture
  int64_t step = -1;
};

/// The timelapse frame run `index` (of UiState::runs) holds in its tex.frame: run A's while its
/// timelapse is scrubbed and the frame has arrived; a compared run's own frame at or before A's
/// step (linked scrubbing, RunView::linked) once it has arrived. None otherwise.
inline ShownFrame run_frame(const UiState& ui, size_t index) {
  const RunView& run = ui.runs[index];
  if (!run.tex.frame || run.tex.frame->empty()) return {};
  if (index == k_run_a)
    return ui.timelapse.active && ui.timelapse.frame ? ShownFrame{ui.timelapse.frame.get(), ui.timelapse.shown_step}
                                                     : ShownFrame{};
  return run.linked.image ? ShownFrame{run.linked.image.get(), run.linked.step} : ShownFrame{};
}

/// Run A's colour in every plot while other runs are shown beside it (BGR, as ImU32 packs it): the
/// loss plot's blue, so that each run keeps one colour across the plots.
constexpr uint32_t k_run_a_rgb = 0xFFAA5Au;

/// The growth events' colour (marks on the loss plot, ticks on the timelapse slider) while one run
/// is shown, as ImU32 packs it: a green apart from the plots' blue, pink and yellow.
constexpr uint32_t k_growth_mark_rgb = 0xFF8CD76Eu; // (110, 215, 140)

/// One growth event as the hovers name it: "step 50: 1500 moved where the error was".
inline std::string growth_event_text(const GrowthEvent& e) {
  return "step " + std::to_string(e.step) + ": " + std::to_string(e.moved) + " moved where the error was";
}

/// The colour of the run at `index` of shown_runs() in the plots and the status bar, as ImU32 packs
/// it (0xAABBGGRR) with alpha `alpha`: `first` for run A, then pink, green and orange.
inline uint32_t shown_run_color(size_t index, uint32_t first, uint8_t alpha) {
  constexpr std::array<uint32_t, 3> others{0xC86EF0u, 0x50C8A0u, 0x40B4F0u}; // BGR: pink, green, orange
  const uint32_t rgb = index == 0 ? (first & 0xFFFFFFu) : others[(index - 1) % others.size()];
  return rgb | (uint32_t(alpha) << 24);
}

} // namespace redraw
