// `redraw bench PROTOCOL`: the protocol's images x methods x seeds planned as a sweep (each cell's
// network sized to its method's budget), printed, run here or submitted to Slurm, then each done
// cell measured and the table written (cli_bench.h; docs/benchmark.md).
#include "app/cli_bench.h"

#include "app/backend_registry.h"
#include "app/cli_common.h"
#include "app/cli_version.h"
#include "engine/atomic_file.h"
#include "engine/backend_names.h"
#include "engine/display_text.h"
#include "engine/errors.h"
#include "engine/json_read.h"
#include "engine/model_family.h"
#include "engine/path_problem.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <thread>

namespace redraw::cli {

namespace {
/// The protocol's images: the folder's image files by name, the first image_count of them, and at
/// most as many as one bench holds (bench_max_images). Each problem is a usage error naming the
/// folder, and for a default folder where the images come from.
std::vector<std::string> protocol_images(const BenchProtocol& p, const std::string& option) {
  const std::filesystem::path folder = option.empty() ? bench_default_images(p) : std::filesystem::path(option);
  if (folder.empty()) throw UsageError("protocol " + p.name + " has no default images: give --images DIR");
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::absolute(folder).lexically_normal();
  const bool bundled = option.empty() && p.default_images.empty();
  if (bundled && std::filesystem::is_regular_file(dir, ec)) return {dir.string()}; // the one bundled image
  if (!std::filesystem::is_directory(dir, ec)) {
    if (!option.empty())
      throw UsageError("--images: " + option + " (" + dir.string() + ") is not a folder");
    std::string why = "the default images of protocol " + p.name + ", " +
                      (bundled ? p.bundled_image + " in the data folder" : p.default_images + " from the current folder") +
                      " (" + dir.string() + "), " + (bundled ? "is not a file" : "is not a folder");
    if (bundled) why += " (the data folder is incomplete: reinstall redraw, or set REDRAW_ASSETS)";
    if (!p.images_source.empty()) why += "; " + p.images_source;
    throw UsageError(why + (p.images_source.empty() ? "; give a folder of images with --images DIR"
                                                     : "; download them and give their folder with --images DIR"));
  }
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.is_regular_file(ec) && is_image_path(e.path().string())) files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  if (p.image_count > 0 && int32_t(files.size()) > p.image_count) files.resize(size_t(p.image_count));
  if (files.empty() || (p.image_count > 0 && int32_t(files.size()) < p.image_count))
    throw UsageError(dir.string() + ": holds " + std::to_string(files.size()) + " image(s); protocol " + p.name +
                     " needs " + (p.image_count > 0 ? std::to_string(p.image_count) : std::string("at least 1")));
  // A bench is one sweep: an image is a cell per method and seed, and a sweep runs at most
  // k_max_sweep_cells. A bench cannot split itself, so the user is told how to bench fewer images.
  if (const int64_t most = bench_max_images(p); int64_t(files.size()) > most)
    throw UsageError(dir.string() + ": holds " + std::to_string(files.size()) + " images; a bench runs at most " +
                     std::to_string(k_max_sweep_cells) + " cells (one per image, method and seed), so protocol " +
                     p.name + " with " + std::to_string(p.methods.size()) + " method(s) and " +
                     std::to_string(p.seeds) + " seed(s) takes at most " + std::to_string(most) +
                     " images: give --images a folder of at most " + std::to_string(most) +
                     " of them (links to the images to bench will do)" +
                     (p.methods.size() > 1 ? std::string(", or fewer --methods") : std::string()));
  if (p.expected_images > 0 && int32_t(files.size()) != p.expected_images)
    print_note(dir.string() + " holds " + std::to_string(files.size()) + " images; protocol " + p.name +
               " is defined on " + std::to_string(p.expected_images) + " (the table says so)");
  return files;
}

const BenchMethod& method_of(const BenchProtocol& p, const std::string& preset) {
  for (const BenchMethod& m : p.methods)
    if (m.preset == preset) return m;
  throw ConfigError("the plan names method " + preset + ", which protocol " + p.name + " does not have");
}

/// The sweep: images x methods x seeds, each cell's config that of its method sized for its image.
SweepPlan bench_plan(const BenchProtocol& p, const std::vector<std::string>& images, const std::string& backend,
                     double time_limit) {
  SweepGrid g;
  g.images = images;
  for (const BenchMethod& m : p.methods)
    g.presets.push_back(m.preset);
  g.seeds = p.seeds;
  g.time_limit = time_limit;
  g.max_side = p.max_side;
  g.backend = backend.empty() ? k_auto_backend : backend;
  SweepPlan plan = build_sweep_plan(g);
  for (SweepCell& cell : plan.cells) {
    const uint64_t seed = cell.config.training.seed;
    RunConfig c = bench_method_config(p, method_of(p, cell.preset), cell.train_width, cell.train_height);
    c.training.seed = seed;
    c.data.max_side = cell.config.data.max_side;
    cell.config =
        parse_run_config(to_json(c), "method " + cell.preset + " of protocol " + p.name); // checked as train reads it
  }
  return plan;
}

std::vector<PublishedRow> published_rows(const BenchProtocol& p) {
  if (p.published.empty()) return {};
  const std::filesystem::path file = asset_dir() / "published" / (p.published + ".json");
  std::string text;
  if (const std::string why = read_user_text(file, 1 << 20, "a table of published rows", "1 MiB", text); !why.empty())
    throw ConfigError(why);
  return parse_published_rows(parse_json(text, file.string()), file.string());
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      std::string m = line.substr(line.find(':') + 1);
      m.erase(0, m.find_first_not_of(' '));
      return m;
    }
  return "unknown CPU";
}

/// The header's device and driver lines, from `describe_backends` and the cells' backend.
void describe_device(const std::vector<CellResult>& results, BenchHeader& h) {
  std::string gpu; // the GPU backend a cell trained on, if any
  for (const CellResult& r : results)
    if (is_gpu_backend(r.backend)) gpu = r.backend;
  const std::string backends = describe_backends();
  h.device = cpu_model() + ", " + std::to_string(std::thread::hardware_concurrency()) + " hardware threads";
  h.driver = "none (CPU backend)";
  const size_t at = gpu.empty() ? std::string::npos : backends.find(gpu + ":");
  if (at != std::string::npos) {
    const std::string line = backends.substr(at, backends.find('\n', at) - at);
    h.device = line + "; host " + h.device;
    h.driver = line;
  }
}

void print_plan(const BenchProtocol& p, const SweepPlan& plan, const std::filesystem::path& dir,
                const std::vector<int64_t>& todo, const SweepJobs& jobs, int32_t cores) {
  std::printf("bench %s -> %s: %zu cells = %zu image(s) x %zu method(s) x %d seed(s)\n", p.name.c_str(),
              escape_control(dir.string()).c_str(), plan.cells.size(), plan.grid.images.size(), p.methods.size(),
              p.seeds);
  const std::string first = std::filesystem::path(plan.grid.images.front()).filename().string(),
                    last = std::filesystem::path(plan.grid.images.back()).filename().string();
  if (plan.grid.images.size() == 1)
    std::printf("  images    %s (%s)\n", escape_control(first).c_str(),
                escape_control(plan.grid.images.front()).c_str());
  else
    std::printf("  images    %s .. %s\n", escape_control(first).c_str(), escape_control(last).c_str());
  for (const BenchMethod& m : p.methods)
    for (const SweepCell& c : plan.cells)
      if (c.preset == m.preset) {
        const ModelSpec& model = c.config.model;
        const std::string shape = model_shape(model);
        std::printf("  %-9s budget %lld: %lld parameters, %s, at %dx%d, %s\n", m.preset.c_str(),
                    static_cast<long long>(m.budget), static_cast<long long>(parameter_count(model)), shape.c_str(),
                    c.train_width, c.train_height,
                    plan.grid.time_limit > 0 ? (format_seconds(plan.grid.time_limit) + " of training").c_str()
                                             : (std::to_string(c.config.training.steps) + " steps").c_str());
        break;
      }
  std::printf("  to run    %zu of %zu cells (%zu ended before)\n", todo.size(), plan.cells.size(),
              plan.cells.size() - todo.size());
  std::printf("  jobs      %d side by side, %s each, on %d core(s)\n", jobs.jobs,
              jobs.threads > 0 ? (std::to_string(jobs.threads) + " CPU thread(s)").c_str() : "the GPU", cores);
  std::printf("  estimate  %s of training%s, then a few seconds per cell to measure\n",
              format_seconds(estimate_sweep_seconds(plan, todo, jobs)).c_str(),
              plan.grid.time_limit > 0 ? "" : " (rough)");
  std::fflush(stdout);
}

/// The table's header. How the cells trained is read from their results (a second run or
/// --collect trains nothing itself).
BenchHeader bench_header(const BenchProtocol& p, const BenchCommand& o, const std::vector<std::string>& images,
                         const std::vector<CellResult>& results, int32_t cores) {
  BenchHeader h;
  h.protocol = p.name;
  h.summary = p.summary;
  h.images_folder = std::filesystem::path(images.front()).parent_path().string();
  h.image_count = int32_t(images.size());
  h.threads = cores;
  h.seeds = p.seeds;
  h.commit = version_line();
  describe_device(results, h);
  std::set<std::string> how;
  for (const CellResult& r : results)
    if (r.status == CellStatus::Done)
      how.insert(is_gpu_backend(r.backend) ? std::string("on the GPU")
                                           : "with " + std::to_string(r.threads) + " CPU thread(s) each");
  std::string note;
  if (o.time_limit)
    note += "--time-limit " + format_seconds(*o.time_limit) + " per cell (the protocol's is " +
            format_seconds(p.time_limit) + "); ";
  if (p.expected_images > 0 && int32_t(images.size()) != p.expected_images)
    note += std::to_string(images.size()) + " images, not the protocol's " + std::to_string(p.expected_images) + "; ";
  std::string trained;
  for (const std::string& t : how)
    trained += (trained.empty() ? "" : ", ") + t;
  note += "cells trained " + (trained.empty() ? std::string("(none done)") : trained) +
          "; decode FPS timed after training, alone" +
          (how.count("on the GPU") ? std::string(": on the GPU, renders into device memory (RGBA8, as the live view draws), "
                                               "each waited for (synchronised); GaussianImage's published FPS is "
                                               "timed without synchronisation")
                                   : ", with " + std::to_string(cores) + " thread(s)");
  h.note = note;
  return h;
}

SweepCommand slurm_options(const BenchCommand& o) {
  SweepCommand s;
  s.out = o.out;
  s.slurm = true;
  s.partition = o.partition;
  s.time = o.time;
  s.gpus_per_task = o.gpus_per_task;
  s.cpus_per_task = o.cpus_per_task;
  s.sbatch_args = o.sbatch_args;
  return s;
}
/// The sweep site a bench runs in: its folder, plan and title, and the published rows as the
/// report's reference lines.
SweepSite bench_site(const BenchCommand& o, const BenchProtocol& p, const SweepPlan& plan,
                     const std::vector<PublishedRow>& published) {
  SweepSite site;
  site.dir = std::filesystem::absolute(o.out).lexically_normal();
  site.plan = &plan;
  site.redraw = self_path();
  site.retry_failed = o.retry_failed;
  site.title = "Redraw bench " + p.name;
  for (const PublishedRow& r : published)
    site.references.push_back({r.method + " (published" +
                                   (r.parameters > 0 ? ", " + std::to_string(r.parameters / 1000) + "K" : "") +
                                   (std::isfinite(r.train_seconds) ? ", " + format_seconds(r.train_seconds) : "") + ")",
                               r.psnr_db});
  return site;
}

} // namespace

int run_bench(const BenchCommand& o, int threads) {
  if (o.out.empty()) throw UsageError("give the bench's folder: --out DIR");
  BenchProtocol p;
  try {
    p = select_bench_methods(find_bench_protocol(o.protocol), o.methods);
  } catch (const ConfigError& e) {
    throw UsageError(e.what());
  }
  if (o.collect && (o.slurm || o.dry_run || o.retry_failed))
    throw UsageError("--collect trains nothing: give no --slurm, --dry-run or --retry-failed with it");
  if (o.time_limit && !(*o.time_limit > 0)) throw UsageError("--time-limit: must be a positive number of seconds");
  const bool stepped =
      std::any_of(p.methods.begin(), p.methods.end(), [](const BenchMethod& m) { return m.steps > 0; });
  if (o.time_limit && stepped)
    throw UsageError("--time-limit: protocol " + p.name + " trains its methods for a number of steps, not a time");
  const double time_limit = o.time_limit ? *o.time_limit : (stepped ? 0.0 : p.time_limit);
  const std::vector<std::string> images = protocol_images(p, o.images);
  const std::vector<PublishedRow> published = published_rows(p); // a broken data file is refused before training

  SweepPlan plan = bench_plan(p, images, o.backend, time_limit);
  const SweepSite site = bench_site(o, p, plan, published);
  std::error_code ec;
  const bool saved = std::filesystem::exists(site.dir / "sweep.json", ec);
  if (o.collect && !saved)
    throw UsageError(site.dir.string() + " holds no bench (no sweep.json): run it without --collect first");
  if (saved && !same_sweep(plan, load_sweep_plan(site.dir)))
    throw UsageError(site.dir.string() + " holds another bench or sweep (its sweep.json): give the same protocol, "
                                         "--methods, --images and --time-limit to continue it, or another --out");
  const int32_t cores = threads > 0 ? threads : int32_t(std::max(1u, std::thread::hardware_concurrency()));
  const bool gpu = gpu_usable_for(plan.grid.backend);
  const std::vector<int64_t> todo = cells_to_run(site);
  const SweepJobs jobs = plan_sweep_jobs(plan, int64_t(todo.size()), cores, gpu, o.jobs.value_or(0));
  const SweepCommand slurm = slurm_options(o);
  if (o.slurm) check_slurm_options(site, slurm);
  if (!o.collect) print_plan(p, plan, site.dir, todo, jobs, cores);
  if (o.dry_run) return k_exit_ok;
  std::filesystem::create_directories(site.dir, ec);
  if (ec) throw IoError(site.dir.string() + ": cannot create the bench's folder (" + ec.message() + ")");
  make_own_folder(site.dir / "cells");
  if (!o.collect) save_sweep_plan(site.dir, plan);
  if (o.slurm) {
    const int code = submit_sweep(site, slurm);
    if (code == k_exit_ok)
      std::printf("when the jobs have ended, run this command again with --collect instead of --slurm to measure "
                  "and write the table\n");
    return code;
  }

  install_interrupt_handler();
  const std::vector<int64_t> busy = o.collect ? std::vector<int64_t>{} : run_sweep_cells(site, todo, jobs);
  if (interrupted()) return interrupted_exit_code();
  const std::vector<CellResult> results = read_sweep_results(site.dir, plan);
  std::vector<BenchCell> cells;
  const std::string decode_backend = gpu ? backend_taken_by(plan.grid.backend) : k_cpu_backend.name;
  Progress progress("measure");
  for (size_t i = 0; i < plan.cells.size() && !interrupted(); ++i) {
    progress.update(double(i) / double(plan.cells.size()), plan.cells[i].name);
    cells.push_back(
        measure_bench_cell(site, plan.cells[i], results[i], method_of(p, plan.cells[i].preset), decode_backend, 1.0));
  }
  progress.finish(std::to_string(cells.size()) + " cells measured");
  if (interrupted()) return interrupted_exit_code();

  const BenchHeader h = bench_header(p, o, images, results, cores);
  std::vector<std::string> methods;
  for (const BenchMethod& m : p.methods)
    methods.push_back(m.preset);
  write_bench_files(site, results, h, methods, cells, published);
  int64_t done = 0, failed = 0;
  for (const CellResult& r : results) {
    done += r.status == CellStatus::Done;
    failed += r.status == CellStatus::Failed;
  }
  std::printf("bench %s: %lld of %zu cells done, %lld failed -> %s\n", p.name.c_str(), static_cast<long long>(done),
              results.size(), static_cast<long long>(failed), escape_control((site.dir / "table.md").string()).c_str());
  if (o.collect) return failed > 0 ? k_exit_failure : k_exit_ok; // cells not ended yet are shown as such
  // Cells another process (another bench or sweep on this folder) was running and still is: named,
  // and the sweep's exit code for them, so a script knows to run the bench again once they end.
  std::vector<std::string> elsewhere;
  for (const int64_t i : busy)
    if (results[size_t(i)].status != CellStatus::Done && results[size_t(i)].status != CellStatus::Failed)
      elsewhere.push_back(shown_name(plan.cells[size_t(i)]));
  if (!elsewhere.empty() && failed == 0) {
    std::string names;
    for (size_t i = 0; i < elsewhere.size() && i < 8; ++i)
      names += (i ? ", " : "") + elsewhere[i];
    if (elsewhere.size() > 8) names += ", ...";
    std::printf("bench %s: %zu cell(s) running in another process (%s): run the bench again once they end\n",
                p.name.c_str(), elsewhere.size(), names.c_str());
    return k_exit_cells_elsewhere;
  }
  return failed > 0 || done < int64_t(results.size()) ? k_exit_failure : k_exit_ok;
}

} // namespace redraw::cli
