#pragma once
/// The benchmark protocols `redraw bench` knows (docs/benchmark.md): which images, which methods
/// (a preset sized to a parameter budget), how long each trains, the seeds, and which published
/// rows stand beside the results.
/// - kodak-paper: the budgets of the published rows (instant at 300 K as instant-ngp's row,
///   siren at 273 K as SIREN's) and a step count per method, at full size.
/// - kodak-minute: every photo preset for 60 s of training per image, at full size. On the CPU
///   siren and fourier train on minibatches of 16,384 pixels: their presets' full batch at
///   768x512 is one step in about half a minute on a core, one or two steps in the minute.
/// - kodak-timed: `instant` (300 K) and `gaussians` (560 K) for 5 s of training per image, at full
///   size, beside the published time-matched rows: 48 cells of 5 s and their measuring fit one
///   10-minute device call with room for a short check.
/// - smoke: two images of --images (by default the one bundled, the data folder's default.png),
///   small networks, two seconds each (CI, and a check that an installed redraw benchmarks).
/// A protocol trains every image at its own size (at most `max_side` on its longer side when that
/// is set), in RGB, as the papers do; the methods are run as one sweep (engine/sweep/).
#include "engine/run_config.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace redraw {

struct BenchMethod {
  std::string preset;    ///< a preset name (assets/presets); the method's name in the table
  int64_t budget = 0;    ///< parameters the network is sized to (param_budget.h)
  int64_t steps = 0;     ///< training steps; 0: the protocol's time limit
  int64_t cpu_batch = 0; ///< pixels per step on the CPU (training.batch_cpu); 0: the preset's
};

struct BenchProtocol {
  std::string name;
  std::string summary;         ///< one line, for --help and the table's header
  int32_t image_count = 0;     ///< the first N images of the folder by name; 0: all
  int32_t expected_images = 0; ///< a folder with another count is noted (kodak: 24); 0: any
  std::string default_images{};  ///< the folder when --images is not given, from the current folder ("": none)
  std::string bundled_image{};   ///< else one image of the data folder (asset_dir()), the protocol's only image
  std::string images_source{};   ///< where a user gets the images, for --help and a missing folder's error
  std::vector<BenchMethod> methods;
  double time_limit = 0; ///< seconds of training per cell for methods without steps
  int32_t max_side = 0;  ///< longest training side; 0: each image's own size
  int32_t seeds = 1;
  std::string published; ///< published rows to show beside: "kodak" is assets/published/kodak.json; "" none
};

/// Where the 24 Kodak images are published (the Kodak Lossless True Color Image Suite).
inline constexpr const char* k_kodak_images_source =
    "the 24 Kodak images, kodim01.png to kodim24.png, are the Kodak Lossless True Color Image Suite: "
    "https://r0k.us/graphics/kodak/";

/// Every protocol, in the order `redraw bench --help` lists them.
const std::vector<BenchProtocol>& bench_protocols();
/// The protocol named `name`. ConfigError listing the known names when there is none.
const BenchProtocol& find_bench_protocol(const std::string& name);
/// `p` with only the methods named in `methods` (comma-separated preset names, in the protocol's
/// order; empty: all). ConfigError naming an unknown method and the protocol's methods.
BenchProtocol select_bench_methods(const BenchProtocol& p, const std::string& methods);

/// What `p` takes when --images is not given: its default_images folder as given (from the current
/// folder), else its bundled_image file under the data folder (found as the presets are:
/// installed, or the source tree's assets/); "" when it has neither.
std::filesystem::path bench_default_images(const BenchProtocol& p);
/// The most images one bench of `p` takes: a bench is one sweep, of at most k_max_sweep_cells
/// cells, and each image is a cell per method and seed.
int64_t bench_max_images(const BenchProtocol& p);

/// A method's run config for one image's training size: its preset in RGB, the training size
/// (max_side), its steps, and the network sized to its budget (param_budget.h). ConfigError from
/// the preset or the sizing, naming the method.
RunConfig bench_method_config(const BenchProtocol& p, const BenchMethod& m, int32_t train_width, int32_t train_height);

} // namespace redraw
