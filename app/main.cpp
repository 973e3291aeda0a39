/// redraw: the desktop app and its headless commands.
///   redraw [IMAGE]            open the app (on the bundled default image when none is given); a
///                             word that is neither a command nor an existing file is a usage error
///   redraw gui [IMAGE] ...    the same, with options for scripted screenshots
///   redraw train IMAGE ...    train headless, write final.png, model.redraw, metrics.csv, spectrum.csv
///   redraw render MODEL ...   render a model (or one of its snapshots) at any size
///   redraw timelapse MODEL .. export the training timelapse as GIF, MP4 or PNG frames
///   redraw info MODEL         print a model's config and progress; --backends lists devices
/// Exit codes: 0 success, 1 failure, 2 usage error, 128 + signal when interrupted (130 Ctrl+C,
/// 143 SIGTERM, 129 SIGHUP). Errors go to stderr as "error: ...".
#include "app/backend_registry.h"
#include "app/cli_commands.h"
#include "app/cli_export_weights.h"
#include "app/cli_common.h"
#include "app/cli_openmp_env.h"
#include "app/cli_usage_hints.h"
#include "app/cli_version.h"
#include "engine/backend_names.h"
#include "engine/bench/bench_protocol.h"
#include "engine/config_fields.h"
#include "engine/thread_budget.h"
#include "engine/errors.h"
#include "engine/run_config.h"
#include "engine/thread_settle.h"

#include "ui/window/gui_app.h" // plain declarations; run_gui exists only when REDRAW_HAVE_GUI
#include <cstdlib>

#include <CLI/CLI.hpp>

#include <cmath>
#include <csignal>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>

using namespace redraw;
using namespace redraw::cli;

namespace {

/// `gui --set` checked before a window opens, over --preset (or the first launch's preset when
/// the app will start from a remembered one): a bad key or value is a usage error (exit 2).
void check_gui_sets(const GuiOptions& gui) {
  if (gui.sets.empty()) return;
  const std::string preset = gui.preset.empty() ? k_default_preset : gui.preset;
  try {
    const bool file = std::filesystem::path(preset).extension() == ".json";
    (void)with_config_fields(file ? load_run_config(preset) : load_preset(preset), gui.sets,
                             file ? preset : "preset " + preset);
  } catch (const ConfigError& e) {
    throw UsageError(e.what());
  }
}

int open_gui(const GuiOptions* opts_in) {
#if REDRAW_HAVE_GUI
  GuiOptions opts = *opts_in;
  opts.make_backend = backend_factory();
  opts.about_version = version_text();
  opts.about_licences = licences_text();
  opts.testing.print_stats = std::getenv("REDRAW_GUI_STATS") != nullptr; // one line a second on stderr
  if (may_use_gpu(opts.backend)) opts.interop = make_device_interop(); // null without a usable GPU
  const int code = run_gui(opts);
  // The sessions' threads are joined, but OpenMP's workers of each end on their own: let them go
  // before exit (LeakSanitizer's exit-time check crashes when a thread ends meanwhile).
  wait_for_thread_count_to_settle();
  return code;
#else
  (void)opts_in;
  print_error("this build of redraw has no desktop app (configured with -DREDRAW_GUI=OFF); use `redraw train IMAGE`");
  return k_exit_failure;
#endif
}

/// A number above (or, with zero_ok, at least) zero. CLI11's PositiveNumber answers 0 with "Value
/// 0 not in range 0.000000 to 1.79769e+308"; this says what the option needs.
CLI::Validator number_above_zero(bool zero_ok) {
  return CLI::Validator(
      [zero_ok](std::string& text) -> std::string {
        double v = 0;
        const bool number = CLI::detail::lexical_cast(text, v) && std::isfinite(v);
        if (number && (v > 0 || (zero_ok && v == 0))) return {};
        return std::string(zero_ok ? "must be zero or a positive number" : "must be a positive number") + ", not '" +
               text + "'";
      },
      zero_ok ? "NUMBER >= 0" : "NUMBER > 0");
}


// ---- the commands' options: one function each --------------------------------------------

void image_memory_option(CLI::App* cmd, std::optional<double>& megabytes, const std::string& what) {
  cmd->add_option("--max-image-memory", megabytes, "Memory budget in MiB for decoding " + what + " (default 1024)");
}

void model_options(CLI::App* cmd, std::string& model, std::string& size, const std::string& what) {
  cmd->add_option("model", model, ".redraw model")->required();
  cmd->add_option("--size", size, what + " WxH (default: the training size)");
}

/// --backend: its choices and help from the backend records (engine/backend_names.h).
void backend_option(CLI::App* cmd, std::string& backend) {
  cmd->add_option("--backend", backend, backend_choices_text())->check(CLI::IsMember(backend_choices()));
}

/// --precision: "auto" and every backend's precisions (engine/backend_names.h).
void precision_option(CLI::App* cmd, std::string& precision) {
  std::vector<std::string> named = precision_choices();
  named.erase(named.begin()); // "auto", described first
  cmd->add_option("--precision", precision,
                  "GPU matrix products: auto (default: fused fp16 for narrow nets, else fp32), " + or_list(named))
      ->check(CLI::IsMember(precision_choices()));
}

/// --backend, --precision and --threads (the CPU backend's team), alike for every command that
/// trains or renders.
void device_options(CLI::App* cmd, std::string& backend, std::string& precision, int& threads) {
  backend_option(cmd, backend);
  precision_option(cmd, precision);
  cmd->add_option("--threads", threads, "CPU threads (default 0: measured, all cores or fewer when that is faster)")
      ->check(CLI::Range(0, 1024));
}

CLI::App* add_gui_command(CLI::App& app, GuiOptions& gui, std::optional<double>& image_memory_mb) {
  auto* cmd = app.add_subcommand("gui", "Open the desktop app");
  cmd->add_option("image", gui.image, "Image to open (default: the bundled drawing)");
  cmd->add_option("--model", gui.model, "A .redraw model to open");
  cmd->add_option("--preset", gui.preset, "Preset to start with (" + preset_list_text() + ")");
  cmd->add_option("--set", gui.sets, "A config field over the preset: KEY=VALUE (e.g. model.gaussians=70000); repeatable")
      ->allow_extra_args(false);
  backend_option(cmd, gui.backend);
  precision_option(cmd, gui.precision);
  cmd->add_flag("--autostart", gui.autostart, "Start training at once");
  cmd->add_option("--time-limit", gui.testing.time_limit,
                  "After this many seconds of training: print the steps done and quit (benchmarks)")
      ->check(number_above_zero(false));
  cmd->add_flag("--about", gui.show_about, "Open the About box (version and licences) at start");
  cmd->add_option("--screenshot", gui.testing.screenshot, "Write the window as PNG, then exit");
  cmd->add_option("--screenshot-after-steps", gui.testing.screenshot_after_steps,
                  "Steps to train before the screenshot")
      ->check(number_above_zero(true));
  cmd->add_option("--ui-scale", gui.ui_scale, "UI scale for this session, times the monitor's (0.5 to 4)")
      ->check(CLI::Range(0.5f, 4.0f));
  cmd->add_flag("--perf", gui.show_perf, "Open the performance panel at start");
  cmd->add_option("--max-image-memory", image_memory_mb,
                  "Memory budget in MiB for decoding images in this session (default: Machine > Image memory, "
                  "1024 until set)");
  cmd->add_option("--test-resize", gui.testing.test_resize,
                  "With --screenshot: shrink the window to WxH and back first (a layout test)");
  cmd->add_option("--test-script", gui.testing.test_script,
                  "Test hook: drive the window from a script of keys, drops and checks (see ui/testing/test_script.h); "
                  "exit 0 when it passes")
      ->group("Test hooks");
  return cmd;
}

CLI::App* add_train_command(CLI::App& app, TrainCommand& train, int& threads) {
  auto* cmd = app.add_subcommand("train", "Train headless on an image");
  cmd->add_option("image", train.image, "Image file (PNG, JPEG, WebP, TIFF, HEIC, AVIF, OpenEXR, GIF, BMP, TGA, PNM)")
      ->required();
  auto* preset_opt = cmd->add_option("--preset", train.preset,
                                     "Preset name (" + preset_list_text() + "); without it and --config: instant");
  auto* config_opt = cmd->add_option("--config", train.config, "Run config JSON file");
  preset_opt->excludes(config_opt);
  cmd->add_option("--set", train.sets,
                  "A config field over the preset or config: KEY=VALUE (e.g. model.gaussians=70000); repeatable")
      ->allow_extra_args(false);
  auto* size_opt = cmd->add_option("--size", train.size, "Training size WxH");
  auto* max_side_opt =
      cmd->add_option("--max-side", train.max_side, "Longest training side, aspect kept (0: full resolution)")
          ->excludes(size_opt);
  cmd->add_flag("--full", train.full, "Train at full resolution (--max-side 0)")->excludes(size_opt)->excludes(max_side_opt);
  cmd->add_option("--steps", train.steps, "Total steps");
  cmd->add_option("--time-limit", train.time_limit,
                  "Stop after this many seconds of training; the schedule anneals to this deadline");
  cmd->add_option("--seed", train.seed, "Random seed, 0..18446744073709551615");
  cmd->add_option("--color", train.color, "Colour mode: auto (gray for a grey image), rgb, gray or binary")
      ->check(CLI::IsMember({"rgb", "gray", "binary", "auto"}));
  cmd->add_option("--out", train.out, "Output folder")->capture_default_str();
  cmd->add_option("--checkpoint-every", train.checkpoint_every, "Save model.redraw every N steps");
  cmd->add_option("--resume", train.resume, "Continue from a .redraw model");
  cmd->add_flag("--quiet", train.quiet, "No progress output");
  cmd->add_option("--snapshot-cap-mb", train.snapshot_cap_mb, "Memory cap of the timelapse snapshots in MiB (default 256)")
      ->check(number_above_zero(false));
  image_memory_option(cmd, train.max_image_memory_mb, "the image");
  device_options(cmd, train.backend, train.precision, threads);
  return cmd;
}

CLI::App* add_render_command(CLI::App& app, RenderCommand& render, int& threads) {
  auto* cmd = app.add_subcommand("render", "Render a model at any size");
  model_options(cmd, render.model, render.size, "Output size");
  cmd->add_option("-o,--output", render.out, "Output .png (8/16-bit), .tif (16-bit) or .exr (32-bit float)")->required();
  cmd->add_option("--snapshot", render.snapshot, "Timelapse snapshot index (0-based, -1 = last)");
  cmd->add_option("--bit-depth", render.bit_depth, "8 or 16")->check(CLI::IsMember({8, 16}));
  cmd->add_option("--compare", render.compare,
                  "Original image: write it upscaled bicubically beside the render (output is 2W x H)");
  image_memory_option(cmd, render.max_image_memory_mb, "the --compare image");
  device_options(cmd, render.backend, render.precision, threads);
  return cmd;
}

CLI::App* add_timelapse_command(CLI::App& app, TimelapseCommand& lapse, int& threads) {
  auto* cmd = app.add_subcommand("timelapse", "Export the training timelapse (GIF, MP4 or PNG frames)");
  model_options(cmd, lapse.model, lapse.size, "Frame size");
  cmd->add_option("--fps", lapse.fps, "Frames per second")->check(CLI::Range(0.1, 120.0));
  cmd->add_option("-o,--output", lapse.out, "OUT.gif, OUT.mp4 or a folder DIR/ for PNG frames")->required();
  cmd->add_flag("--overlay", lapse.overlay, "Draw the step and PSNR on each frame");
  device_options(cmd, lapse.backend, lapse.precision, threads);
  return cmd;
}

CLI::App* add_sweep_command(CLI::App& app, SweepCommand& sweep, int& threads) {
  auto* cmd = app.add_subcommand("sweep", "Train a grid of runs: images x presets x config values x seeds");
  cmd->add_option("--images", sweep.images, "Image files and folders of images")->expected(1, -1);
  cmd->add_option("--presets", sweep.presets, "Presets (" + preset_list_text() + ") or config .json files, comma-separated: A,B,...");
  cmd->add_option("--set", sweep.sets, "A config field and its values: KEY=V1,V2 (e.g. model.omega_0=20,30); repeatable")
      ->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--spec", sweep.spec, "The grid in a JSON file (docs/cli.md)");
  cmd->add_option("--seeds", sweep.seeds, "Seeds per configuration: 1..N (default 1)")->check(CLI::Range(1, 1000));
  auto* limit = cmd->add_option("--time-limit", sweep.time_limit, "Seconds of training per cell")
                    ->check(number_above_zero(false));
  cmd->add_option("--steps", sweep.steps, "Steps per cell (default: each preset's)")->excludes(limit);
  auto* size = cmd->add_option("--size", sweep.size, "Training size WxH");
  cmd->add_option("--max-side", sweep.max_side, "Longest training side, aspect kept (0: full resolution)")->excludes(size);
  cmd->add_option("--jobs", sweep.jobs, "Cells side by side (default: by the grid and the cores)")->check(CLI::Range(1, 1024));
  cmd->add_option("--checkpoint-every", sweep.checkpoint_every, "Steps between a cell's checkpoints (default: a tenth of its steps)")
      ->check(CLI::Range(int64_t(1), int64_t(1) << 40));
  cmd->add_option("--out", sweep.out, "The sweep's folder");
  cmd->add_option("dir", sweep.out, "The sweep's folder (as --out)");
  cmd->add_option("--cell", sweep.cell, "Run cell K of the sweep in DIR alone (a Slurm array task)")
      ->check(CLI::Range(int64_t(0), int64_t(1) << 40));
  cmd->add_flag("--collect", sweep.collect, "Write DIR's results.csv, summary.csv and report.html");
  cmd->add_flag("--dry-run", sweep.dry_run, "Print the grid and the estimate; run nothing");
  cmd->add_flag("--retry-failed", sweep.retry_failed, "Train the cells that failed again");
  backend_option(cmd, sweep.backend);
  cmd->add_option("--threads", threads, "CPU threads the cells share (default 0: every core)")->check(CLI::Range(0, 1024));
  cmd->add_flag("--slurm", sweep.slurm, "Submit the grid as one Slurm job array and a collect job")->group("Slurm");
  cmd->add_option("--partition", sweep.partition, "sbatch --partition")->group("Slurm");
  cmd->add_option("--time", sweep.time, "sbatch --time for each cell, HH:MM:SS")->group("Slurm");
  cmd->add_option("--gpus-per-task", sweep.gpus_per_task, "sbatch --gpus-per-task")->check(CLI::Range(1, 64))->group("Slurm");
  cmd->add_option("--cpus-per-task", sweep.cpus_per_task, "sbatch --cpus-per-task (each cell's threads)")
      ->check(CLI::Range(1, 1024))->group("Slurm");
  cmd->add_option("--sbatch-arg", sweep.sbatch_args, "An argument for sbatch, as it is (repeatable)")
      ->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)->allow_extra_args(false)->group("Slurm");
  return cmd;
}

/// The bench protocols' names, joined by `between`, read from their table (engine/bench/bench_protocol.h).
std::string protocol_names(const char* between) {
  std::string s;
  for (const BenchProtocol& p : bench_protocols())
    s += (s.empty() ? "" : between) + p.name;
  return s;
}

CLI::App* add_bench_command(CLI::App& app, BenchCommand& bench, int& threads) {
  auto* cmd = app.add_subcommand("bench", "Benchmark a protocol's methods on its images and write the table "
                                          "(" + protocol_names(", ") + "; docs/benchmark.md)");
  cmd->add_option("protocol", bench.protocol, protocol_names(", "))->required();
  cmd->add_option("--images", bench.images,
                  "The images' folder. Default: kodak-*, ../shared/images/kodak from the current folder (the 24 Kodak "
                  "images: https://r0k.us/graphics/kodak/); smoke, the bundled default.png");
  cmd->add_option("--out", bench.out, "The bench's folder (a sweep folder, with table.md)")->required();
  cmd->add_option("--methods", bench.methods, "Only these of the protocol's methods, comma-separated: instant,siren");
  cmd->add_option("--time-limit", bench.time_limit, "Seconds of training per cell, instead of a timed protocol's own")
      ->check(number_above_zero(false));
  cmd->add_option("--jobs", bench.jobs, "Cells side by side (default: by the grid and the cores)")->check(CLI::Range(1, 1024));
  backend_option(cmd, bench.backend);
  cmd->add_option("--threads", threads, "CPU threads the cells share (default 0: every core)")->check(CLI::Range(0, 1024));
  cmd->add_flag("--dry-run", bench.dry_run, "Print the plan and the estimate; run nothing");
  cmd->add_flag("--collect", bench.collect, "Train nothing: measure the cells that are done and write the table");
  cmd->add_flag("--retry-failed", bench.retry_failed, "Train the cells that failed again");
  cmd->add_flag("--slurm", bench.slurm, "Submit the cells as a Slurm job array (then bench --collect)")->group("Slurm");
  cmd->add_option("--partition", bench.partition, "sbatch --partition")->group("Slurm");
  cmd->add_option("--time", bench.time, "sbatch --time for each cell, HH:MM:SS")->group("Slurm");
  cmd->add_option("--gpus-per-task", bench.gpus_per_task, "sbatch --gpus-per-task")->check(CLI::Range(1, 64))->group("Slurm");
  cmd->add_option("--cpus-per-task", bench.cpus_per_task, "sbatch --cpus-per-task (each cell's threads)")
      ->check(CLI::Range(1, 1024))->group("Slurm");
  cmd->add_option("--sbatch-arg", bench.sbatch_args, "An argument for sbatch, as it is (repeatable)")
      ->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)->allow_extra_args(false)->group("Slurm");
  return cmd;
}

CLI::App* add_info_command(CLI::App& app, InfoCommand& info) {
  auto* cmd = app.add_subcommand("info", "Describe a model or an image, or the backends with --backends");
  cmd->add_option("model", info.model, ".redraw model, or an image (format, size, orientation, colour profile)");
  cmd->add_flag("--backends", info.backends, "List compiled-in backends and devices");
  cmd->add_flag("--json", info.json, "Print as JSON");
  return cmd;
}

// ---- parsing and running ---------------------------------------------------------------------

/// `redraw IMAGE` opens the app on that image; a word that is neither a command nor a file is a
/// typo, refused here rather than opening a window that then cannot load it. Nothing (-1) when
/// the command line is not a lone word.
int open_positional(int argc, char** argv, GuiOptions& gui) {
  const std::set<std::string> commands = {"gui",   "train",          "render", "timelapse",
                                          "info",  "sweep",          "export-weights", "bench"};
  if (argc != 2 || argv[1][0] == '-' || commands.count(argv[1])) return -1;
  std::error_code ec;
  const auto status = std::filesystem::status(argv[1], ec);
  if (ec || !std::filesystem::exists(status) || std::filesystem::is_directory(status)) {
    print_error(std::string("'") + argv[1] +
                "' is neither a command (gui, train, render, timelapse, info, sweep, export-weights, bench) nor an image file");
    std::cerr << "run `redraw --help` for usage" << std::endl;
    return k_exit_usage;
  }
  gui.image = argv[1];
  return open_gui(&gui);
}

/// A parse error. A file whose name starts with '-' reads as an option: the error then says so and
/// how to give the file, instead of CLI11's "image is required" (cli_usage_hints.h).
int usage_error(const CLI::ParseError& e, CLI::App& app, int argc, char** argv) {
  const std::string dash_file = dash_file_error(app, argc, argv);
  print_error(dash_file.empty() ? std::string(e.what()) : dash_file);
  if (const std::string note = options_after_dashes_note(app, argc, argv); !note.empty()) print_note(note);
  std::cerr << "run `redraw --help` for usage" << std::endl;
  return k_exit_usage;
}

/// Runs `command`, turning what it throws into a message and an exit code.
template <class Command> int run_reporting(Command&& command) {
  try {
    return command();
  } catch (const UsageError& e) {
    print_error(e.what());
    return k_exit_usage;
  } catch (const CancelledError& e) {
    print_error(std::string(e.what()) + "; nothing was written");
    return interrupted() ? interrupted_exit_code() : k_exit_failure;
  } catch (const Error& e) {
    print_error(e.what());
    return k_exit_failure;
  } catch (const std::bad_alloc&) {
    print_error("out of memory");
    return k_exit_failure;
  } catch (const std::exception& e) {
    print_error(std::string("unexpected: ") + e.what());
    return k_exit_failure;
  }
}

/// What the process sets up before anything else.
void set_up_process(char** argv) {
  ensure_openmp_environment(argv); // may re-execute once: before anything else happens
  // A file-size limit (ulimit -f) must make a write fail with EFBIG, which is reported, rather than
  // kill the process half-way through a save.
  std::signal(SIGXFSZ, SIG_IGN);
#if defined(__GLIBC__)
  // Buffers of 16 MiB and more (a photo's pixels, a large table's weights and their copies) get
  // their own mapping, given back to the system when freed. glibc's default threshold rises to
  // the size of the first such buffer freed, after which a freed copy of a 30 MB table stays
  // inside the heap: about 70 MB of a 24 MP run's resident memory that nothing used.
  mallopt(M_MMAP_THRESHOLD, 16 << 20);
#endif
}

} // namespace

int main(int argc, char** argv) {
  set_up_process(argv);
  CLI::App app{"Redraw: watch a neural network learn an image", "redraw"};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", [] {
    std::string text = version_text();
    if (!text.empty() && text.back() == '\n') text.pop_back(); // CLI11 ends the line
    return text;
  });
  GuiOptions gui;
  TrainCommand train;
  RenderCommand render;
  TimelapseCommand lapse;
  InfoCommand info;
  std::optional<double> gui_image_memory_mb;
  int threads = 0;
  add_gui_command(app, gui, gui_image_memory_mb);
  CLI::App* train_cmd = add_train_command(app, train, threads);
  CLI::App* render_cmd = add_render_command(app, render, threads);
  CLI::App* lapse_cmd = add_timelapse_command(app, lapse, threads);
  CLI::App* info_cmd = add_info_command(app, info);
  SweepCommand sweep;
  CLI::App* sweep_cmd = add_sweep_command(app, sweep, threads);
  BenchCommand bench;
  CLI::App* bench_cmd = add_bench_command(app, bench, threads);
  ExportWeightsCommand export_weights;
  CLI::App* export_cmd = add_export_weights_command(app, export_weights);

  if (const int code = open_positional(argc, argv, gui); code >= 0) return code;
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return usage_error(e, app, argc, argv);
  }
  return run_reporting([&] {
    set_cpu_threads(threads);
    if (train_cmd->parsed()) return run_train(train);
    if (render_cmd->parsed()) return run_render(render);
    if (lapse_cmd->parsed()) return run_timelapse(lapse);
    if (info_cmd->parsed()) return run_info(info);
    if (sweep_cmd->parsed()) return run_sweep(sweep, threads);
    if (bench_cmd->parsed()) return run_bench(bench, threads);
    if (export_cmd->parsed()) return run_export_weights(export_weights);
    if (gui_image_memory_mb) gui.max_image_memory_mb = double(decode_limits(gui_image_memory_mb).max_bytes >> 20);
    check_gui_sets(gui);
    return open_gui(&gui);
  });
}
