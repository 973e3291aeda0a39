#include "engine/config_fields.h"

#include "engine/display_text.h"
#include "engine/errors.h"
#include "engine/json_read.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace redraw {
using nlohmann::json;

namespace {
/// `text` split at the commas that are outside brackets, braces and double quotes. A closing
/// bracket or brace with none open is text like any other: the depth never goes below zero, so
/// the commas after a stray `]` still split.
std::vector<std::string> split_top_level(const std::string& text) {
  std::vector<std::string> parts(1);
  int depth = 0;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted && c == '\\' && i + 1 < text.size()) {
      parts.back() += c;
      parts.back() += text[++i];
      continue;
    }
    if (c == '"') quoted = !quoted;
    if (!quoted && (c == '[' || c == '{')) ++depth;
    if (!quoted && (c == ']' || c == '}') && depth > 0) --depth;
    if (c == ',' && depth == 0 && !quoted) {
      parts.emplace_back();
      continue;
    }
    parts.back() += c;
  }
  return parts;
}

/// A value as compact JSON text: JSON as written, anything else a string. ConfigError naming the
/// key when it is nested too deep.
std::string value_json(const std::string& text, const std::string& key) {
  const json v = try_parse_json(text, "--set " + key);
  return v.is_discarded() ? json(text).dump() : v.dump();
}

/// A config's JSON lists one activation per hidden layer ("activations"), which would override a
/// swept "activation" and no longer fit a swept "hidden": when they are all the same, it becomes
/// the one "activation" they share, which fits any depth.
void merge_activations(json& model, const std::string& field) {
  if ((field != "hidden" && field != "activation") || !model.contains("activations")) return;
  const json list = model["activations"];
  const bool uniform = list.is_array() && !list.empty() &&
                       std::all_of(list.begin(), list.end(), [&](const json& a) { return a == list[0]; });
  if (!uniform && field == "hidden") return; // mixed: the error asks for model.activations too
  if (field == "hidden" && !model.contains("activation")) model["activation"] = list[0];
  model.erase("activations");
}

} // namespace

std::vector<std::string> split_config_key(const std::string& key) {
  std::vector<std::string> parts(1);
  for (const char c : key) {
    if (c == '.')
      parts.emplace_back();
    else
      parts.back() += c;
  }
  return parts;
}

/// A hash grid field that was sized to the image leaves the "sized_to_image" list, so the value
/// given is the one trained.
void set_config_field(json& j, const std::string& key, const json& value) {
  const std::vector<std::string> parts = split_config_key(key);
  json* at = &j;
  std::string path;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    path += (path.empty() ? "" : ".") + parts[i];
    if (!at->contains(parts[i])) (*at)[parts[i]] = json::object();
    at = &(*at)[parts[i]];
    if (!at->is_object()) throw ConfigError("--set " + key + ": " + path + " is a value, not a section");
  }
  (*at)[parts.back()] = value;
  if (parts.size() == 2 && parts[0] == "model") merge_activations(*at, parts[1]);
  if (parts.size() == 3 && parts[0] == "model" && parts[1] == "encoding" && at->contains("sized_to_image")) {
    json& sized = (*at)["sized_to_image"];
    sized.erase(std::remove(sized.begin(), sized.end(), json(parts.back())), sized.end());
    if (sized.empty()) at->erase("sized_to_image");
  }
}

std::string config_field_hint(const json& config, const std::string& error, const std::vector<std::string>& keys) {
  for (const std::string& key : keys) {
    if (error.find(key + ": unknown key") == std::string::npos) continue;
    const std::string leaf = split_config_key(key).back();
    std::string found;
    for (auto it = config.begin(); it != config.end(); ++it) {
      if (it->is_object() && it->contains(leaf) && it.key() + "." + leaf != key) found = it.key() + "." + leaf;
      if (it.key() == "model" && it->contains("encoding") && (*it)["encoding"].contains(leaf))
        found = "model.encoding." + leaf;
    }
    return found.empty() ? std::string() : " (" + found + " is a field)";
  }
  return {};
}

void check_config_key(const std::string& key) {
  // A config's deepest field is three parts down (model.encoding.n_levels): a longer path names none,
  // and is refused before a section is made for each of its parts.
  if (key.size() > k_max_config_key_chars || std::count(key.begin(), key.end(), '.') >= k_max_config_key_parts)
    throw ConfigError("--set " + key.substr(0, 40) + "...: not a config field (a field's path has at most " +
                      std::to_string(k_max_config_key_parts) + " parts and " + std::to_string(k_max_config_key_chars) +
                      " characters, e.g. model.encoding.n_levels)");
  if (key.empty() || key.front() == '.' || key.back() == '.' || key.find("..") != std::string::npos)
    throw ConfigError("--set " + key + ": a field is named by its JSON path, e.g. model.omega_0");
}

ConfigField parse_config_field(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos) throw ConfigError("--set " + text + ": give KEY=VALUE[,VALUE...]");
  ConfigField field;
  field.key = trim_blanks(text.substr(0, eq));
  check_config_key(field.key);
  for (const std::string& part : split_top_level(text.substr(eq + 1))) {
    const std::string v = trim_blanks(part);
    if (v.empty()) throw ConfigError("--set " + text + ": an empty value");
    field.values.push_back(value_json(v, field.key));
  }
  return field;
}

RunConfig with_config_fields(const RunConfig& base, const std::vector<std::string>& sets, const std::string& source) {
  if (sets.empty()) return base;
  json j = to_json(base);
  std::string described = source;
  std::vector<std::string> keys;
  for (size_t i = 0; i < sets.size(); ++i) {
    const ConfigField f = parse_config_field(sets[i]);
    if (f.values.size() != 1)
      throw ConfigError("--set " + sets[i] + ": one value per field here (a sweep's --set takes several)");
    set_config_field(j, f.key, parse_json(f.values[0], "--set " + f.key));
    keys.push_back(f.key);
    described += (i ? ", " : " with --set ") + trim_blanks(sets[i]);
  }
  try {
    return parse_run_config(j, described);
  } catch (const ConfigError& e) {
    throw ConfigError(e.what() + config_field_hint(j, e.what(), keys));
  }
}

} // namespace redraw
