#pragma once
/// A timelapse frame: a step's metrics, a small picture of the network, and its weights when it is
/// a keyframe. The type the store keeps (timelapse.h), the trainer records, the model file writes
/// and the exports draw; so it sits below all of them.
#include "engine/metrics.h"
#include "engine/optimizer_state.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace redraw {

/// A timelapse frame's picture: 8-bit samples, row-major, `channels` (1 or 3) per pixel.
struct FramePicture {
  int32_t width = 0, height = 0, channels = 0;
  std::vector<uint8_t> pixels;
  bool empty() const { return pixels.empty(); }
};

/// What a frame keeps, from least to most: a picture only, weights (a keyframe: it renders at any
/// size and can be branched from with a fresh optimizer), or an exact continuation.
enum class FrameKind : uint8_t { Picture = 0, Weights = 1, Resumable = 2 };

/// One timelapse frame: a step's metrics, its picture, and its weights when it is a keyframe.
/// - Weights are exact (`params`, fp32) or rounded to fp16 (`half_params`) when memory or the
///   file is short; at most one of the two is set. A frame with neither is a picture only.
/// - In memory a frame may also hold what an exact continuation from it needs (the optimizer's
///   state, its update count and the recoveries' learning-rate factor): `resumable`, which
///   requires exact `params`. A .redraw file stores no frame's optimizer state, so frames read
///   from a file are not resumable (except step 0's, whose optimizer state is all zeros, when
///   its exact weights were stored).
struct Snapshot {
  MetricsRow metrics;
  std::vector<float> params;         ///< exact weights; empty when not kept
  std::vector<uint16_t> half_params; ///< fp16 weights (half_float.h) when `params` is empty; may be empty too
  FramePicture picture;              ///< at most k_frame_picture_side on its longer side; may be empty (old files)
  bool resumable = false;     ///< `optimizer`, `optimizer_step` and `lr_scale` are this step's
  OptimizerState optimizer{}; ///< empty arrays stand for zeros (the untrained network's state)
  int64_t optimizer_step = 0;
  double lr_scale = 1;
};

/// True when the frame keeps weights (exact or fp16).
bool has_weights(const Snapshot& s);
/// The frame's weights as fp32 (fp16 ones widened); empty for a picture-only frame.
std::vector<float> frame_weights(const Snapshot& s);
FrameKind frame_kind(const Snapshot& s);
/// The frame's weight count (either precision).
size_t frame_weight_count(const Snapshot& s);

/// True when `s` keeps weights and some are not sound (engine/soundness.h).
bool frame_weights_unsound(const Snapshot& s);

} // namespace redraw
