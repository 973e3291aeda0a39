#pragma once
/// What a training step is followed by: a metrics row (loss and PSNR in the history) and a
/// timelapse frame; and when the command line writes a checkpoint. Both Trainer paths (step() and
/// the GPU's lagged metrics) and `redraw train` ask here, so they cannot drift apart.
#include "engine/frames/timelapse.h"

#include <cstdint>

namespace redraw {

struct StepPlan {
  bool measure = false;  ///< a history row for the count the step reaches
  bool snapshot = false; ///< a timelapse frame of the weights at that count
};

/// The plan for the step that takes a run from `step` completed steps to `step + 1`: a row at
/// every multiple of `metrics_every` (values below 1 count as 1), at the first step and at the
/// last (`total_steps`); a frame where `policy` keeps one.
StepPlan plan_step(int64_t step, int64_t total_steps, int64_t metrics_every, const SnapshotPolicy& policy);

/// Whether a run at `count` completed steps writes a checkpoint when it writes one every `every`
/// steps (0 or less: only at the end, never here).
inline bool checkpoint_due(int64_t count, int64_t every) { return every > 0 && count % every == 0; }

} // namespace redraw
