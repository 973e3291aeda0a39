#pragma once
/// File > Open sweep: a sweep's cells (`redraw sweep`'s folder) as a grid of thumbnails labelled
/// with their PSNR, sorted by a column. A click opens a cell's model as the run; Ctrl+click
/// selects cells, and two selected open in Compare (the older as run A, the other as run B).
/// - The grid reads DIR/sweep.json and each cell's result.json (engine/sweep/sweep_table.h);
///   Refresh reads them again (a sweep still running). Thumbnails are each cell's final.png,
///   shrunk; a few are made per frame, so opening a large sweep never stalls the window.
/// - Comparing two cells opens A first (through the usual Save / Discard / Cancel prompt when the
///   run on screen has unsaved work); B opens beside it once A has loaded.
/// GUI thread only.
#include "ui/state/ui_state.h"

#include <cstdint>
#include <string>

namespace redraw {

/// Reads the sweep in `folder` into `s` (its plan, its cells' results, their order); on failure
/// `s.error` says why (naming the file) and the sweep shown before stays.
void load_sweep_browser(SweepBrowserState& s, const std::string& folder);
/// Orders the cells again by s.sort_column and s.descending.
void sort_sweep_browser(SweepBrowserState& s);
/// Ctrl+click: selects `cell`, or unselects it; a third selection drops the oldest.
void toggle_sweep_selection(SweepBrowserState& s, int64_t cell);
/// A cell's model.redraw.
std::string sweep_cell_model(const SweepBrowserState& s, int64_t cell);
/// Click: opens the cell's model as the run (an error message when it has none yet).
void open_sweep_cell(UiState& ui, int64_t cell);
/// Opens the two selected cells in Compare (nothing unless exactly two are selected).
void compare_sweep_selection(UiState& ui);
/// Each frame: opens the waiting run B once run A has loaded (given up after a minute).
void follow_sweep_compare(UiState& ui);
/// The File > Open sweep window (when ui.sweep.open).
void draw_sweep_browser(UiState& ui);

} // namespace redraw
