#pragma once
/// The headless commands behind `redraw train|render|info|timelapse`. main() parses the command
/// line into these structs; each run_* returns the exit code and reports errors itself.
#include "engine/backend_names.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace redraw::cli {

struct TrainCommand {
  std::string image;
  std::string preset; ///< empty with no config = the default preset
  std::string config; ///< JSON config file
  std::vector<std::string> sets; ///< --set KEY=VALUE: config fields over the preset or config (with_config_fields)
  std::string size;   ///< "WxH"
  std::optional<int32_t> max_side; ///< 0: the image's own size
  bool full = false;               ///< --full: train at the image's own size (--max-side 0)
  std::optional<int64_t> steps;
  std::optional<double> time_limit;
  std::string backend = k_auto_backend;
  std::string precision; ///< GPU matrix products: fp32 | tf32 | bf16 (empty = REDRAW_CUDA_PRECISION or fp32)
  std::string seed;      ///< decimal 0..2^64-1 (empty = the config's); checked by run_train
  std::string color;     ///< rgb | gray | binary (overrides the preset)
  std::string out = "redraw-out";
  int64_t checkpoint_every = 0; ///< 0 = only at the end
  std::string resume;
  bool quiet = false;
  std::optional<double> snapshot_cap_mb; ///< timelapse memory cap (default 256 MiB)
  std::optional<double> max_image_memory_mb; ///< decoded-image memory budget (default k_default_image_memory_bytes)
};

struct RenderCommand {
  std::string model;
  std::string size; ///< empty = the training size
  std::string out;
  std::optional<int64_t> snapshot;
  int bit_depth = 8;
  std::string backend = k_auto_backend;
  std::string precision;
  std::string compare; ///< original image: write [original upscaled | render] side by side
  std::optional<double> max_image_memory_mb; ///< for --compare's image
};

struct InfoCommand {
  std::string model;
  bool backends = false;
  bool json = false;
};

struct TimelapseCommand {
  std::string model;
  std::string size;
  double fps = 12;
  std::string out;
  bool overlay = false;
  std::string backend = k_auto_backend;
  std::string precision;
};

/// `redraw sweep`: a grid of train runs (app/cli_sweep.cpp; docs/cli.md, "redraw sweep").
struct SweepCommand {
  std::vector<std::string> images;  ///< image files and folders
  std::string presets;              ///< "A,B": preset names or config .json files
  std::vector<std::string> sets;    ///< each "KEY=V1,V2"
  std::string spec;                 ///< --spec FILE.json: the grid in a file
  std::optional<int32_t> seeds;
  std::optional<double> time_limit;
  std::optional<int64_t> steps;
  std::string size;                 ///< "WxH"
  std::optional<int32_t> max_side;
  std::optional<int32_t> jobs;      ///< cells side by side (default: by the rule of sweep_jobs.h)
  std::optional<int64_t> checkpoint_every;
  std::string backend;              ///< train's --backend (default auto)
  std::string out;                  ///< the sweep's folder (--out or the positional DIR)
  std::optional<int64_t> cell;      ///< --cell K: run cell K alone (a Slurm array task)
  bool collect = false;             ///< --collect: write results.csv, summary.csv, report.html
  bool dry_run = false;             ///< print the grid and the estimate, run nothing
  bool retry_failed = false;        ///< train failed cells again
  bool slurm = false;               ///< submit the grid as a Slurm job array
  std::string partition, time;      ///< sbatch --partition, --time
  std::optional<int32_t> gpus_per_task, cpus_per_task;
  std::vector<std::string> sbatch_args; ///< passed to sbatch as they are
};

/// `redraw bench`: a named protocol over a folder of images, as a sweep, and its table
/// (app/cli_bench.cpp; docs/benchmark.md).
struct BenchCommand {
  std::string protocol;             ///< kodak-paper | kodak-minute | smoke (engine/bench/bench_protocol.h)
  std::string images;               ///< the images' folder (default: the protocol's)
  std::string out;                  ///< the bench's folder
  std::string methods;              ///< "instant,siren": a subset of the protocol's methods (default: all)
  std::optional<double> time_limit; ///< overrides a timed protocol's seconds per cell (a quick check)
  std::optional<int32_t> jobs;      ///< cells side by side (default: by the rule of sweep_jobs.h)
  std::string backend;              ///< auto | cpu | cuda (default auto)
  bool dry_run = false;             ///< print the plan and the estimate, run nothing
  bool collect = false;             ///< train nothing: measure the done cells and write the table
  bool retry_failed = false;
  bool slurm = false;               ///< submit the cells as a Slurm job array (then bench --collect)
  std::string partition, time;
  std::optional<int32_t> gpus_per_task, cpus_per_task;
  std::vector<std::string> sbatch_args;
};

/// What `train` trains without --preset or --config: the app's first-launch preset too, fast on
/// a CPU at any size (a hash grid and minibatches).
constexpr const char* k_default_preset = "instant";

int run_train(const TrainCommand& o);
int run_render(const RenderCommand& o);
int run_info(const InfoCommand& o);
/// `redraw info IMAGE`: format, size, orientation, colour profile and the decoder's notes.
int run_image_info(const std::string& file, bool json);
/// True when the file name has one of the image extensions load_image reads.
bool is_image_path(const std::string& file);
int run_timelapse(const TimelapseCommand& o);
/// `threads`: the total CPU threads the cells share (0: every core).
int run_sweep(const SweepCommand& o, int threads);
/// `threads`: the total CPU threads the cells share (0: every core); decoding is timed with them.
int run_bench(const BenchCommand& o, int threads);

} // namespace redraw::cli
