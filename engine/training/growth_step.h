#pragma once
/// A relocation of the bound primitives (training.grow, engine/growth.h; the family's record does
/// it: ModelFamily::grow, the Gaussians' or the sad sites') through the
/// Backend's public calls, so every backend grows the same way: the parameters and optimizer state
/// read back, the picture predicted at every pixel centre, the primitives moved on the host and
/// both written back. It runs every GrowSpec::every steps, never per step: on a GPU it is one
/// round trip of the parameters (2 MB at 70,000 Gaussians) and one forward pass per relocation.
/// The relocation reads the bound encoding's lists where the backend keeps them
/// (Backend::bound_site_lists: the sad lists the step used, not built again), and hands the
/// moved floats back through set_moved_parameters, so that its trained encoding follows them (the
/// CPU's sad lists take one refresh pass, which offers every moved site at its new node; a
/// backend that cannot follow builds them afresh).
/// - Threading: the trainer's thread.
#include "engine/backend.h"
#include "engine/growth.h"

#include <optional>

namespace redraw {

/// Relocates the bound primitives of `config`'s model on `backend` (bound to `data`) after `step`
/// completed steps; returns the event, or nothing when the family does not grow or the bound
/// state is not sound (the divergence guard's to handle: growth never moves a non-finite value
/// out of its sight).
std::optional<GrowthEvent> grow_bound_primitives(Backend& backend, const RunConfig& config, const Dataset& data,
                                                 int64_t step);

} // namespace redraw
