// libFuzzer target: run config parsing (JSON text -> RunConfig) through the JSON reader every file
// goes through (parse_json: deep nesting refused), and the round trip through to_json.
#include "engine/errors.h"
#include "engine/json_read.h"
#include "engine/run_config.h"

#include <nlohmann/json.hpp>

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  redraw::RunConfig c;
  try {
    const nlohmann::json j = redraw::parse_json({reinterpret_cast<const char*>(data), size}, "fuzz.json");
    c = redraw::parse_run_config(j, "fuzz.json");
  } catch (const redraw::ConfigError&) {
    return 0;
  }
  try {
    const redraw::RunConfig back = redraw::parse_run_config(redraw::to_json(c), "fuzz.json (again)");
    if (redraw::to_json(back) != redraw::to_json(c)) std::abort();
  } catch (const redraw::ConfigError&) {
    std::abort(); // what parsed once must parse again
  }
  return 0;
}
