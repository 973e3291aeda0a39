// `redraw sweep`: plans the grid, prints it with its estimate, then runs its cells here, submits
// them to Slurm, runs one of them (a Slurm task) or collects their results (cli_sweep.h).
#include "app/cli_sweep.h"

#include "app/backend_registry.h"
#include "app/cli_common.h"
#include "engine/atomic_file.h"
#include "engine/backend_names.h"
#include "engine/display_text.h"
#include "engine/errors.h"
#include "engine/images/image.h"
#include "engine/json_read.h"
#include "engine/path_problem.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <thread>

namespace redraw::cli {

std::string self_path() {
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw IoError("cannot find this program's path (/proc/self/exe: " + ec.message() + ")");
  return p.string();
}

namespace {
std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t comma; start <= text.size(); start = comma + 1) {
    comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string part = text.substr(start, comma - start);
    part.erase(0, part.find_first_not_of(' '));
    part.erase(part.find_last_not_of(' ') + 1);
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

bool has_grid_options(const SweepCommand& o) {
  return !o.images.empty() || !o.presets.empty() || !o.sets.empty() || !o.spec.empty() || o.seeds || o.time_limit ||
         o.steps || !o.size.empty() || o.max_side || o.checkpoint_every || !o.backend.empty();
}

/// The grid from --spec and the options (an option overrides the file).
SweepGrid grid_of(const SweepCommand& o) {
  SweepGrid g;
  if (!o.spec.empty()) {
    std::string text;
    if (const std::string why = read_user_text(o.spec, uint64_t(16) << 20, "a sweep spec", "16 MiB", text);
        !why.empty())
      throw IoError(why); // a file that cannot be read: exit 1; what it says is checked as options are
    g = parse_sweep_spec(parse_json(text, o.spec), o.spec);
  }
  if (!o.images.empty()) g.images = o.images;
  if (!o.presets.empty()) g.presets = split_list(o.presets);
  for (const std::string& s : o.sets)
    g.axes.push_back(parse_sweep_axis(s));
  if (o.seeds) g.seeds = *o.seeds;
  if (o.time_limit) std::tie(g.time_limit, g.steps) = std::pair{*o.time_limit, int64_t(0)};
  if (o.steps) {
    if (*o.steps < 1) throw UsageError("--steps: must be at least 1");
    std::tie(g.time_limit, g.steps) = std::pair{0.0, *o.steps};
  }
  if (!o.size.empty()) {
    parse_size(o.size, "--size", {k_max_train_side, k_max_train_pixels}, g.width, g.height);
    g.max_side = -1;
  }
  if (o.max_side) {
    if (*o.max_side < 0 || *o.max_side > k_max_train_side) throw UsageError("--max-side: must be from 0 to 16384");
    std::tie(g.max_side, g.width, g.height) = std::tuple{*o.max_side, 0, 0};
  }
  if (o.checkpoint_every) g.checkpoint_every = *o.checkpoint_every;
  if (!o.backend.empty()) g.backend = o.backend;
  return g;
}

/// The plan: the grid given, or the sweep saved in DIR when none is given (continuing it).
SweepPlan plan_of(const SweepCommand& o, const std::filesystem::path& dir) {
  std::error_code ec;
  const bool saved = std::filesystem::exists(dir / "sweep.json", ec);
  if (!has_grid_options(o)) {
    if (saved) return load_sweep_plan(dir);
    throw UsageError(
        "no grid: give --images and --presets (or --spec FILE.json), or the folder of a sweep to continue");
  }
  SweepPlan plan;
  try {
    plan = build_sweep_plan(grid_of(o));
  } catch (const ConfigError& e) {
    throw UsageError(e.what()); // the grid, from the options or --spec alike (docs/cli.md: exit 2)
  }
  if (saved && !same_sweep(plan, load_sweep_plan(dir)))
    throw UsageError(dir.string() + " holds another sweep (its sweep.json): give the same grid to continue it, or "
                                    "another --out");
  return plan;
}

std::string joined_first(const std::vector<std::string>& items, size_t most = 8) {
  std::string s;
  for (size_t i = 0; i < items.size() && i < most; ++i)
    s += (i ? ", " : "") + items[i];
  if (items.size() > most) s += ", ... (" + std::to_string(items.size()) + ")";
  return s;
}

void print_grid(const SweepSite& site, const std::vector<int64_t>& todo, const SweepJobs& jobs, int32_t cores,
                bool slurm) {
  const SweepPlan& p = *site.plan;
  const SweepGrid& g = p.grid;
  std::string axes = std::to_string(g.images.size()) + " image(s) x " + std::to_string(g.presets.size()) + " preset(s)";
  for (const SweepAxis& a : g.axes)
    axes += " x " + std::to_string(a.values.size()) + " " + a.key;
  std::printf("sweep %s: %zu cells = %s x %d seed(s)\n", escape_control(site.dir.string()).c_str(), p.cells.size(),
              axes.c_str(), g.seeds);
  std::vector<std::string> names;
  for (const std::string& i : g.images)
    names.push_back(std::filesystem::path(i).filename().string());
  std::printf("  images    %s\n  presets   %s\n", escape_control(joined_first(names)).c_str(),
              escape_control(joined_first(g.presets)).c_str());
  for (const SweepAxis& a : g.axes) {
    std::vector<std::string> labels;
    for (const std::string& v : a.values)
      labels.push_back(sweep_value_label(v));
    std::printf("  %-9s %s\n", escape_control(a.key).c_str(), escape_control(joined_first(labels, 20)).c_str());
  }
  std::printf("  seeds     1..%d\n", g.seeds);
  if (g.time_limit > 0)
    std::printf("  each cell %s of training\n", format_seconds(g.time_limit).c_str());
  else
    std::printf("  each cell %s\n", g.steps > 0 ? (std::to_string(g.steps) + " steps").c_str() : "its preset's steps");
  std::printf("  to run    %zu of %zu cells (%zu ended before)\n", todo.size(), p.cells.size(),
              p.cells.size() - todo.size());
  if (slurm) {
    std::printf("  jobs      a Slurm array task per cell, with the CPUs the task gets\n");
    std::fflush(stdout);
    return;
  }
  std::printf("  jobs      %d side by side, %s each, on %d core(s)\n", jobs.jobs,
              jobs.threads > 0 ? (std::to_string(jobs.threads) + " CPU thread(s)").c_str() : "the GPU", cores);
  std::printf("  estimate  %s%s\n", format_seconds(estimate_sweep_seconds(p, todo, jobs)).c_str(),
              g.time_limit > 0 ? "" : " (rough: from the networks' sizes and a typical CPU)");
  // More cells than cores finish a timed grid sooner only by giving each cell less than a core.
  if (jobs.threads > 0 && int64_t(jobs.jobs) * jobs.threads > cores)
    std::printf("  note      %d cells share %d core(s): each trains at less than a core, so under --time-limit "
                "they take fewer steps and compare less well\n",
                jobs.jobs, cores);
  std::fflush(stdout);
}


/// A Slurm task's threads: --threads, else the CPUs Slurm gave the task, else train's choice.
int32_t task_threads(int threads) {
  if (threads > 0) return threads;
  for (const char* var : {"SLURM_CPUS_PER_TASK", "SLURM_CPUS_ON_NODE"})
    if (const char* v = std::getenv(var); v && std::atoi(v) > 0) return std::atoi(v);
  return 0;
}

int run_saved(const SweepCommand& o, SweepSite& site, SweepPlan& plan, int threads) {
  if (has_grid_options(o) || o.slurm || o.dry_run)
    throw UsageError(std::string(o.collect ? "--collect" : "--cell") +
                     " works on the sweep saved in DIR: give no grid, "
                     "--slurm or --dry-run options");
  plan = load_sweep_plan(site.dir);
  if (o.collect) {
    const auto results = collect_sweep(site);
    std::printf("%s: results.csv, summary.csv, report.html (%zu cells)\n", escape_control(site.dir.string()).c_str(),
                results.size());
    return k_exit_ok;
  }
  if (*o.cell >= int64_t(plan.cells.size()))
    throw UsageError("--cell " + std::to_string(*o.cell) + ": the sweep has cells 0.." +
                     std::to_string(plan.cells.size() - 1));
  install_interrupt_handler();
  return run_one_cell(site, *o.cell, task_threads(threads));
}
} // namespace

/// The cells that have not ended (a failed one too with --retry-failed).
std::vector<int64_t> cells_to_run(const SweepSite& site) {
  std::vector<int64_t> todo;
  for (const SweepCell& c : site.plan->cells) {
    const CellStatus s = read_cell_result(site.dir, c).status;
    if (s != CellStatus::Done && (s != CellStatus::Failed || site.retry_failed)) todo.push_back(c.index);
  }
  return todo;
}

int run_sweep(const SweepCommand& o, int threads) {
  if (o.out.empty()) throw UsageError("give the sweep's folder: --out DIR");
  if (o.cell && o.collect) throw UsageError("--cell and --collect: give one, not both");
  SweepPlan plan;
  SweepSite site;
  site.dir = std::filesystem::absolute(o.out).lexically_normal();
  site.plan = &plan;
  site.redraw = self_path();
  site.retry_failed = o.retry_failed;
  if (o.collect || o.cell) return run_saved(o, site, plan, threads);

  plan = plan_of(o, site.dir);
  const int32_t cores = threads > 0 ? threads : int32_t(std::max(1u, std::thread::hardware_concurrency()));
  const bool gpu = gpu_usable_for(plan.grid.backend);
  const std::vector<int64_t> todo = cells_to_run(site);
  const SweepJobs jobs = plan_sweep_jobs(plan, int64_t(todo.size()), cores, gpu, o.jobs.value_or(0));
  if (o.slurm) check_slurm_options(site, o); // before anything is written
  print_grid(site, todo, jobs, cores, o.slurm);
  if (o.dry_run) return k_exit_ok;
  std::error_code ec;
  std::filesystem::create_directories(site.dir, ec);
  if (ec) throw IoError(site.dir.string() + ": cannot create the sweep's folder (" + ec.message() + ")");
  make_own_folder(site.dir / "cells"); // refused, naming it, when a link or a file is there
  save_sweep_plan(site.dir, plan);
  if (o.slurm) return submit_sweep(site, o);

  install_interrupt_handler();
  const std::vector<int64_t> busy = run_sweep_cells(site, todo, jobs);
  const auto results = collect_sweep(site);
  int64_t done = 0, failed = 0;
  for (const CellResult& r : results) {
    done += r.status == CellStatus::Done;
    failed += r.status == CellStatus::Failed;
  }
  // The cells another process was running, and still is (those that ended meanwhile count above).
  std::vector<std::string> elsewhere;
  for (const int64_t i : busy)
    if (results[size_t(i)].status != CellStatus::Done && results[size_t(i)].status != CellStatus::Failed)
      elsewhere.push_back(shown_name(plan.cells[size_t(i)]));
  std::printf("sweep: %lld of %zu cells done, %lld failed%s -> %s\n", static_cast<long long>(done), results.size(),
              static_cast<long long>(failed),
              elsewhere.empty() ? ""
                                : (", " + std::to_string(elsewhere.size()) + " running in another process (" +
                                   joined_first(elsewhere) + "): run the sweep again once they end")
                                      .c_str(),
              escape_control((site.dir / "report.html").string()).c_str());
  if (interrupted()) return interrupted_exit_code();
  if (failed > 0) return k_exit_failure;
  return elsewhere.empty() ? k_exit_ok : k_exit_cells_elsewhere;
}

} // namespace redraw::cli
