// JSON from files and text others wrote (engine/json_read.h): nesting is bounded while parsing, so
// a value 100,000 levels deep is refused, naming the source and the keys above it, instead of
// overflowing the stack in nlohmann's recursive copy and dump; each reader goes through it.
#include "engine/errors.h"
#include "engine/json_read.h"
#include "engine/model_files/checkpoint.h"
#include "engine/model_files/checkpoint_codec.h"
#include "engine/run_config.h"
#include "engine/sweep/sweep_plan.h"
#include "engine/sweep/sweep_results.h"
#include "test_support.h"

#include <nlohmann/json.hpp>

#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <functional>

namespace redraw {
namespace {
/// `depth` nested arrays around a 1: "[[[1]]]" for 3.
std::string nested(size_t depth) { return std::string(depth, '[') + "1" + std::string(depth, ']'); }

std::string json_error_of(const std::function<void()>& read) {
  try {
    read();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

void write_text(const std::filesystem::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary) << text;
}
} // namespace

TEST_CASE("json read: nesting up to the limit parses, one level more is refused naming the field") {
  const nlohmann::json ok = parse_json(nested(size_t(k_max_json_depth)), "t.json");
  const nlohmann::json* v = &ok;
  int levels = 0;
  for (; v->is_array(); v = &(*v)[0])
    ++levels;
  CHECK(levels == k_max_json_depth);
  CHECK(*v == 1);
  CHECK(json_error_of([] { (void)parse_json(nested(size_t(k_max_json_depth) + 1), "t.json"); }) ==
        "t.json: [][][][][][]...: nested deeper than 64 levels of arrays and objects");
  // The keys above the deep value name the field; long keys are shortened, control characters escaped.
  const std::string deep = R"({"config": {"name": "x", "model": {"hidden": )" + nested(100000) + "}}}";
  CHECK(json_error_of([&] { (void)parse_json(deep, "c.json"); }) ==
        "c.json: config.model.hidden[][][]...: nested deeper than 64 levels of arrays and objects");
  const std::string odd = "{\"a\\u001bb\": " + std::string(70, '[') + std::string(70, ']') + "}";
  CHECK(json_error_of([&] { (void)parse_json(odd, "o.json"); }).find("o.json: a\\x1bb[][][][][]...: nested") == 0);
  const std::string objects = [] {
    std::string s;
    for (int i = 0; i < 100000; ++i)
      s += "{\"k\":";
    return s + "1" + std::string(100000, '}');
  }();
  CHECK(json_error_of([&] { (void)parse_json(objects, "d.json"); }) ==
        "d.json: k.k.k.k.k.k...: nested deeper than 64 levels of arrays and objects");
}

TEST_CASE("json read: text that is not JSON is refused by position, never quoted; try_parse_json gives it back") {
  CHECK(json_error_of([] { (void)parse_json("{\"a\": tru", "t.json"); }) == "t.json: not valid JSON (at byte 10)");
  CHECK(try_parse_json("Tanh", "--set x").is_discarded());
  CHECK(try_parse_json("[64, 64]", "--set x") == nlohmann::json::array({64, 64}));
  CHECK(json_error_of([] { (void)try_parse_json(nested(100000), "--set model.hidden"); }).find("--set model.hidden: [][]") ==
        0);
  CHECK(json_excerpt(nlohmann::json(std::string(1000, 'x'))).size() <= 43);
}

TEST_CASE("json read: every reader refuses a value 100,000 levels deep, naming its file and field") {
  test::TempDir dir;
  const std::string deep = nested(100000);
  // A run config (--config, presets).
  write_text(dir.path / "run.json", R"({"model": {"encoding": {"sized_to_image": )" + deep + "}}}");
  CHECK(json_error_of([&] { (void)load_run_config(dir.path / "run.json"); }) ==
        (dir.path / "run.json").string() +
            ": model.encoding.sized_to_image[][][]...: nested deeper than 64 levels of arrays and objects");
  // A sweep's --set value and its sweep.json.
  CHECK(json_error_of([&] { (void)parse_sweep_axis("model.hidden=" + deep); }).find("--set model.hidden: [][]") == 0);
  write_text(dir.path / "sweep.json", R"({"format": "redraw-sweep", "version": )" + deep + "}");
  CHECK(json_error_of([&] { (void)load_sweep_plan(dir.path); }) ==
        (dir.path / "sweep.json").string() +
            ": version[][][][][]...: nested deeper than 64 levels of arrays and objects");
  // A cell's result.json.
  CHECK(json_error_of([&] {
          (void)parse_cell_result(R"({"status": )" + deep + "}", "result.json");
        }).find("result.json: status[][][][][]...: nested deeper") == 0);
  // A model's metadata (META) and recovery list (RCOV).
  Trainer t = test::small_trainer(test::small_config(OptimizerKind::Adam, 0), test::gradient_image(12, 9, 3));
  t.run(3);
  const std::vector<uint8_t> good = serialize_checkpoint(t.checkpoint("img.png"));
  for (const char* tag : {"META", "RCOV"}) {
    CAPTURE(tag);
    std::vector<uint8_t> out(good.begin(), good.begin() + 12);
    std::vector<std::pair<std::string, std::string>> chunks;
    bool replaced = false;
    for (const ChunkRef& c : chunk_table(good.data() + 12, good.size() - 16, "t")) {
      chunks.emplace_back(c.tag, std::string(reinterpret_cast<const char*>(c.body), c.len));
      if (c.tag == tag) chunks.back().second = deep, replaced = true;
    }
    if (!replaced) chunks.emplace_back(tag, deep);
    for (auto& [name, body] : chunks) // stored: {codec 0, width 1, 0, length}, then the bytes
      if (name == tag) {
        std::string head(12, '\0');
        head[1] = 1;
        const uint64_t n = body.size();
        std::memcpy(head.data() + 4, &n, 8);
        body = head + body;
      }
    const uint32_t count = uint32_t(chunks.size());
    out.insert(out.end(), reinterpret_cast<const uint8_t*>(&count), reinterpret_cast<const uint8_t*>(&count) + 4);
    for (const auto& [name, body] : chunks) {
      out.insert(out.end(), name.begin(), name.end());
      const uint64_t len = body.size();
      out.insert(out.end(), reinterpret_cast<const uint8_t*>(&len), reinterpret_cast<const uint8_t*>(&len) + 8);
      out.insert(out.end(), body.begin(), body.end());
    }
    const uint32_t crc = checkpoint_crc(out.data(), out.size());
    out.insert(out.end(), reinterpret_cast<const uint8_t*>(&crc), reinterpret_cast<const uint8_t*>(&crc) + 4);
    CHECK(json_error_of([&] { (void)deserialize_checkpoint(out.data(), out.size(), "m.redraw"); }) ==
          std::string("m.redraw: chunk ") + tag +
              ": [][][][][][]...: nested deeper than 64 levels of arrays and objects");
  }
}

} // namespace redraw
