#pragma once
/// File > Open sweep: the state of the sweep browser (ui/panels/sweep_browser.h), a plain struct in
/// UiState. Thumbnails are PreviewTexture pointers (no GL type here); shared_ptr keeps UiState
/// copyable.
#include "engine/sweep/sweep_table.h"
#include "ui/widgets/preview_texture.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace redraw {

struct SweepBrowserState {
  bool open = false;
  std::string folder_field;        ///< the folder typed or chosen
  std::string folder;              ///< the sweep shown ("" = none)
  std::string error;               ///< why the last open failed
  SweepPlan plan;                  ///< its sweep.json
  std::vector<CellResult> results; ///< one per cell, as its folder says
  std::vector<size_t> order;       ///< cells in the chosen column's order
  int32_t sort_column = int32_t(SweepColumn::Psnr);
  bool descending = true;
  std::vector<int64_t> selected; ///< at most two cells, the older first (Compare opens them as A and B)
  std::vector<std::shared_ptr<PreviewTexture>> thumbs; ///< one per cell, null until made or when it has no picture
  size_t thumbs_tried = 0;                             ///< cells whose final.png was read (in the plan's order)
  std::string compare_b;                               ///< a model waiting for run A to open, then opened as run B
  double compare_asked = 0;                            ///< ui.now when it was asked
  size_t tiles_drawn = 0; ///< tiles submitted in the last frame: the visible rows only (a clipped list)
};

} // namespace redraw
