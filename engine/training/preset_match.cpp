#include "engine/training/preset_match.h"

#include "engine/errors.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace redraw {

namespace {
nlohmann::json recipe_json(const RunConfig& c) {
  nlohmann::json j = to_json(c);
  j.erase("name");
  j.erase("description");
  j.erase("data");
  for (const char* k : {"steps", "seed", "metrics_every"})
    j["training"].erase(k);
  j["model"].erase("output_channels");
  // A hash grid's fields sized to the image (size_hash_grid_to_image) are sizes, not the recipe;
  // the list of them stays, so "auto" and a fixed value still differ.
  nlohmann::json& enc = j["model"]["encoding"];
  const nlohmann::json sized = enc.contains("sized_to_image") ? enc["sized_to_image"] : nlohmann::json::array();
  for (const auto& field : sized) // a copy: the loop erases from the object the list lives in
    if (field.is_string() && field != "sized_to_image") enc.erase(field.get<std::string>());
  return j;
}
} // namespace

bool same_recipe(const RunConfig& a, const RunConfig& b) { return recipe_json(a) == recipe_json(b); }

std::string preset_label(const RunConfig& c) {
  const auto names = preset_names();
  if (std::find(names.begin(), names.end(), c.name) == names.end()) return c.name;
  try {
    if (same_recipe(c, load_preset(c.name))) return c.name;
  } catch (const Error&) {
    return c.name; // an unreadable preset file: say what the config says
  }
  return "custom (from " + c.name + ")";
}

} // namespace redraw
