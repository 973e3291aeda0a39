#pragma once
/// A sweep: one training run (a "cell") for every combination of images x presets x the values
/// of each swept config field x seeds, all in one folder.
/// - SweepGrid is what the user asks for (the command line or a --spec file); build_sweep_plan
///   expands it into cells, each with its whole config, built as `train --config` reads one and
///   checked by parse_run_config, and each image's header read for its training size. So a bad
///   key or value, a missing image or a size over the limits is refused, named, before anything
///   runs.
/// - A swept field is named by its JSON path in a config ("model.omega_0", "optimizer.lr_max" is
///   "schedule.lr_max"; presets.md lists them); its values are JSON ("20", "\"Tanh\"" or a bare
///   word Tanh, "[64,64]").
/// - On disk: DIR/sweep.json is the plan (sweep_plan_json: the grid and every cell with its name,
///   image, preset, values, seed, training size and config), written before any cell runs; each
///   cell runs in DIR/cells/<name>/. The format is documented in docs/cli.md ("redraw sweep") for
///   other readers (the app).
#include "engine/backend_names.h"
#include "engine/config_fields.h"
#include "engine/run_config.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace redraw {

/// One swept config field (its JSON path, "model.omega_0") and its values as compact JSON text.
using SweepAxis = ConfigField;

struct SweepGrid {
  std::vector<std::string> images;  ///< image files or folders of images (absolute files once planned)
  std::vector<std::string> presets; ///< preset names, or run config .json files
  std::vector<SweepAxis> axes;
  int32_t seeds = 1;             ///< each configuration trains with training.seed 1..seeds
  double time_limit = 0;         ///< seconds of training per cell (train's --time-limit); 0: none
  int64_t steps = 0;             ///< training.steps of every cell; 0: each config's own
  int32_t width = 0, height = 0; ///< the training size, exactly; 0: none
  int32_t max_side = -1;         ///< longest training side, aspect kept; 0: full size; -1: the config's
  std::string backend = k_auto_backend; ///< train's --backend
  int64_t checkpoint_every = 0;  ///< steps between a cell's checkpoints; 0: a tenth of its steps
};

struct SweepCell {
  int64_t index = 0;               ///< 0-based, in the plan's order (a Slurm array task id)
  std::string name;                ///< its folder under DIR/cells/, unique: "003-camera-siren-omega_0=30-s1"
  std::string image;               ///< absolute path
  std::string preset;              ///< as the grid names it
  std::vector<std::string> values; ///< one per axis, compact JSON text
  uint64_t seed = 1;
  RunConfig config;                          ///< what it trains: the preset with the grid's fields set
  int32_t train_width = 0, train_height = 0; ///< its training size, from the image's header
  /// What it shares with the other cells of its configuration, all but the image and the seed:
  /// "siren", "siren model.omega_0=30".
  std::string configuration(const std::vector<SweepAxis>& axes) const;
};

struct SweepPlan {
  SweepGrid grid;
  std::vector<SweepCell> cells;
};

/// "KEY=V1,V2,...": a swept field from the command line (parse_config_field).
SweepAxis parse_sweep_axis(const std::string& text);
/// A value's text for a table: a JSON string's characters, anything else as JSON.
std::string sweep_value_label(const std::string& json_text);

/// A --spec file: {"images": [...], "presets": [...], "set": {"KEY": [values]} (or a list of
/// {"key", "values"}), "seeds", "time_limit", "steps", "size": "WxH", "max_side", "backend",
/// "checkpoint_every"}; every key optional. ConfigError naming `source` and the field.
SweepGrid parse_sweep_spec(const nlohmann::json& j, const std::string& source);

/// Expands folders to the images in them (by extension, sorted by name), makes every path
/// absolute, drops repeats, builds and checks every cell's config and training size. ConfigError
/// naming the preset, field and value, or ImageError naming the image; nothing is written.
SweepPlan build_sweep_plan(const SweepGrid& grid);

/// The plan as DIR/sweep.json holds it ({"format": "redraw-sweep", "version": 1, ...}).
nlohmann::json sweep_plan_json(const SweepPlan& plan);
/// Reads it back; ConfigError naming `source` when it is not a sweep of this version.
SweepPlan parse_sweep_plan(const nlohmann::json& j, const std::string& source);
/// The most cells one sweep holds: a grid past it is refused before it is expanded (split it into
/// several sweeps), and so is a sweep.json that lists more.
inline constexpr int64_t k_max_sweep_cells = 10000;
/// The number of cells of images x presets x each axis's values x seeds, saturating at
/// INT64_MAX (never overflowing), computed without expanding the grid.
int64_t sweep_cell_count(size_t images, size_t presets, const std::vector<SweepAxis>& axes, int64_t seeds);
/// The largest sweep.json read.
inline constexpr uint64_t k_max_sweep_file_bytes = uint64_t(256) << 20;
/// DIR/sweep.json written atomically / read (ConfigError when missing or unreadable, when it is
/// not a regular file, a FIFO or a device, or over k_max_sweep_file_bytes: read_user_text).
void save_sweep_plan(const std::filesystem::path& dir, const SweepPlan& plan);
SweepPlan load_sweep_plan(const std::filesystem::path& dir);
/// Whether two plans run the same cells (names, images, seeds and configs, the time limit).
bool same_sweep(const SweepPlan& a, const SweepPlan& b);

/// DIR/cells/<name>.
std::filesystem::path cell_folder(const std::filesystem::path& dir, const SweepCell& cell);
/// Creates DIR/cells and DIR/cells/<name> where missing and returns the cell's folder. IoError
/// naming the folder when either is a symbolic link or not a folder (make_own_folder): a link
/// planted there would send the cell's config, log, result and model into another folder.
std::filesystem::path make_cell_folder(const std::filesystem::path& dir, const SweepCell& cell);
/// "" when DIR/cells and the cell's folder are each missing or a folder of their own; else why
/// not, naming it ("... is a symbolic link, not a folder"). Reads nothing through a link.
std::string cell_folder_problem(const std::filesystem::path& dir, const SweepCell& cell);
/// A cell's checkpoint interval: the grid's, else a tenth of its steps (at least 1).
int64_t cell_checkpoint_every(const SweepGrid& grid, const SweepCell& cell);

} // namespace redraw
