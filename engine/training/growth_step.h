#pragma once
/// A relocation of the bound Gaussians (training.grow, engine/gaussian_growth.h) through the
/// Backend's public calls, so every backend grows the same way: the parameters and optimizer state
/// read back, the picture predicted at every pixel centre, the Gaussians moved on the host and
/// both written back. It runs every GrowSpec::every steps, never per step: on a GPU it is one
/// round trip of the parameters (2 MB at 70,000 Gaussians) and one forward pass per relocation.
/// - Threading: the trainer's thread.
#include "engine/backend.h"
#include "engine/gaussian_growth.h"

#include <optional>

namespace redraw {

/// Relocates the bound Gaussians of `config`'s model on `backend` (bound to `data`) after `step`
/// completed steps; returns the event, or nothing when the bound state is not sound (the
/// divergence guard's to handle: growth never moves a non-finite value out of its sight).
std::optional<GrowthEvent> grow_bound_gaussians(Backend& backend, const RunConfig& config, const Dataset& data,
                                                int64_t step);

} // namespace redraw
