// libFuzzer target: the JSON readers of the files Redraw takes from elsewhere, each through the
// JSON reader every file goes through (parse_json: deep nesting refused). The input's first byte
// picks the reader, the rest is its JSON text (one target, as CI's fuzzing time is short):
//   's'   a sweep spec (parse_sweep_spec; the plan is not built, which reads image files);
//   'p'   a sweep folder's sweep.json (parse_sweep_plan);
//   'm'   a model's META chunk, in a model file of that one chunk (read_checkpoint_meta);
//   else  the whole input is a run config (parse_run_config), and its round trip through to_json.
#include "engine/errors.h"
#include "engine/json_read.h"
#include "engine/model_files/checkpoint.h"
#include "engine/run_config.h"
#include "engine/sweep/sweep_plan.h"

#include <nlohmann/json.hpp>
#include <zlib.h>

#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

namespace {

void config(std::string_view text) {
  redraw::RunConfig c;
  try {
    const nlohmann::json j = redraw::parse_json(text, "fuzz.json");
    c = redraw::parse_run_config(j, "fuzz.json");
  } catch (const redraw::ConfigError&) {
    return;
  }
  try {
    const redraw::RunConfig back = redraw::parse_run_config(redraw::to_json(c), "fuzz.json (again)");
    if (redraw::to_json(back) != redraw::to_json(c)) std::abort();
  } catch (const redraw::ConfigError&) {
    std::abort(); // what parsed once must parse again
  }
}

void spec(std::string_view text) {
  try {
    (void)redraw::parse_sweep_spec(redraw::parse_json(text, "spec.json"), "spec.json");
  } catch (const redraw::ConfigError&) {
  }
}

void sweep_plan(std::string_view text) {
  try {
    (void)redraw::parse_sweep_plan(redraw::parse_json(text, "sweep.json"), "sweep.json");
  } catch (const redraw::ConfigError&) {
  }
}

/// A version-3 model file holding one stored META chunk with `text` (as tests/model_mutate.py writes).
void model_meta(std::string_view text) {
  std::vector<uint8_t> b = {'R', 'D', 'R', 'W', 'M', 'O', 'D', 'L'};
  const auto le = [&b](uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i)
      b.push_back(uint8_t(v >> (8 * i)));
  };
  le(redraw::k_checkpoint_version, 4);
  le(1, 4);
  b.insert(b.end(), {'M', 'E', 'T', 'A'});
  le(12 + text.size(), 8);
  b.insert(b.end(), {0, 1, 0, 0}); // stored, no filter
  le(text.size(), 8);
  b.insert(b.end(), text.begin(), text.end());
  le(crc32(0, b.data(), uInt(b.size())), 4);
  try {
    (void)redraw::read_checkpoint_meta(b.data(), b.size(), "fuzz.redraw");
  } catch (const redraw::CheckpointError&) {
  } catch (const redraw::ConfigError&) {
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  const std::string_view rest = size ? all.substr(1) : all;
  switch (size ? data[0] : 0) {
  case 's': spec(rest); break;
  case 'p': sweep_plan(rest); break;
  case 'm': model_meta(rest); break;
  default: config(all); break;
  }
  return 0;
}
