#include "engine/sweep/sweep_plan.h"

#include "engine/atomic_file.h"
#include "engine/backend_names.h"
#include "engine/config_fields.h"
#include "engine/display_text.h"
#include "engine/errors.h"
#include "engine/images/image.h"
#include "engine/json_read.h"
#include "engine/path_problem.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <set>

#include <sys/stat.h>

namespace redraw {
using nlohmann::json;

namespace {
constexpr int k_plan_version = 1;

/// A name part made of letters, digits and ._+=- only, at most 24 characters.
std::string slug(const std::string& s) {
  std::string out;
  for (const char c : s) {
    const bool keep =
        std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '+' || c == '-' || c == '=';
    out += keep ? c : '_';
    if (out.size() >= 24) break;
  }
  return out.empty() ? std::string("_") : out;
}

bool is_config_file(const std::string& preset) {
  return preset.find('/') != std::string::npos || std::filesystem::path(preset).extension() == ".json";
}

RunConfig base_config(const std::string& preset) {
  return is_config_file(preset) ? load_run_config(preset) : load_preset(preset);
}

std::string preset_stem(const std::string& preset) {
  return is_config_file(preset) ? std::filesystem::path(preset).stem().string() : preset;
}

} // namespace

SweepAxis parse_sweep_axis(const std::string& text) { return parse_config_field(text); }

std::string sweep_value_label(const std::string& json_text) {
  const json v = try_parse_json(json_text, "a swept value");
  if (v.is_string()) return v.get<std::string>();
  return v.is_discarded() ? json_text : v.dump();
}

std::string SweepCell::configuration(const std::vector<SweepAxis>& axes) const {
  std::string s = preset;
  for (size_t i = 0; i < axes.size() && i < values.size(); ++i)
    s += " " + axes[i].key + "=" + sweep_value_label(values[i]);
  return s;
}

namespace {
std::vector<std::string> string_list(const json& j, const std::string& field, const std::string& source) {
  std::vector<std::string> out;
  const json list = j.is_string() ? json::array({j}) : j;
  if (!list.is_array()) throw ConfigError(source + ": " + field + ": must be a list of strings");
  for (const json& v : list) {
    if (!v.is_string()) throw ConfigError(source + ": " + field + ": must be a list of strings");
    out.push_back(v.get<std::string>());
  }
  return out;
}

std::vector<SweepAxis> spec_axes(const json& set, const std::string& source) {
  std::vector<SweepAxis> axes;
  const auto add = [&](const std::string& key, const json& values) {
    SweepAxis axis;
    axis.key = key;
    check_config_key(key);
    for (const json& v : values.is_array() ? values : json::array({values}))
      axis.values.push_back(v.dump());
    if (axis.values.empty()) throw ConfigError(source + ": set." + key + ": no values");
    axes.push_back(axis);
  };
  if (set.is_object()) {
    for (auto it = set.begin(); it != set.end(); ++it)
      add(it.key(), it.value());
  } else if (set.is_array()) {
    for (const json& a : set) {
      if (!a.is_object() || !a.contains("key") || !a["key"].is_string() || !a.contains("values"))
        throw ConfigError(source + ": set: each entry is {\"key\": \"model.omega_0\", \"values\": [...]}");
      add(a["key"].get<std::string>(), a["values"]);
    }
  } else {
    throw ConfigError(source + ": set: must be {\"KEY\": [values], ...}");
  }
  return axes;
}

template <class T>
T spec_number(const json& j, const std::string& key, double lo, double hi, const std::string& source) {
  const json& v = j.at(key);
  if (!v.is_number() || v.get<double>() < lo || v.get<double>() > hi)
    throw ConfigError(source + ": " + key + ": must be a number in [" + json(lo).dump() + ", " + json(hi).dump() + "]");
  if (std::is_integral_v<T> && v.get<double>() != double(T(v.get<double>())))
    throw ConfigError(source + ": " + key + ": must be a whole number");
  return T(v.get<double>());
}
} // namespace

SweepGrid parse_sweep_spec(const json& j, const std::string& source) {
  if (!j.is_object()) throw ConfigError(source + ": must be a JSON object");
  static const std::set<std::string> known = {"images", "presets", "set",      "seeds",   "time_limit",
                                              "steps",  "size",    "max_side", "backend", "checkpoint_every"};
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!known.count(it.key())) throw ConfigError(source + ": " + it.key() + ": unknown key");
  SweepGrid g;
  if (j.contains("images")) g.images = string_list(j["images"], "images", source);
  if (j.contains("presets")) g.presets = string_list(j["presets"], "presets", source);
  if (j.contains("set")) g.axes = spec_axes(j["set"], source);
  if (j.contains("seeds")) g.seeds = spec_number<int32_t>(j, "seeds", 1, 1000, source);
  if (j.contains("time_limit")) g.time_limit = spec_number<double>(j, "time_limit", 1e-3, 1e9, source);
  if (j.contains("steps")) g.steps = spec_number<int64_t>(j, "steps", 0, 1e12, source);
  if (j.contains("max_side")) g.max_side = spec_number<int32_t>(j, "max_side", 0, k_max_train_side, source);
  if (j.contains("checkpoint_every")) g.checkpoint_every = spec_number<int64_t>(j, "checkpoint_every", 0, 1e12, source);
  if (j.contains("backend")) {
    const json& b = j["backend"];
    const std::vector<std::string> choices = backend_choices();
    std::string known;
    for (const std::string& name : choices) known += (known.empty() ? "" : ", ") + name;
    if (!b.is_string()) throw ConfigError(source + ": backend: must be one name (" + known + ")");
    g.backend = b.get<std::string>();
    bool found = false;
    for (const std::string& name : choices) found = found || g.backend == name;
    if (!found)
      throw ConfigError(source + ": backend: '" + escape_control(g.backend) + "' is not a backend (known: " + known + ")");
  }
  if (j.contains("size")) {
    const std::string s = string_list(j["size"], "size", source).at(0);
    const size_t x = s.find_first_of("xX");
    try {
      g.width = std::stoi(s.substr(0, x));
      g.height = x == std::string::npos ? 0 : std::stoi(s.substr(x + 1));
    } catch (const std::exception&) {
      g.width = 0;
    }
    if (g.width < 1 || g.height < 1 || g.width > k_max_train_side || g.height > k_max_train_side)
      throw ConfigError(source + ": size: '" + s + "' is not a training size like 256x256");
  }
  return g;
}

namespace {
bool has_image_extension(const std::filesystem::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  const auto& known = image_extensions();
  return std::find(known.begin(), known.end(), ext) != known.end();
}

/// Folders expanded to their images (sorted by name), every path absolute, repeats dropped.
std::vector<std::string> expand_images(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  const auto add = [&](const std::filesystem::path& p) {
    std::error_code ec;
    const std::string abs = std::filesystem::weakly_canonical(std::filesystem::absolute(p), ec).string();
    if (seen.insert(abs).second) out.push_back(abs);
  };
  for (const std::string& a : args) {
    std::error_code ec;
    if (std::filesystem::is_directory(a, ec)) {
      std::vector<std::filesystem::path> found;
      for (const auto& e : std::filesystem::directory_iterator(a, ec))
        if (e.is_regular_file(ec) && has_image_extension(e.path())) found.push_back(e.path());
      if (found.empty()) throw ImageError(a + ": no images in this folder (by their extensions: .png, .jpg, ...)");
      std::sort(found.begin(), found.end());
      for (const auto& p : found)
        add(p);
    } else if (std::filesystem::is_regular_file(a, ec)) {
      add(a);
    } else {
      throw ImageError(a + ": no such image file or folder");
    }
  }
  return out;
}

/// A cell's config as JSON: the preset with the grid's steps, size, seed and values set.
json cell_json(const RunConfig& base, const SweepGrid& g, const std::vector<std::string>& values, uint64_t seed) {
  json j = to_json(base);
  j["training"]["seed"] = seed;
  if (g.steps > 0) j["training"]["steps"] = g.steps;
  if (g.width > 0) {
    j["data"]["width"] = g.width;
    j["data"]["height"] = g.height;
  } else if (g.max_side >= 0) {
    j["data"]["max_side"] = g.max_side;
    j["data"]["width"] = j["data"]["height"] = 0;
  }
  for (size_t i = 0; i < g.axes.size(); ++i)
    set_config_field(j, g.axes[i].key, parse_json(values[i], "--set " + g.axes[i].key));
  return j;
}

std::string cell_name(size_t index, size_t count, const std::string& image, const std::string& preset,
                      const SweepGrid& g, const std::vector<std::string>& values, uint64_t seed) {
  std::string idx = std::to_string(index);
  const size_t width = std::max<size_t>(3, std::to_string(count - 1).size());
  idx.insert(0, width - idx.size(), '0');
  std::string name = idx + "-" + slug(std::filesystem::path(image).stem().string()) + "-" + slug(preset_stem(preset));
  for (size_t i = 0; i < g.axes.size(); ++i) {
    name += '-';
    name += slug(split_config_key(g.axes[i].key).back() + "=" + sweep_value_label(values[i]));
  }
  return name + "-s" + std::to_string(seed);
}

/// Every combination of the axes' values, the last axis fastest.
std::vector<std::vector<std::string>> value_combinations(const std::vector<SweepAxis>& axes) {
  std::vector<std::vector<std::string>> out(1);
  for (const SweepAxis& a : axes) {
    std::vector<std::vector<std::string>> next;
    for (const auto& prefix : out)
      for (const std::string& v : a.values) {
        next.push_back(prefix);
        next.back().push_back(v);
      }
    out = std::move(next);
  }
  return out;
}

void check_grid(const SweepGrid& g) {
  if (g.images.empty()) throw ConfigError("no images: give --images FILE|DIR ...");
  if (g.presets.empty()) throw ConfigError("no presets: give --presets NAME,... (known: see presets.md)");
  if (g.seeds < 1 || g.seeds > 1000) throw ConfigError("--seeds: must be from 1 to 1000");
  if (g.time_limit > 0 && g.steps > 0) throw ConfigError("--time-limit and --steps: give one, not both");
  std::set<std::string> keys;
  for (const SweepAxis& a : g.axes) {
    if (!keys.insert(a.key).second) throw ConfigError("--set " + a.key + ": given twice");
    if (a.values.empty()) throw ConfigError("--set " + a.key + ": no values");
  }
}
} // namespace

int64_t sweep_cell_count(size_t images, size_t presets, const std::vector<SweepAxis>& axes, int64_t seeds) {
  const auto times = [](int64_t a, uint64_t b) {
    if (a == 0 || b == 0) return int64_t(0);
    return uint64_t(a) > uint64_t(std::numeric_limits<int64_t>::max()) / b ? std::numeric_limits<int64_t>::max()
                                                                            : int64_t(uint64_t(a) * b);
  };
  int64_t n = times(times(1, images), presets);
  for (const SweepAxis& a : axes) n = times(n, a.values.size());
  return times(n, uint64_t(std::max<int64_t>(seeds, 0)));
}

SweepPlan build_sweep_plan(const SweepGrid& grid) {
  check_grid(grid);
  SweepPlan plan;
  plan.grid = grid;
  plan.grid.images = expand_images(grid.images);
  const int64_t cells = sweep_cell_count(plan.grid.images.size(), grid.presets.size(), grid.axes, grid.seeds);
  if (cells > k_max_sweep_cells) {
    std::string product = std::to_string(plan.grid.images.size()) + " images x " +
                          std::to_string(grid.presets.size()) + " presets";
    for (const SweepAxis& a : grid.axes) product += " x " + std::to_string(a.values.size()) + " " + a.key;
    product += " x " + std::to_string(grid.seeds) + " seeds";
    throw ConfigError("the grid has " + (cells == std::numeric_limits<int64_t>::max() ? std::string("too many")
                                                                                        : std::to_string(cells)) +
                      " cells (" + product + "); one sweep runs at most " + std::to_string(k_max_sweep_cells) +
                      ": split it into several sweeps");
  }
  std::map<std::string, std::pair<int32_t, int32_t>> image_sizes;
  for (const std::string& image : plan.grid.images) {
    const ImageInfo info = probe_image_file(image);
    image_sizes[image] = {info.width, info.height};
  }
  const auto combos = value_combinations(grid.axes);
  const size_t count = plan.grid.images.size() * grid.presets.size() * combos.size() * size_t(grid.seeds);
  for (const std::string& image : plan.grid.images)
    for (const std::string& preset : grid.presets) {
      RunConfig base;
      try {
        base = base_config(preset);
      } catch (const ConfigError& e) {
        throw ConfigError(std::string("--presets: ") + e.what());
      }
      for (const auto& values : combos)
        for (uint64_t seed = 1; seed <= uint64_t(grid.seeds); ++seed) {
          SweepCell cell;
          cell.index = int64_t(plan.cells.size());
          cell.name = cell_name(plan.cells.size(), count, image, preset, grid, values, seed);
          cell.image = image;
          cell.preset = preset;
          cell.values = values;
          cell.seed = seed;
          const json j = cell_json(base, grid, values, seed);
          std::string source = "preset " + preset;
          for (size_t i = 0; i < grid.axes.size(); ++i)
            source += (i ? ", " : " with --set ") + grid.axes[i].key + "=" + sweep_value_label(values[i]);
          try {
            cell.config = parse_run_config(j, source);
          } catch (const ConfigError& e) {
            std::vector<std::string> keys;
            for (const SweepAxis& a : grid.axes)
              keys.push_back(a.key);
            throw ConfigError(e.what() + config_field_hint(j, e.what(), keys));
          }
          const auto [w, h] = image_sizes[image];
          try {
            training_size(cell.config.data, w, h, cell.train_width, cell.train_height);
          } catch (const ConfigError& e) {
            throw ConfigError(image + " with " + source + ": " + e.what());
          }
          plan.cells.push_back(std::move(cell));
        }
    }
  return plan;
}

json sweep_plan_json(const SweepPlan& plan) {
  const SweepGrid& g = plan.grid;
  json axes = json::array();
  for (const SweepAxis& a : g.axes) {
    json values = json::array();
    for (const std::string& v : a.values)
      values.push_back(parse_json(v, "--set " + a.key));
    axes.push_back({{"key", a.key}, {"values", values}});
  }
  json cells = json::array();
  for (const SweepCell& c : plan.cells) {
    json values = json::array();
    for (const std::string& v : c.values)
      values.push_back(parse_json(v, "cell " + c.name));
    cells.push_back({{"index", c.index},
                     {"name", c.name},
                     {"image", c.image},
                     {"preset", c.preset},
                     {"values", values},
                     {"seed", c.seed},
                     {"train_width", c.train_width},
                     {"train_height", c.train_height},
                     {"config", to_json(c.config)}});
  }
  return {{"format", "redraw-sweep"},
          {"version", k_plan_version},
          {"images", g.images},
          {"presets", g.presets},
          {"set", axes},
          {"seeds", g.seeds},
          {"time_limit", g.time_limit},
          {"steps", g.steps},
          {"width", g.width},
          {"height", g.height},
          {"max_side", g.max_side},
          {"backend", g.backend},
          {"checkpoint_every", g.checkpoint_every},
          {"cells", cells}};
}

SweepPlan parse_sweep_plan(const json& j, const std::string& source) {
  if (!j.is_object() || j.value("format", "") != "redraw-sweep")
    throw ConfigError(source + ": not a sweep (no \"format\": \"redraw-sweep\")");
  if (j.value("version", 0) != k_plan_version)
    throw ConfigError(source + ": sweep format version " + json_excerpt(j.value("version", json())) +
                      " (this redraw reads " + std::to_string(k_plan_version) + ")");
  SweepPlan plan;
  try {
    SweepGrid& g = plan.grid;
    g.images = j.at("images").get<std::vector<std::string>>();
    g.presets = j.at("presets").get<std::vector<std::string>>();
    g.axes = spec_axes(j.at("set").is_array() && j.at("set").empty() ? json::object() : j.at("set"), source);
    g.seeds = j.at("seeds").get<int32_t>();
    g.time_limit = j.at("time_limit").get<double>();
    g.steps = j.at("steps").get<int64_t>();
    g.width = j.at("width").get<int32_t>();
    g.height = j.at("height").get<int32_t>();
    g.max_side = j.at("max_side").get<int32_t>();
    g.backend = j.at("backend").get<std::string>();
    g.checkpoint_every = j.at("checkpoint_every").get<int64_t>();
    if (j.at("cells").size() > size_t(k_max_sweep_cells))
      throw ConfigError(source + ": lists " + std::to_string(j.at("cells").size()) + " cells; a sweep holds at most " +
                        std::to_string(k_max_sweep_cells));
    for (const json& c : j.at("cells")) {
      SweepCell cell;
      cell.index = c.at("index").get<int64_t>();
      cell.name = c.at("name").get<std::string>();
      cell.image = c.at("image").get<std::string>();
      cell.preset = c.at("preset").get<std::string>();
      for (const json& v : c.at("values"))
        cell.values.push_back(v.dump());
      cell.seed = c.at("seed").get<uint64_t>();
      cell.train_width = c.at("train_width").get<int32_t>();
      cell.train_height = c.at("train_height").get<int32_t>();
      cell.config = parse_run_config(c.at("config"), source + ": cell " + cell.name);
      if (cell.index != int64_t(plan.cells.size()) || cell.values.size() != g.axes.size() || cell.name.empty() ||
          cell.name.find('/') != std::string::npos || cell.name.front() == '.')
        throw ConfigError(source + ": cell " + std::to_string(plan.cells.size()) + " is out of order or misnamed");
      plan.cells.push_back(std::move(cell));
    }
  } catch (const json::exception& e) {
    throw ConfigError(source + ": " + e.what());
  }
  return plan;
}

void save_sweep_plan(const std::filesystem::path& dir, const SweepPlan& plan) {
  write_text_atomic(dir / "sweep.json", sweep_plan_json(plan).dump(1) + "\n");
}

SweepPlan load_sweep_plan(const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / "sweep.json";
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(file, ec)))
    throw ConfigError(file.string() + ": no sweep here (cannot open sweep.json)");
  std::string text;
  if (const std::string why = read_user_text(file, k_max_sweep_file_bytes, "a sweep file", "256 MiB", text);
      !why.empty())
    throw ConfigError(why);
  return parse_sweep_plan(parse_json(text, file.string()), file.string());
}

bool same_sweep(const SweepPlan& a, const SweepPlan& b) {
  if (a.cells.size() != b.cells.size() || a.grid.time_limit != b.grid.time_limit || a.grid.backend != b.grid.backend)
    return false;
  for (size_t i = 0; i < a.cells.size(); ++i) {
    const SweepCell &x = a.cells[i], &y = b.cells[i];
    if (x.name != y.name || x.image != y.image || x.seed != y.seed || to_json(x.config) != to_json(y.config))
      return false;
  }
  return true;
}

std::filesystem::path cell_folder(const std::filesystem::path& dir, const SweepCell& cell) {
  return dir / "cells" / cell.name;
}

std::filesystem::path make_cell_folder(const std::filesystem::path& dir, const SweepCell& cell) {
  make_own_folder(dir / "cells");
  const std::filesystem::path folder = cell_folder(dir, cell);
  make_own_folder(folder);
  return folder;
}

std::string cell_folder_problem(const std::filesystem::path& dir, const SweepCell& cell) {
  for (const std::filesystem::path& p : {dir / "cells", cell_folder(dir, cell)}) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) return {}; // missing: made when the cell runs
    if (S_ISLNK(st.st_mode))
      return p.string() + ": is a symbolic link, not a folder (refused: nothing is read or written through it)";
    if (!S_ISDIR(st.st_mode)) return p.string() + ": is not a folder";
  }
  return {};
}

int64_t cell_checkpoint_every(const SweepGrid& grid, const SweepCell& cell) {
  if (grid.checkpoint_every > 0) return grid.checkpoint_every;
  return std::max<int64_t>(1, cell.config.training.steps / 10);
}

} // namespace redraw
