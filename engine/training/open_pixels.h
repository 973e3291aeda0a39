#pragma once
/// open_run (open_run.h) for a picture already in memory: the Python module's arrays. The same
/// steps as a fresh run on a file: the config's overrides, the training size, the colour mode and
/// the resize, the hash grid sized to the picture, the backend, the Trainer.
#include "engine/training/open_run.h"

namespace redraw {

/// A fresh run of `options.config` on `raw` (1 to 4 channels in [0, 1], alpha last). `name`
/// stands for the picture in messages and as the run's source. ImageError for an empty picture
/// or a channel count outside 1..4; TrainingSizeError for a training size over the limits.
OpenedRun open_run_on_pixels(Image raw, const std::string& name, const BackendFactory& make_backend,
                             const OpenRunOptions& options = {});

} // namespace redraw
