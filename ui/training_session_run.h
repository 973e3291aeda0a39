#pragma once
/// The state of one loaded run inside TrainingSession (private to ui/training_session*.cpp).
#include "ui/training_session.h"

#include "engine/trainer.h"

#include <chrono>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace redraw {

using Clock = std::chrono::steady_clock;

struct TrainingSession::Run {
  std::unique_ptr<Trainer> trainer;
  std::string source;
  std::string image; ///< "" when the model's own picture stands in
  std::string source_image; ///< what a saved model records as its source (absolute when known)
  int32_t image_width = 0, image_height = 0; ///< the image file's own size (0: not read)
  std::vector<MetricsRow> pending_rows;
  Clock::time_point last_preview = Clock::now() - std::chrono::seconds(10);
  int64_t last_preview_step = -1;
  std::deque<std::pair<double, int64_t>> rate_window; ///< (seconds, step) samples for steps/s
  Clock::time_point epoch = Clock::now();
  DeviceRenderer* device = nullptr; ///< the backend's device renderer, when it has one
  SessionProfile profile;           ///< time since the last publish (steps, previews)
  Clock::time_point profile_since = Clock::now();
};

} // namespace redraw
