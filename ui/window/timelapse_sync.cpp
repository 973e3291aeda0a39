#include "ui/window/timelapse_sync.h"

#include "ui/window/snapshot_absorb.h"

#include <algorithm>

namespace redraw {

const Image* displayed_reconstruction(const UiState& ui) {
  if (ui.timelapse.active && ui.timelapse.frame) return ui.timelapse.frame.get();
  return ui.run_a().reconstruction.get();
}

void sync_timelapse(UiState& ui, TrainingSession& session) {
  TimelapseState& tl = ui.timelapse;
  if (tl.frames.empty()) return;
  if (tl.playing) {
    if (ui.now >= tl.next_advance) {
      if (tl.index + 1 >= int32_t(tl.frames.size()))
        tl.playing = false;
      else
        ++tl.index;
      tl.next_advance = ui.now + 1.0 / std::max(0.5f, tl.fps);
    }
    tl.active = true;
  }
  if (!tl.active) return;
  const int64_t want = tl.wanted_step();
  if (want == tl.shown_step) return;
  for (const auto& [step, img] : tl.cache)
    if (step == want) {
      tl.frame = img;
      tl.shown_step = step;
      if (ui.run_a().tex.frame) ui.run_a().tex.frame->upload_image(*img);
      ui.view.error_dirty = true;
      update_error_map(ui, *img);
      return;
    }
  if (tl.requested_step != want) {
    session.request_frame(want);
    tl.requested_step = want;
  }
}

} // namespace redraw
