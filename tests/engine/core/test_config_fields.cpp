// Config fields set by their JSON path (engine/config_fields.h): train's --set over a preset,
// each field read as a config file's would be, and bad keys and values refused by name.
#include "engine/config_fields.h"
#include "engine/errors.h"
#include "test_support.h"

#include <nlohmann/json.hpp>

#include <doctest/doctest.h>

namespace redraw {
namespace {

/// with_config_fields' error for `sets` over `preset`, or "(no error)".
std::string fields_error(const std::string& preset, const std::vector<std::string>& sets) {
  try {
    (void)with_config_fields(load_preset(preset), sets, "preset " + preset);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

} // namespace

TEST_CASE("config fields: one value per field over a preset, read as a config file is") {
  test::ScopedEnv assets("REDRAW_ASSETS", test::test_assets().string());
  const RunConfig base = load_preset("gaussians");
  const RunConfig g = with_config_fields(base, {"model.gaussians=5000", " schedule.lr_max = 0.003"}, "preset gaussians");
  CHECK(g.model.encoding.gaussians == 5000);
  CHECK(g.schedule.lr_max == doctest::Approx(0.003).epsilon(1e-12));
  CHECK(base.model.encoding.gaussians != 5000); // the preset as it was
  CHECK(to_json(with_config_fields(base, {}, "preset gaussians")) == to_json(base)); // nothing set: unchanged

  // A set activation replaces the per-layer list; a set depth keeps a uniform list's activation.
  const RunConfig tanh = with_config_fields(load_preset("siren"), {"model.activation=Tanh"}, "preset siren");
  CHECK(tanh.model.hidden_activations == std::vector<Activation>(load_preset("siren").model.hidden.size(), Activation::Tanh));
  const RunConfig deep = with_config_fields(load_preset("siren"), {"model.hidden=[8,8,8,8,8]"}, "preset siren");
  CHECK(deep.model.hidden_activations == std::vector<Activation>(5, Activation::Sine));

  // A hash grid field the preset sizes to the image is trained as given.
  const RunConfig grid = with_config_fields(load_preset("instant"), {"model.encoding.log2_hashmap_size=12"}, "preset instant");
  CHECK_FALSE(grid.model.encoding.auto_table_size);
  CHECK(grid.model.encoding.log2_hashmap_size == 12);
  CHECK(grid.model.encoding.auto_finest_resolution); // the field not set still follows the image
}

TEST_CASE("config fields: values split at the commas outside brackets, and a stray closing bracket is text") {
  CHECK(parse_config_field("model.hidden=[64,64],[128]").values == std::vector<std::string>{"[64,64]", "[128]"});
  // A ']' or '}' with none open does not take the depth below zero: the comma after it splits.
  CHECK(parse_config_field("name=],[8]").values == std::vector<std::string>{"\"]\"", "[8]"});
  CHECK(parse_config_field("name=a],b").values == std::vector<std::string>{"\"a]\"", "\"b\""});
  CHECK(parse_config_field("name=}},x,[1,2]").values == std::vector<std::string>{"\"}}\"", "\"x\"", "[1,2]"});
  // Opened brackets still hold their commas, and a quoted ']' is no bracket.
  CHECK(parse_config_field("name=\"]\",[1,[2,3]]").values == std::vector<std::string>{"\"]\"", "[1,[2,3]]"});
}

TEST_CASE("config fields: a bad key, value or form is refused, naming the preset and the field") {
  test::ScopedEnv assets("REDRAW_ASSETS", test::test_assets().string());
  CHECK(fields_error("siren", {"model.omega=3"}).find("preset siren with --set model.omega=3: model.omega: unknown key") !=
        std::string::npos);
  CHECK(fields_error("siren", {"optimizer.lr_max=1"}).find("(schedule.lr_max is a field)") != std::string::npos);
  CHECK(fields_error("siren", {"model.omega_0=abc"}).find("must be a number") != std::string::npos);
  CHECK(fields_error("siren", {"model.omega_0=20,30"}).find("one value per field") != std::string::npos);
  CHECK(fields_error("siren", {"model.hidden.width=3"}).find("model.hidden is a value, not a section") !=
        std::string::npos);
  CHECK(fields_error("gaussians", {"model.gaussians=0"}).find("model.gaussians") != std::string::npos);
  CHECK(fields_error("siren", {"model.omega_0"}).find("give KEY=VALUE") != std::string::npos);
  CHECK(fields_error("siren", {"model..omega_0=3"}).find("named by its JSON path") != std::string::npos);
  CHECK(fields_error("siren", {"model.omega_0="}).find("an empty value") != std::string::npos);
  std::string deep = "model";
  for (int i = 0; i < 20000; ++i)
    deep += ".a";
  const std::string too_deep = fields_error("siren", {deep + "=1"});
  CHECK(too_deep.find("not a config field (a field's path has at most 8 parts") != std::string::npos);
  CHECK(too_deep.size() < 300); // the path is not echoed whole
  CHECK(fields_error("siren", {"a.b.c.d.e.f.g.h.i=1"}).find("at most 8 parts") != std::string::npos);
  CHECK(fields_error("siren", {"a.b.c.d.e.f.g.h=1"}).find("a: unknown key") != std::string::npos); // 8 parts: read
  CHECK(fields_error("siren", {"model.omega_0=25"}) == "(no error)");
}

} // namespace redraw
