#pragma once
/// Everything that defines a training run, as read from a preset or a --config JSON file:
/// { "name", "model": {...}, "loss": {"otype"}, "optimizer": {"otype"}, "schedule": {"otype"},
///   "training": {...}, "data": {...} }. Unknown keys and bad values throw ConfigError naming the
/// source and the field, e.g. "my.json: model.hidden[2]: width 0 is outside [1, 8192]".
#include "engine/loss_math.h"
#include "engine/model_spec.h"
#include "engine/optimizer_math.h"

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace redraw {

/// Auto trains in grey when every pixel is grey once alpha is composited (R = G = B), else in
/// RGB: a black-and-white drawing or a greyscale photo gets one output, not three that drift apart.
enum class ColorMode : int32_t { Rgb = 0, Gray, Binary, Auto };
enum class OptimizerKind : int32_t { Sgd = 0, Adam };
enum class ScheduleKind : int32_t { Constant = 0, Cosine, WarmRestarts };

struct OptimizerSpec {
  OptimizerKind kind = OptimizerKind::Adam;
  AdamParams adam;
  SgdParams sgd;
};

struct ScheduleSpec {
  ScheduleKind kind = ScheduleKind::Cosine;
  double lr_max = 1e-3;
  double lr_min = 1e-6;
  int64_t period = 0;       ///< Cosine: annealing length; WarmRestarts: first cycle. 0 = training.steps
  double period_mult = 1.0; ///< WarmRestarts: each cycle is this many times longer than the last
  int64_t warmup_steps = 0; ///< linear warm-up before the schedule starts
};

/// Seeds (training.seed, model.encoding.seed) may be any 64-bit unsigned value; JSON configs and
/// model files store them as exact integers, so every seed the trainer accepts loads again.
constexpr uint64_t k_max_seed = UINT64_MAX;

/// training.grow: every `every` steps, until `until` of training.steps, the `fraction` of the
/// primitives (Gaussians, sad sites) that add least to the picture move to pixels drawn where its
/// error is (engine/growth.h). The count, the arrays and the model file stay as they are. Off by
/// default (every = 0); only a family whose record grows (ModelFamily::grow) with a linear colour
/// head does.
struct GrowSpec {
  int64_t every = 0;      ///< steps between relocations, 1..1e12; 0: off
  double fraction = 0.05; ///< of the primitives moved at each, in [1e-6, 0.5]
  double until = 0.5;     ///< relocations happen at steps below until * training.steps, in [1e-6, 1]
  bool on() const { return every > 0; }
  bool operator==(const GrowSpec&) const = default;
};

struct TrainingSpec {
  int64_t batch_size = 0; ///< 0 = full batch (every pixel every step)
  /// The batch on the CPU backend: -1 = batch_size (JSON "same"), 0 = full, else a size. A GPU
  /// needs big batches to fill it; two CPU cores learn faster per second from smaller ones.
  int64_t cpu_batch_size = -1;
  int64_t steps = 2000;
  uint64_t seed = 1;          ///< 0..k_max_seed
  int64_t metrics_every = 10; ///< loss/PSNR logged every this many steps
  // Divergence recovery (Trainer): a run whose loss or weights stop being finite goes back to its
  // last good state, multiplies its learning rate by recovery_lr_factor and carries on, at most
  // max_recoveries times; then it stops with DivergedError.
  int32_t max_recoveries = 3;       ///< 0..100
  double recovery_lr_factor = 0.5;  ///< in (0, 1)
  int64_t good_state_every = 100;   ///< steps between copies of the last good state (taken at metrics steps)
  GrowSpec grow;                    ///< training.grow (off by default)
};

struct DataSpec {
  ColorMode color_mode = ColorMode::Auto;
  float threshold = 0.5f;                               ///< Binary: gray >= threshold is white
  int32_t width = 0, height = 0;                        ///< explicit training size (0 = from max_side / the image)
  int32_t max_side = 256;                               ///< longest side, aspect kept (0 = native size)
  std::array<float, 3> background = {1.0f, 1.0f, 1.0f}; ///< alpha is composited onto this colour
};

struct RunConfig {
  std::string name = "custom";
  ModelSpec model;
  LossParams loss;
  OptimizerSpec optimizer;
  ScheduleSpec schedule;
  TrainingSpec training;
  DataSpec data;
};

/// Output channels of a colour mode; Auto counts as 3, the most it can need, until an image
/// resolves it (resolve_color_mode in image.h).
inline int32_t channels_of(ColorMode m) { return m == ColorMode::Rgb || m == ColorMode::Auto ? 3 : 1; }

/// Whether running `b` where `a` runs needs a new Trainer: true when they differ in what a trainer
/// is built from (the network and its encoding, loss, optimizer, seed, batch, divergence recovery, growth,
/// data). Not compared, because a running trainer takes them as they change or sets them itself:
/// the name, the schedule, the step count, the metrics interval, the training size (a run's
/// follows its image) and model.output_channels (the image's colour mode decides it). Fields that
/// mean nothing for the kind chosen (the hash grid's for another encoding; a first-layer scale or
/// CPU batch that is off) are not told apart. Symmetric.
bool requires_new_trainer(const RunConfig& a, const RunConfig& b);

/// Parses a config; `source` names the file in errors. Missing keys keep their defaults.
RunConfig parse_run_config(const nlohmann::json& j, const std::string& source);
/// Reads and parses a JSON config file (ConfigError on a missing file or bad JSON).
RunConfig load_run_config(const std::filesystem::path& file);
nlohmann::json to_json(const RunConfig& c);
/// A float as the double with the shortest decimal that reads back as the same float, so a saved
/// config says 0.9 rather than 0.8999999761581421 and still loads bit for bit.
nlohmann::json float_json(float f);

/// Folder with default.png and presets/: REDRAW_ASSETS, else the installed data folder beside the
/// executable, else the source tree (find_asset_dir in install_paths.h).
std::filesystem::path asset_dir();
std::filesystem::path default_image_path();
/// The presets: the stems of assets/presets/*.json, sorted. The one list every surface reads (the
/// command line's help and so the man page, the app's menus, Python's presets()): a new preset is
/// its JSON file and a row in the README's table (tests/project/preset_list.sh checks both).
std::vector<std::string> preset_names();
/// "classic, classic-sgd, ..." for a help text; "none found in DIR" when the folder has none.
std::string preset_list_text();
/// Loads assets/presets/NAME.json (ConfigError listing the known presets when absent).
RunConfig load_preset(const std::string& name);

const char* color_mode_name(ColorMode m);
/// The mode's name, and for Auto what it resolved to from the channel count: "auto (gray)".
std::string color_mode_label(ColorMode m, int32_t channels);
ColorMode parse_color_mode(const std::string& name);
const char* loss_name(LossKind k);
const char* optimizer_name(OptimizerKind k);
const char* schedule_name(ScheduleKind k);

} // namespace redraw
