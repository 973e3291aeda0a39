#include "engine/frames/snapshot.h"

#include "engine/half_float.h"
#include "engine/soundness.h"

namespace redraw {

bool frame_weights_unsound(const Snapshot& s) {
  if (!s.params.empty()) return count_unsound(s.params, k_max_model_weight) > 0;
  return !s.half_params.empty() && count_unsound(from_half(s.half_params), k_max_model_weight) > 0;
}

bool has_weights(const Snapshot& s) { return !s.params.empty() || !s.half_params.empty(); }

size_t frame_weight_count(const Snapshot& s) { return s.params.empty() ? s.half_params.size() : s.params.size(); }

std::vector<float> frame_weights(const Snapshot& s) { return s.params.empty() ? from_half(s.half_params) : s.params; }

FrameKind frame_kind(const Snapshot& s) {
  if (s.resumable && !s.params.empty()) return FrameKind::Resumable;
  return has_weights(s) ? FrameKind::Weights : FrameKind::Picture;
}

} // namespace redraw
