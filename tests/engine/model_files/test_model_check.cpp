// What a model file says, checked once for every consumer: each kind of bad meaning is named by
// its field; printed text from a file is escaped and bounded.
#include "test_support.h"

#include "engine/model_files/checkpoint.h"
#include "engine/model_files/checkpoint_codec.h"
#include "engine/display_text.h"
#include "engine/errors.h"
#include "engine/gaussian_bounds.h"
#include "engine/model_files/model_check.h"
#include "engine/run_config.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cstring>

#include <string>

using namespace redraw;

namespace {
Checkpoint sane_model() {
  Trainer t = test::small_trainer(test::small_config(OptimizerKind::Adam, 0), test::gradient_image(12, 9, 3));
  t.run(6);
  Checkpoint c = t.checkpoint("/somewhere/img.png");
  c.snapshots.clear();
  Snapshot first;
  first.metrics = t.record().rows().front();
  first.params = c.params;
  c.snapshots.push_back(first);
  return c;
}

/// The first issue's field, or "" for a sane model.
std::string first_field(const Checkpoint& c) {
  const auto issues = check_model(c);
  return issues.empty() ? std::string() : issues.front().field;
}
} // namespace

TEST_CASE("model check: a trained model is sane, and each kind of bad meaning names its field") {
  const Checkpoint good = sane_model();
  REQUIRE(check_model(good).empty());
  CHECK_NOTHROW(require_sane_model(good, "m.redraw"));

  Checkpoint c = good;
  c.params[3] = 3e38f; // finite, but the first layer overflows to inf and NaN
  CHECK(first_field(c) == "PARM");
  CHECK_THROWS_WITH_AS(require_sane_model(c, "m.redraw"), doctest::Contains("m.redraw: PARM: 1 of"), CheckpointError);
  c = good;
  c.params[0] = std::numeric_limits<float>::quiet_NaN();
  CHECK(check_model(c).front().what.find("not finite") != std::string::npos);
  c = good;
  c.optimizer.second[1] = -1;
  CHECK(first_field(c) == "OPTM (second moment)");
  c = good;
  c.optimizer.first[2] = std::numeric_limits<float>::infinity();
  CHECK(first_field(c) == "OPTM (first moment)");
  c = good;
  c.snapshots[0].params[5] = -2e7f;
  CHECK(first_field(c) == "SNAP[0].params");
  c = good;
  c.snapshots[0].metrics.step = c.step + 1;
  CHECK(first_field(c) == "SNAP[0]");
  c = good;
  c.snapshots.push_back(c.snapshots[0]); // the same step twice
  CHECK(first_field(c) == "SNAP[1]");
  c = good;
  REQUIRE(c.history.size() >= 2);
  std::swap(c.history[0], c.history[1]); // unsorted
  CHECK(first_field(c) == "HIST[1]");
  c = good;
  c.history.back().step = -4;
  CHECK(first_field(c) == "HIST[" + std::to_string(c.history.size() - 1) + "]");
  c = good;
  c.step = k_max_model_steps + 1;
  CHECK(first_field(c) == "META.step");
  c = good;
  c.seconds = std::numeric_limits<double>::infinity();
  CHECK(first_field(c) == "META.seconds");
  c = good;
  c.source_image = std::string(200000, 'a');
  CHECK(first_field(c) == "META.source_image");
  CHECK(check_model(c).front().what.find("200000 bytes") != std::string::npos);
  c = good;
  c.source_image = std::string(k_max_model_string_bytes, 'a'); // the limit itself is fine
  CHECK(check_model(c).empty());
  c = good;
  c.config.name = "caf\xC3"; // cut inside a code point
  CHECK(first_field(c) == "META.config.name");
  c = good;
  c.config.model.output_channels = 2;
  CHECK(first_field(c) == "META.output_channels");
  c = good;
  c.image_width = 0;
  CHECK(first_field(c) == "META.image_width/image_height");
  c = good;
  c.image_width = k_max_train_side + 1; // more than any trainer writes
  CHECK(first_field(c) == "META.image_width/image_height");
  c = good;
  c.recoveries.push_back(RecoveryEvent{});
  c.recoveries.back().step = c.step + 10;
  c.recoveries.back().rolled_back_to = c.step + 10; // went back to a state the model has not reached
  CHECK(first_field(c) == "RCOV[0]");
  c.recoveries.back().rolled_back_to = c.step; // saved right after going back from a later step: fine
  CHECK(check_model(c).empty());
  c.recoveries.back().step = c.step - 1; // found before the state it went back to
  CHECK(first_field(c) == "RCOV[0]");
}

TEST_CASE("model check: open_model refuses on disk what load_checkpoint still reads (for info)") {
  test::TempDir dir;
  // A file from elsewhere (the writer refuses such weights): a format-2 model, whose PARM is
  // stored as it is, with its first weight patched to 3e38 and the CRC resealed.
  std::vector<uint8_t> bytes = serialize_checkpoint(sane_model(), 2);
  for (const ChunkRef& ref : chunk_table(bytes.data() + 12, bytes.size() - 16, "huge"))
    if (ref.tag == "PARM") {
      const float huge = 3e38f;
      std::memcpy(bytes.data() + (ref.body - bytes.data()) + 8, &huge, 4); // after the u64 count
    }
  const uint32_t crc = checkpoint_crc(bytes.data(), bytes.size() - 4);
  std::memcpy(bytes.data() + bytes.size() - 4, &crc, 4);
  test::write_bytes(dir.path / "huge.redraw", bytes);
  CHECK(load_checkpoint(dir.path / "huge.redraw").params[0] == 3e38f);
  CHECK_THROWS_WITH_AS(open_model(dir.path / "huge.redraw"), doctest::Contains("PARM"), CheckpointError);
  save_checkpoint(dir.path / "ok.redraw", sane_model());
  CHECK(open_model(dir.path / "ok.redraw").step == 6);
}

TEST_CASE("utf-8 validity") {
  CHECK(is_valid_utf8(""));
  CHECK(is_valid_utf8("plain"));
  CHECK(is_valid_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));
  CHECK_FALSE(is_valid_utf8("\xC3"));             // truncated
  CHECK_FALSE(is_valid_utf8("\xC0\xAF"));         // overlong
  CHECK_FALSE(is_valid_utf8("\xED\xA0\x80"));     // a surrogate
  CHECK_FALSE(is_valid_utf8("\xF4\x90\x80\x80")); // past U+10FFFF
  CHECK_FALSE(is_valid_utf8("\xFF"));
}

TEST_CASE("printed metadata: control characters are escaped, long text is elided") {
  CHECK(escape_control("a\x1b]0;x\x07z") == "a\\x1b]0;x\\x07z");
  CHECK(escape_control("line\nnext\ttab\x7f") == "line\\nnext\\ttab\\x7f");
  CHECK(escape_control("caf\xC3\xA9") == "caf\xC3\xA9");      // UTF-8 passes
  CHECK(escape_control("\xC2\x9B" "31m") == "\\u009b31m"); // a C1 CSI
  CHECK(escape_control("bad\xFFz") == "bad\\xffz");
  const std::string long_path = "/" + std::string(100000, 'd') + "/file.png";
  const std::string end_kept = elide(long_path, 40, true);
  CHECK(end_kept.size() == 40);
  CHECK(end_kept.substr(end_kept.size() - 8) == "file.png");
  CHECK(elide(long_path, 40).substr(37) == "...");
  CHECK(elide("short", 40) == "short");
  // never cut inside a code point
  const std::string euros = elide(std::string(30, 'x') + std::string(20, '\0') + "\xE2\x82\xAC\xE2\x82\xAC", 20);
  CHECK(is_valid_utf8(euros));
  CHECK(is_valid_utf8(elide(std::string(100, 'a') + "\xE2\x82\xAC" + std::string(100, 'b'), 50, true)));
}

TEST_CASE("model check: a source path too long or not UTF-8 is stored shortened, and the model opens again") {
  Checkpoint c = sane_model();
  // 22 folders of 200 letters (4,400 bytes; a path any user may have), one of them not UTF-8
  std::string deep;
  for (int i = 0; i < 22; ++i) deep += "/" + std::string(199, char('a' + i % 26)) + (i == 3 ? "\xE9" : "x");
  c.source_image = deep + "/photo \xE2\x82\xAC.png";
  test::TempDir dir;
  save_checkpoint(dir.path / "m.redraw", c);
  const Checkpoint back = load_checkpoint(dir.path / "m.redraw");
  CHECK(check_model(back).empty()); // what open_model, render and --resume ask
  CHECK(back.source_image.size() <= k_max_model_string_bytes);
  CHECK(back.source_image.rfind("...", 0) == 0);
  CHECK(back.source_image.size() > k_max_model_string_bytes - 8); // the longest tail that fits
  CHECK(back.source_image.find("/photo \xE2\x82\xAC.png") == back.source_image.size() - 14);
  CHECK(is_valid_utf8(back.source_image));
  // A short path that is not UTF-8 keeps its length, each bad byte U+FFFD.
  c.source_image = "/tmp/caf\xE9.png";
  save_checkpoint(dir.path / "n.redraw", c);
  CHECK(load_checkpoint(dir.path / "n.redraw").source_image == "/tmp/caf\xEF\xBF\xBD.png");
  CHECK(utf8_within("plain", 16) == "plain");
}

TEST_CASE("model check: a config name a model could not keep is refused before a run starts, naming the field") {
  nlohmann::json j = to_json(load_preset("siren"));
  j["name"] = std::string(k_max_model_string_bytes + 1, 'n');
  CHECK_THROWS_WITH_AS(parse_run_config(j, "long.json"),
                       doctest::Contains("long.json: name: is 4097 bytes long (a model keeps at most 4096)"), ConfigError);
  j["name"] = std::string("a\0b", 3);
  CHECK_THROWS_WITH_AS(parse_run_config(j, "nul.json"), doctest::Contains("nul.json: name: holds a NUL character"),
                       ConfigError);
  j["name"] = std::string(k_max_model_string_bytes, 'n'); // the limit itself is kept
  CHECK(parse_run_config(j, "ok.json").name.size() == k_max_model_string_bytes);
}

TEST_CASE("model check: a gaussians model's Gaussians past the bound are named, in PARM and a frame") {
  RunConfig cfg = load_preset("gaussians");
  cfg.model.encoding.gaussians = 5000;
  cfg.training.steps = 2;
  cfg.training.metrics_every = 1;
  Trainer t = test::small_trainer(cfg, test::gradient_image(24, 16, 3));
  t.run(2);
  Checkpoint c = t.checkpoint("img.png");
  REQUIRE(check_model(c).empty());
  const int64_t pairs = gaussian_pair_count(gaussian_params(5000), c.params.data());
  MESSAGE("5000 Gaussians after 2 steps: " << double(pairs) / 5000 << " pairs a Gaussian");
  CHECK(pairs < 32 * 5000);
  Checkpoint wide = c;
  for (int64_t i = 0; i < 5000; ++i)
    wide.params[size_t(i * k_gaussian_floats + k_gauss_l11)] = wide.params[size_t(i * k_gaussian_floats + k_gauss_l22)] =
        1000.0f;
  const auto issues = check_model(wide);
  REQUIRE(!issues.empty());
  CHECK(issues.front().field == "PARM");
  CHECK(issues.front().what.find("Gaussians far larger than the picture") != std::string::npos);
  CHECK_THROWS_WITH_AS(require_sane_model(wide, "g.redraw"), doctest::Contains("g.redraw: PARM: the 5000 Gaussians"),
                       CheckpointError);
  REQUIRE(!c.snapshots.empty());
  Checkpoint frame = c;
  frame.snapshots.front().params = wide.params; // a keyframe's weights, exact
  frame.snapshots.front().half_params.clear();
  REQUIRE(!check_model(frame).empty());
  CHECK(check_model(frame).front().field == "SNAP[0].params");
}
