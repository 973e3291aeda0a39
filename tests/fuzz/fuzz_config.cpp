// libFuzzer target: run config parsing (JSON text -> RunConfig), and the round trip through to_json.
#include "engine/errors.h"
#include "engine/run_config.h"

#include <nlohmann/json.hpp>

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, false);
  if (j.is_discarded()) return 0;
  redraw::RunConfig c;
  try {
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
