#pragma once
/// Config fields set on the command line by their JSON path: `train --set KEY=VALUE` and a
/// sweep's `--set KEY=V1,V2` axes.
/// - A field is named by its path in a run config ("model.omega_0", "schedule.lr_max",
///   "model.encoding.n_levels"; docs/presets.md lists them). Its value is JSON ("20", "[64,64]",
///   "\"Tanh\""), and a text that is not JSON is a string (a bare Tanh).
/// - The value replaces the field in the config's JSON, which is then read as a config file is
///   (parse_run_config), so a bad key or value is refused as a file's would be, naming it; a key
///   whose last part belongs to another section adds "(schedule.lr_max is a field)".
/// - Two fields follow what is set: a per-layer "activations" list that is all one activation
///   gives way to a set "activation" or "hidden" (it would override the one or not fit the other),
///   and a hash grid field the config sized to the image is trained as set.
#include "engine/run_config.h"

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace redraw {

/// A field and its values, each as compact JSON text: "20", "\"Tanh\"", "[64,64]".
struct ConfigField {
  std::string key;
  std::vector<std::string> values;
};

/// "KEY=V1,V2,...". Values are split at commas outside brackets, braces and quotes. ConfigError
/// naming the text when it has no '=', no key or a malformed one, or an empty value.
ConfigField parse_config_field(const std::string& text);

/// The longest path a field is named by (a config's deepest is three parts).
inline constexpr int k_max_config_key_parts = 8;
inline constexpr size_t k_max_config_key_chars = 200;
/// ConfigError unless `key` names a field by its path: not empty, no empty part ("model..omega_0"),
/// within k_max_config_key_parts and k_max_config_key_chars.
void check_config_key(const std::string& key);

/// "model.encoding.n_levels" -> {"model", "encoding", "n_levels"}.
std::vector<std::string> split_config_key(const std::string& key);

/// Sets the field at `key` in a config's JSON (the sections on its path are made when missing);
/// ConfigError when a part of the path is a value, not a section.
void set_config_field(nlohmann::json& config, const std::string& key, const nlohmann::json& value);

/// " (schedule.lr_max is a field)" when `error` says one of `keys` is an unknown key and that key's
/// last part is a field of another section of `config`, else "".
std::string config_field_hint(const nlohmann::json& config, const std::string& error,
                              const std::vector<std::string>& keys);

/// `base` with each of `sets` ("KEY=VALUE", one value each) set, read as a config file is.
/// ConfigError naming `source`, the key and what is wrong.
RunConfig with_config_fields(const RunConfig& base, const std::vector<std::string>& sets, const std::string& source);

} // namespace redraw
