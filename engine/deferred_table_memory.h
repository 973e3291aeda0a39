#pragma once
/// What a hash-grid minibatch holds for its table when the table's update is deferred to the next
/// step's encoding (the CPU backend trains so), as a formula of the grid, the batch and the thread
/// budget: the backend allocates it, and the GUI's memory estimate shows it, from this one place.
/// - In the core rather than cpu/ because the GUI's estimate (ui/config_summary) reads it and ui/
///   sees no backend; it is arithmetic, no backend code. It goes to cpu/ once the estimate is the
///   backend's own (a backend's registration record, read by the GUI).
#include "engine/hash_grid_math.h"

#include <cstdint>

namespace redraw {

/// Floats a CPU hash-grid minibatch holds in place of the table's gradient array, which it does not
/// keep (its update waits for the next step's encoding): the group buffer (the finest
/// min(cores, levels) levels, one for each thread's scatter) and the step's kept coordinates and
/// dLoss/dEncoding (batch rows).
int64_t cpu_deferred_table_floats(const HashGridParams& g, int64_t batch);
/// The group buffer alone: the finest levels are the largest, so a group of them spans the most.
int64_t cpu_deferred_group_floats(const HashGridParams& g);

} // namespace redraw
