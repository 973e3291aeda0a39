#include "ui/state/settings_store.h"

#include "engine/atomic_file.h"
#include "engine/backend_names.h"
#include "engine/json_read.h"
#include "ui/widgets/machine_fit.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <tuple>
#include <utility>

namespace redraw {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {
json read_json(const fs::path& file) {
  if (!file.is_absolute()) return json::object(); // no settings folder: never the working folder
  std::ifstream in(file, std::ios::binary);
  if (!in) return json::object();
  try {
    std::ostringstream text;
    text << in.rdbuf();
    const json j = parse_json(text.str(), file.string());
    return j.is_object() ? j : json::object();
  } catch (const std::exception&) {
    return json::object();
  }
}

template <class T> void get(const json& j, const char* key, T& out) {
  try {
    if (j.contains(key)) out = j.at(key).get<T>();
  } catch (const std::exception&) {
  }
}

/// Every field settings.json keeps, once: its key and its member (load_settings reads them, each
/// alone, so a field of the wrong type keeps its default; save_settings writes them all).
const auto k_setting_fields = std::make_tuple(
    std::pair{"preset", &Settings::preset}, std::pair{"backend", &Settings::backend},
    std::pair{"precision", &Settings::precision}, std::pair{"preview_every", &Settings::preview_every},
    std::pair{"window_width", &Settings::window_width}, std::pair{"window_height", &Settings::window_height},
    std::pair{"controls_width", &Settings::controls_width}, std::pair{"plots_height", &Settings::plots_height},
    std::pair{"ui_scale", &Settings::ui_scale}, std::pair{"show_perf", &Settings::show_perf},
    std::pair{"last_folder", &Settings::last_folder}, std::pair{"snapshot_cap_mb", &Settings::snapshot_cap_mb},
    std::pair{"autosave_minutes", &Settings::autosave_minutes}, std::pair{"show_spectrum", &Settings::show_spectrum},
    std::pair{"show_neuron_maps", &Settings::show_neuron_maps}, std::pair{"cpu_threads", &Settings::cpu_threads},
    std::pair{"compare_split", &Settings::compare_split},
    std::pair{"compare_errors", &Settings::compare_errors},
    std::pair{"compare_same_step", &Settings::compare_same_step}, std::pair{"plots_seconds", &Settings::plots_seconds},
    std::pair{"max_image_memory_mb", &Settings::max_image_memory_mb});

std::string write_json(const fs::path& file, const json& j) {
  if (!file.is_absolute()) return "no folder for settings (HOME is not set)";
  return write_error([&] {
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    write_text_atomic(file, j.dump(2) + "\n");
  });
}
} // namespace


Settings load_settings() {
  Settings s;
  const json j = read_json(config_folder() / "settings.json");
  if (!j.is_object() || !j.contains("preset")) s.preset = first_launch_preset(); // a picture in seconds, CPU or GPU
  std::apply([&](const auto&... field) { (get(j, field.first, s.*field.second), ...); }, k_setting_fields);
  if (s.precision.empty() || !known_precision(s.precision)) s.precision = k_auto_precision;
  s.cpu_threads = std::clamp(s.cpu_threads, 0, k_max_cpu_threads);
  s.autosave_minutes = std::clamp(s.autosave_minutes, 0, 24 * 60);
  s.snapshot_cap_mb = std::clamp(s.snapshot_cap_mb, 1, 65536);
  s.max_image_memory_mb = std::clamp(s.max_image_memory_mb, 1, k_max_image_memory_mb);
  s.preview_every = std::clamp(s.preview_every, 1, 100000);
  sanitize_layout(s);
  const json r = read_json(data_folder() / "recent.json");
  get(r, "recent", s.recent);
  if (s.recent.size() > 10) s.recent.resize(10);
  return s;
}

std::string save_settings(const Settings& s) {
  json j = json::object();
  std::apply([&](const auto&... field) { ((j[field.first] = s.*field.second), ...); }, k_setting_fields);
  std::string err = write_json(config_folder() / "settings.json", j);
  const std::string err2 = write_json(data_folder() / "recent.json", json{{"recent", s.recent}});
  return err.empty() ? err2 : err;
}

void sanitize_layout(Settings& s) {
  s.window_width = std::clamp(s.window_width, k_min_window_width, 8192);
  s.window_height = std::clamp(s.window_height, k_min_window_height, 8192);
  // NaN fails every comparison: back to the defaults.
  if (!(s.controls_width >= 0)) s.controls_width = Settings{}.controls_width;
  if (!(s.plots_height >= 0)) s.plots_height = Settings{}.plots_height;
  if (!(s.ui_scale > 0)) s.ui_scale = 1.0f;
  s.controls_width = std::clamp(s.controls_width, k_min_controls_width, k_max_panel_size);
  s.plots_height = std::clamp(s.plots_height, k_min_plots_height, k_max_panel_size);
  s.ui_scale = std::clamp(s.ui_scale, k_min_ui_scale, k_max_ui_scale);
}

Settings settings_for_save(const Settings& current, int32_t window_width, int32_t window_height) {
  Settings s = current;
  // A window smaller than the smallest size it opens at (shrunk, or iconified to 0 x 0) is no size
  // to open at next time: the last sensible one stays.
  if (window_width >= k_min_window_width && window_height >= k_min_window_height) {
    s.window_width = window_width;
    s.window_height = window_height;
  }
  sanitize_layout(s);
  return s;
}

void add_recent(Settings& s, const std::string& path) {
  std::error_code ec;
  fs::path abs = fs::absolute(path, ec);
  const std::string p = ec ? path : abs.lexically_normal().string();
  s.recent.erase(std::remove(s.recent.begin(), s.recent.end(), p), s.recent.end());
  s.recent.insert(s.recent.begin(), p);
  if (s.recent.size() > 10) s.recent.resize(10);
}

} // namespace redraw
