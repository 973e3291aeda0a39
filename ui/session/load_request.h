#pragma once
/// What a run is opened from in the app, and the offer to open it again with a larger image
/// memory budget when its image is over the budget.
#include "engine/backend_names.h"
#include "engine/images/image.h"
#include "engine/run_config.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace redraw {

/// A new run: from an image (config applies), or from a model (its config applies).
struct LoadRequest {
  std::string image; ///< image to train on (may be empty when `model` is set)
  std::string model; ///< .redraw model to resume (optional)
  RunConfig config;  ///< for image loads
  std::string backend = k_auto_backend;
  std::string precision; ///< a precision_choices() name for a GPU backend; ignored for the CPU
  DecodeLimits limits;   ///< the image memory budget (Settings::max_image_memory_mb)
};

/// A load refused because its image needs more memory to decode than the budget: the request,
/// to be sent again with the budget raised for this file alone, and the figures to show.
struct BudgetOffer {
  LoadRequest request;
  std::string file;           ///< the image that was over the budget
  uint64_t needed_bytes = 0;  ///< what decoding it takes
  uint64_t budget_bytes = 0;  ///< the budget it was refused under
  std::string what;           ///< the decoder's message
};

/// The budget raised to take `needed_bytes`, in whole MiB (at least the old one).
inline DecodeLimits raised_limits(const BudgetOffer& o) {
  const uint64_t mib = uint64_t(1) << 20;
  DecodeLimits l;
  l.max_bytes = std::max(o.budget_bytes, (o.needed_bytes + mib - 1) / mib * mib);
  return l;
}

} // namespace redraw
