#pragma once
/// The runs the panels draw, in order: run A, then run B while comparing (ui/compare_view.h). A
/// panel goes over these rather than asking whether a comparison is open, so another run costs it
/// nothing. GUI thread only.
#include "ui/ui_state.h"

#include <array>
#include <cstdint>
#include <vector>

namespace redraw {

struct ShownRun {
  const RunView* view = nullptr;
  /// The run's name in the legends ("A: siren", "B: fourier"); null for a lone run A (no legend).
  const char* label = nullptr;
  const char* letter = ""; ///< "A", "B" while comparing; "" for a lone run A
};

/// Run A, then run B while comparing.
inline std::vector<ShownRun> shown_runs(const UiState& ui) {
  if (!ui.compare.open) return {ShownRun{&ui.run, nullptr, ""}};
  return {ShownRun{&ui.run, ui.compare.label_a.c_str(), "A"},
          ShownRun{&ui.compare.run, ui.compare.label_b.c_str(), "B"}};
}

/// The colour of the run at `index` of shown_runs() in the plots and the status bar, as ImU32 packs
/// it (0xAABBGGRR) with alpha `alpha`: `first` (the plot's own colour) for run A, pink for run B.
inline uint32_t shown_run_color(size_t index, uint32_t first, uint8_t alpha) {
  constexpr std::array<uint32_t, 3> others{0xC86EF0u, 0x50C8A0u, 0x40B4F0u}; // BGR: pink, green, orange
  const uint32_t rgb = index == 0 ? (first & 0xFFFFFFu) : others[(index - 1) % others.size()];
  return rgb | (uint32_t(alpha) << 24);
}

} // namespace redraw
