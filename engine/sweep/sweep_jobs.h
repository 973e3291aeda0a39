#pragma once
/// How many cells of a sweep run side by side on one machine, with how many CPU threads each, and
/// how long the sweep will take. The rule comes from measurements on a 2-core machine
/// (bench/README.md, "Sweeps"; bench/sweep_bench.sh):
/// - Under a time limit every cell trains for the same time whatever its threads, so the grid
///   finishes sooner the more cells run at once: one job per core (never more, so each cell keeps
///   a whole core and cells stay comparable).
/// - To a number of steps, a cell whose step is small (few rows: a small image or a minibatch)
///   gains little from a second thread, so one job per core finishes sooner; a large step gains
///   from all threads, and one job at a time with every thread is as fast and has one cell's
///   memory, not several.
/// - With a GPU the cells share it: one job at a time.
#include "engine/sweep/sweep_plan.h"

#include <cstdint>

namespace redraw {

/// Rows per step at or below which a steps-limited cell is "small" (one job per core).
constexpr int64_t k_small_step_rows = 1 << 16;

struct SweepJobs {
  int32_t jobs = 1;    ///< cells run side by side
  int32_t threads = 0; ///< CPU threads each (train's --threads); 0: train chooses (a GPU)
};

/// Rows a cell's step trains on, on the CPU: its CPU batch, or every pixel for a full batch.
int64_t cell_step_rows(const SweepCell& cell);
/// The jobs for `cells_left` cells of `plan` on `cores` CPU cores (>= 1), `gpu` when the cells
/// train on a GPU. `requested` > 0 is the user's --jobs (its threads divide the cores).
SweepJobs plan_sweep_jobs(const SweepPlan& plan, int64_t cells_left, int32_t cores, bool gpu, int32_t requested = 0);

/// Seconds one cell is expected to take on `threads` CPU threads: its time limit, or its steps at
/// a rough CPU rate (k_cpu_flops_per_thread), plus starting and saving. Never below 0.
double estimate_cell_seconds(const SweepGrid& grid, const SweepCell& cell, int32_t threads);
/// The grid's wall time for `cells` (indices into the plan) run `jobs.jobs` at a time.
double estimate_sweep_seconds(const SweepPlan& plan, const std::vector<int64_t>& cells, const SweepJobs& jobs);

} // namespace redraw
