#include "engine/sweep/sweep_jobs.h"

#include "engine/backend_names.h"
#include "engine/model_family.h"

#include <algorithm>
#include <queue>

namespace redraw {

namespace {
/// A CPU thread's multiply-adds per second on the MLP's matrix products, counted as 2 flops
/// each: measured on the bench machine (bench/README.md, "Sweeps"), about right for others.
constexpr double k_cpu_flops_per_thread = 8e9;
/// What a cell costs beyond its training: the process, the image, the backend, the first spectrum
/// row, the final picture and model, and the sweep's own measures (SSIM, thumbnails).
constexpr double k_cell_overhead_seconds = 0.6;
} // namespace

int64_t cell_step_rows(const SweepCell& cell) {
  const int64_t pixels = int64_t(cell.train_width) * cell.train_height;
  const int64_t batch = backend_batch(cell.config.training, k_cpu_backend.name);
  return batch > 0 ? std::min(batch, pixels) : pixels;
}

SweepJobs plan_sweep_jobs(const SweepPlan& plan, int64_t cells_left, int32_t cores, bool gpu, int32_t requested) {
  cores = std::max(cores, 1);
  SweepJobs out;
  if (requested > 0) {
    out.jobs = requested;
  } else if (gpu) {
    out.jobs = 1;
  } else if (plan.grid.time_limit > 0) {
    out.jobs = cores;
  } else {
    int64_t largest = 0;
    for (const SweepCell& c : plan.cells)
      largest = std::max(largest, cell_step_rows(c));
    out.jobs = largest <= k_small_step_rows ? cores : 1;
  }
  out.jobs = int32_t(std::max<int64_t>(1, std::min<int64_t>(out.jobs, std::max<int64_t>(cells_left, 1))));
  out.threads = gpu && requested <= 0 ? 0 : std::max(1, cores / out.jobs);
  return out;
}

double estimate_cell_seconds(const SweepGrid& grid, const SweepCell& cell, int32_t threads) {
  const double pixels = double(cell.train_width) * cell.train_height;
  // The final picture: a forward pass over every pixel, a third of a full-batch step's work.
  const ModelSpec& m = cell.config.model;
  const double macs = double(forward_macs_per_sample(m));
  const ModelFamily& family = model_family(m.encoding.kind);
  const double encode = family.encode_flops ? family.encode_flops(m.encoding) : 0.0; // a grid's lookups
  const double flops_per_row = 6 * macs + encode; // forward 2 flops per multiply-add, backward 4
  const double rate = k_cpu_flops_per_thread * std::max(threads, 1);
  const double picture = pixels * flops_per_row / 3 / rate;
  if (grid.time_limit > 0) return grid.time_limit + k_cell_overhead_seconds + picture;
  const double steps = double(cell.config.training.steps);
  return steps * double(cell_step_rows(cell)) * flops_per_row / rate + k_cell_overhead_seconds + picture;
}

double estimate_sweep_seconds(const SweepPlan& plan, const std::vector<int64_t>& cells, const SweepJobs& jobs) {
  // Greedy list scheduling, as the runner starts cells: each on the job slot that frees first.
  std::priority_queue<double, std::vector<double>, std::greater<>> free_at;
  for (int32_t i = 0; i < std::max(jobs.jobs, 1); ++i)
    free_at.push(0.0);
  double end = 0;
  for (const int64_t k : cells) {
    const double start = free_at.top();
    free_at.pop();
    const double finish = start + estimate_cell_seconds(plan.grid, plan.cells[size_t(k)], jobs.threads);
    free_at.push(finish);
    end = std::max(end, finish);
  }
  return end;
}

} // namespace redraw
