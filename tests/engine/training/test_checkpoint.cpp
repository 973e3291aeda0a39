// The .redraw format: bit-exact round trip, resume equivalence, and every kind of damage.
#include "test_support.h"

#include "engine/atomic_file.h"
#include "engine/model_files/checkpoint.h"
#include "engine/model_files/checkpoint_codec.h"
#include "cpu/cpu_backend.h"
#include "engine/errors.h"
#include "engine/training/trainer.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <zlib.h>

#include <algorithm>
#include "engine/half_float.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <unistd.h>

using namespace redraw;

namespace {
/// Re-seals the CRC-32 (zlib's, over all but the last 4 bytes) of edited model bytes, so that the
/// edit, not the checksum, is what the reader refuses, and checks the error names `name` and `needle`.
void expect_refused(std::vector<uint8_t> bytes, const std::string& name, const std::string& needle) {
  const uint32_t crc = uint32_t(crc32(crc32(0L, Z_NULL, 0), bytes.data(), uInt(bytes.size() - 4)));
  std::memcpy(bytes.data() + bytes.size() - 4, &crc, 4);
  try {
    (void)deserialize_checkpoint(bytes.data(), bytes.size(), name);
    FAIL("no error");
  } catch (const CheckpointError& e) {
    CHECK(std::string(e.what()).find(name) != std::string::npos);
    CHECK(std::string(e.what()).find(needle) != std::string::npos);
  }
}
} // namespace

TEST_CASE("checkpoint round trip is bit-exact") {
  Trainer t = test::small_trainer(test::small_config(OptimizerKind::Adam, 0), test::gradient_image(12, 9, 3));
  t.run(7);
  Checkpoint c = t.checkpoint("somewhere/img.png");
  c.snapshots.push_back(Snapshot{t.record().rows().front(), c.params, {}, {}});
  const auto bytes = serialize_checkpoint(c);
  const Checkpoint back = deserialize_checkpoint(bytes.data(), bytes.size(), "mem");
  CHECK(serialize_checkpoint(back) == bytes);
  CHECK(back.step == 7);
  CHECK(back.image_width == 12);
  CHECK(back.image_height == 9);
  CHECK(back.source_image == "somewhere/img.png");
  CHECK(back.params == c.params);
  CHECK(back.optimizer.first == c.optimizer.first);
  CHECK(back.optimizer.second == c.optimizer.second);
  CHECK(back.history.size() == c.history.size());
  CHECK(back.snapshots.size() == c.snapshots.size());
  // A frame without a picture keeps its weights, rounded to fp16 (step 0's stay exact).
  CHECK(back.snapshots.back().half_params == to_half(c.params));
  CHECK(to_json(back.config) == to_json(c.config));
}

TEST_CASE("a model written chunk by chunk is the same file as the one serialized whole, CRC included") {
  Trainer t = test::small_trainer(test::small_config(OptimizerKind::Adam, 0), test::gradient_image(12, 9, 3));
  t.run(7);
  const Checkpoint c = t.checkpoint("img.png");
  const auto whole = serialize_checkpoint(c);
  const auto dir = std::filesystem::temp_directory_path() / ("redraw_stream_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    AtomicFileWriter out(dir / "m.redraw");
    write_checkpoint(out, c);
    out.commit();
  }
  std::ifstream in(dir / "m.redraw", std::ios::binary);
  const std::vector<uint8_t> streamed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(streamed == whole);
  CHECK(load_checkpoint(dir / "m.redraw").params == c.params);
  std::filesystem::remove_all(dir);
}

TEST_CASE("resume: 100 steps equal 50 steps, save, load, 50 steps (bit-exact)") {
  for (int64_t batch : {int64_t(0), int64_t(40)}) {
    for (OptimizerKind opt : {OptimizerKind::Adam, OptimizerKind::Sgd}) {
      CAPTURE(batch);
      CAPTURE(std::string(optimizer_name(opt)));
      RunConfig cfg = test::small_config(opt, batch);
      cfg.training.steps = 100;
      cfg.schedule.kind = ScheduleKind::Cosine;
      const Image img = test::gradient_image(16, 12, 1);

      Trainer straight = test::small_trainer(cfg, img);
      straight.run(100);

      test::TempDir dir;
      {
        Trainer first = test::small_trainer(cfg, img);
        first.run(50);
        save_checkpoint(dir.path / "half.redraw", first.checkpoint());
      }
      const Checkpoint c = load_checkpoint(dir.path / "half.redraw");
      Trainer second = test::small_trainer(c.config, img);
      second.restore(c);
      CHECK(second.current_step() == 50);
      second.run(50);

      const auto a = straight.parameters(), b = second.parameters();
      REQUIRE(a.size() == b.size());
      CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
      CHECK(second.record().rows().back().psnr_db == straight.record().rows().back().psnr_db);
    }
  }
}

TEST_CASE("damaged model files are refused with a clear error") {
  Trainer t = test::small_trainer(test::small_config(OptimizerKind::Adam, 0), test::gradient_image(8, 8, 1));
  t.run(3);
  const auto good = serialize_checkpoint(t.checkpoint());
  auto expect_error = [](std::vector<uint8_t> bytes, const char* needle) {
    CAPTURE(std::string(needle));
    try {
      deserialize_checkpoint(bytes.data(), bytes.size(), "bad.redraw");
      FAIL("no error");
    } catch (const CheckpointError& e) {
      CHECK(std::string(e.what()).find("bad.redraw") != std::string::npos);
      CHECK(std::string(e.what()).find(needle) != std::string::npos);
    }
  };
  expect_error({}, "too short");
  expect_error(std::vector<uint8_t>(good.begin(), good.begin() + good.size() / 2), "checksum");
  auto flipped = good;
  flipped[flipped.size() / 2] ^= 0x40;
  expect_error(flipped, "checksum");
  auto magic = good;
  magic[0] = 'X';
  expect_error(magic, "magic");
  // A real file from a newer redraw (its checksum right) is named as such...
  auto with_crc = [](std::vector<uint8_t> bytes) {
    const uint32_t crc = uint32_t(crc32(0L, bytes.data(), uInt(bytes.size() - 4)));
    std::memcpy(bytes.data() + bytes.size() - 4, &crc, 4);
    return bytes;
  };
  auto version = good;
  version[8] = 99;
  expect_error(with_crc(version), "written by a newer redraw");
  // ...but damaged or truncated bytes are never taken for one (the trial's "format version
  // 1465009234": a second magic where the version belongs, as when a copy was cut and spliced).
  expect_error(version, "truncated or damaged");
  std::vector<uint8_t> spliced(good.begin(), good.begin() + 8);
  spliced.insert(spliced.end(), good.begin(), good.begin() + good.size() / 3);
  expect_error(spliced, "truncated or damaged");
  for (const char* needle : {"newer", "version"}) {
    try {
      deserialize_checkpoint(spliced.data(), spliced.size(), "bad.redraw");
    } catch (const CheckpointError& e) {
      CHECK(std::string(e.what()).find(needle) == std::string::npos);
    }
  }
  std::vector<uint8_t> text(200, 'a');
  expect_error(text, "magic");

  test::TempDir dir;
  CHECK_THROWS_AS(load_checkpoint(dir.path / "missing.redraw"), CheckpointError);
  CHECK_THROWS_AS(load_checkpoint(dir.path), CheckpointError);
}

TEST_CASE("an auto colour model keeps its output channels, and a mismatch is refused") {
  RunConfig cfg = test::small_config(OptimizerKind::Adam, 0);
  cfg.data.color_mode = ColorMode::Auto;
  for (int32_t channels : {1, 3}) {
    CAPTURE(channels);
    Trainer t = test::small_trainer(cfg, test::gradient_image(8, 6, channels));
    t.run(2);
    CHECK(t.config().data.color_mode == ColorMode::Auto); // what the user chose stays
    const auto bytes = serialize_checkpoint(t.checkpoint());
    const Checkpoint back = deserialize_checkpoint(bytes.data(), bytes.size(), "auto.redraw");
    CHECK(back.config.data.color_mode == ColorMode::Auto);
    CHECK(back.config.model.output_channels == channels);
    CHECK(back.params.size() == t.parameters().size());
    CHECK(color_mode_label(back.config.data.color_mode, channels) == (channels == 1 ? "auto (gray)" : "auto (rgb)"));
  }
  // A file whose stored channel count contradicts its fixed colour mode is refused, naming both.
  cfg.data.color_mode = ColorMode::Gray;
  Trainer t = test::small_trainer(cfg, test::gradient_image(8, 6, 1));
  auto bytes = serialize_checkpoint(t.checkpoint(), 2); // format 2: META stored as text
  const std::string key = "\"output_channels\":1";
  auto it = std::search(bytes.begin(), bytes.end(), key.begin(), key.end());
  REQUIRE(it != bytes.end());
  *(it + long(key.size()) - 1) = '3';
  expect_refused(bytes, "odd.redraw", "output_channels 3 does not fit colour mode gray");
}

TEST_CASE("a format-2 frame with no weights is refused, not loaded as an empty frame") {
  // Found by fuzz_checkpoint: such a frame loaded, then vanished on the next save.
  Trainer t = test::small_trainer(test::small_config(OptimizerKind::Adam, 0), test::gradient_image(8, 8, 1));
  t.run(2);
  Checkpoint c = t.checkpoint();
  c.snapshots = {Snapshot{t.record().rows().back(), c.params, {}, {}}};
  std::vector<uint8_t> bytes = serialize_checkpoint(c, 2);
  // The SNAP chunk: tag, u64 body length, then u64 frame count, the row, u64 weight count, weights.
  const std::string tag = "SNAP";
  const auto at = std::search(bytes.begin(), bytes.end(), tag.begin(), tag.end());
  REQUIRE(at != bytes.end());
  const size_t chunk = size_t(at - bytes.begin());
  const size_t weights = chunk + 12 + 8 + k_checkpoint_row_bytes; // where the weight count is
  uint64_t body = 0, count = 0;
  std::memcpy(&body, &bytes[chunk + 4], 8);
  std::memcpy(&count, &bytes[weights], 8);
  REQUIRE(count == c.params.size());
  body -= count * 4;
  count = 0;
  std::memcpy(&bytes[chunk + 4], &body, 8);
  std::memcpy(&bytes[weights], &count, 8);
  bytes.erase(bytes.begin() + long(weights + 8), bytes.begin() + long(weights + 8 + c.params.size() * 4));
  expect_refused(bytes, "empty-frame.redraw", "keeps neither a picture nor weights");
}

TEST_CASE("a checkpoint for another network shape is refused on restore") {
  RunConfig a = test::small_config(OptimizerKind::Adam, 0);
  RunConfig b = a;
  b.model.hidden = {7, 3};
  Trainer ta = test::small_trainer(a, test::gradient_image(8, 8, 1));
  Trainer tb = test::small_trainer(b, test::gradient_image(8, 8, 1));
  CHECK_THROWS_AS(tb.restore(ta.checkpoint()), CheckpointError);
}

TEST_CASE("saving over an existing model is atomic: a failed save keeps the old file") {
  test::TempDir dir;
  Trainer t = test::small_trainer(test::small_config(OptimizerKind::Adam, 0), test::gradient_image(8, 8, 1));
  const auto file = dir.path / "m.redraw";
  save_checkpoint(file, t.checkpoint());
  const auto before = test::read_bytes(file);
  CHECK_THROWS_AS(save_checkpoint(dir.path / "no-such-folder" / "m.redraw", t.checkpoint()), IoError);
  CHECK(test::read_bytes(file) == before);
  CHECK(test::files_in(dir.path) == 1); // no temp files left behind
}

TEST_CASE("a model trained with the largest seed saves and loads again") {
  for (uint64_t seed : {UINT64_MAX, uint64_t(10000000000000000ull), uint64_t(9007199254740993ull)}) {
    CAPTURE(seed);
    RunConfig cfg = test::small_config(OptimizerKind::Adam, 0);
    cfg.training.seed = seed;
    cfg.model.encoding.seed = seed;
    Trainer t = test::small_trainer(cfg, test::gradient_image(6, 5, 3));
    t.run(2);
    test::TempDir dir;
    save_checkpoint(dir.path / "m.redraw", t.checkpoint());
    const Checkpoint back = load_checkpoint(dir.path / "m.redraw");
    CHECK(back.config.training.seed == seed);
    CHECK(back.config.model.encoding.seed == seed);
    CHECK(back.params == t.checkpoint().params);
  }
}

TEST_CASE("parameter_fingerprint: FNV-1a of the fp32 bytes; one flipped bit changes it") {
  // Reference values computed independently (Python: struct.pack('<f') bytes through FNV-1a 64).
  CHECK(parameter_fingerprint({}) == 0xcbf29ce484222325ull);
  const std::vector<float> a = {1.0f, -2.5f};
  CHECK(parameter_fingerprint(a) == 0x09e629ee2dfdb3f8ull);
  std::vector<float> b = a;
  b[1] = std::nextafter(b[1], 0.0f);
  CHECK(parameter_fingerprint(b) != parameter_fingerprint(a));
  CHECK(parameter_fingerprint(std::vector<float>{-2.5f, 1.0f}) != parameter_fingerprint(a));
}
