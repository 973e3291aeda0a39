#pragma once
/// What the CPU backend holds for a hash grid's table when it trains in minibatches, as a formula
/// of the grid and the batch: the backend allocates it, and the app's memory estimate shows it,
/// from this one place.
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
