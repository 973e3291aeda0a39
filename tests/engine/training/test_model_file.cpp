// engine/model_files/checkpoint (format 3) and engine/model_files/checkpoint_codec: a format-2 file written by an older
// redraw still loads and renders as that build rendered it; fp16 keyframes render within 50 dB of
// the exact weights; a damaged packed file is an error, never a crash; the hash grid sized to the
// image is recorded in the model.
#include "test_support.h"

#include "engine/model_files/checkpoint.h"
#include "engine/model_files/checkpoint_codec.h"
#include "cpu/cpu_backend.h"
#include "engine/errors.h"
#include "engine/half_float.h"
#include "engine/images/image.h"
#include "engine/training/open_run.h"
#include "engine/frames/renderer.h"
#include "engine/frames/timelapse.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>

using namespace redraw;

namespace {

/// Largest difference between a render and an 8-bit PNG, in 8-bit steps.
double max_steps_off(const Image& render, const Image& png) {
  REQUIRE(render.pixels.size() == png.pixels.size());
  double worst = 0;
  for (size_t i = 0; i < render.pixels.size(); ++i)
    worst = std::max(worst, std::abs(double(render.pixels[i]) - double(png.pixels[i])) * 255.0);
  return worst;
}

Image render_cpu(const Checkpoint& c, const std::vector<float>& params, int32_t w, int32_t h) {
  CpuBackend cpu;
  return render_image(cpu, NetworkView{&c.config.model, params, {}}, w, h);
}

BackendFactory cpu_only() {
  return [](const std::string&, std::string*, const std::string&) {
    return std::unique_ptr<Backend>(std::make_unique<CpuBackend>());
  };
}

void reseal(std::vector<uint8_t>& bytes) {
  const uint32_t crc = checkpoint_crc(bytes.data(), bytes.size() - 4);
  std::memcpy(bytes.data() + bytes.size() - 4, &crc, 4);
}
} // namespace

TEST_CASE("model file: a format-2 file from an older redraw loads and renders as that build rendered it") {
  const auto file = test::sample("model_v2_hashgrid.redraw");
  const Checkpoint c = load_checkpoint(file);
  // What that build's `info` printed.
  CHECK(c.params.size() == 261);
  CHECK(parameter_fingerprint(c.params) == 0x83a741970b211e9aull);
  CHECK(c.step == 12);
  REQUIRE(c.snapshots.size() == 9);
  CHECK(c.snapshots.front().resumable);
  for (const Snapshot& s : c.snapshots) CHECK(s.params.size() == 261);
  // Its renders of the final weights and of frame 3, within one 8-bit step (rounding).
  CHECK(max_steps_off(render_cpu(c, c.params, 24, 20), load_image(test::sample("model_v2_hashgrid_final.png"))) <= 1.0);
  CHECK(max_steps_off(render_cpu(c, c.snapshots[3].params, 24, 20),
                      load_image(test::sample("model_v2_hashgrid_snap3.png"))) <= 1.0);
  // Saved again in format 3 (without pictures: every frame keeps weights), the final weights stay exact.
  const auto v3 = serialize_checkpoint(c);
  const Checkpoint back = deserialize_checkpoint(v3.data(), v3.size(), "v3");
  CHECK(back.params == c.params);
  CHECK(back.optimizer.first == c.optimizer.first);
  REQUIRE(back.snapshots.size() == 9);
  CHECK(back.snapshots.front().params == c.snapshots.front().params); // step 0 exact
  for (size_t i = 1; i < 9; ++i) CHECK(back.snapshots[i].half_params == to_half(c.snapshots[i].params));
}

TEST_CASE("fp16 conversions: exact where fp16 is, round to nearest even, against float64") {
  // float_to_half_fast (to_half's) must give float_to_half's bits; both against float64 here.
  for (uint16_t (*to)(float) : {&float_to_half, &float_to_half_fast}) {
    for (const float v : {0.0f, 1.0f, -2.5f, 65504.0f, 6.103515625e-05f, 5.9604644775390625e-08f})
      CHECK(half_to_float(to(v)) == v);
    // Every fp16 value round-trips, and every float rounds to its nearest fp16 (float64 reference).
    for (uint32_t h = 0; h < 0x7c00u; ++h) {
      const float f = half_to_float(uint16_t(h));
      REQUIRE(to(f) == h);
      REQUIRE(to(-f) == (h | 0x8000u));
      if (h + 1 < 0x7c00u) {
        const double mid = (double(f) + double(half_to_float(uint16_t(h + 1)))) / 2;
        const float above = std::nextafter(float(mid), 1.0f), below = std::nextafter(float(mid), 0.0f);
        if (double(above) > mid) REQUIRE(to(above) == h + 1);
        if (double(below) < mid && double(below) > double(f)) REQUIRE(to(below) == h);
        if (float(mid) == mid) REQUIRE(to(float(mid)) == ((h & 1u) ? h + 1 : h)); // ties to even
      }
    }
    CHECK(to(65520.0f) == 0x7c00u); // beyond the range: infinity (fits_half says so first)
    CHECK(to(-1e30f) == 0xfc00u);
  }
  // The two agree on a stride through every float bit pattern (nan, inf, subnormals included).
  for (uint64_t u = 0; u < (uint64_t(1) << 32); u += 65521) {
    float f = 0;
    const auto bits = uint32_t(u);
    std::memcpy(&f, &bits, 4);
    REQUIRE(float_to_half_fast(f) == float_to_half(f));
  }
  CHECK_FALSE(fits_half(std::vector<float>{70000.0f}));
}

TEST_CASE("model file: an instant-style keyframe renders within 50 dB of the exact weights") {
  RunConfig cfg = load_preset("instant");
  cfg.data.max_side = 96;
  cfg.training.steps = 60;
  cfg.training.batch_size = 4096;
  cfg.training.cpu_batch_size = 4096;
  RunSource src{test::sample("horse.png").string(), ""};
  OpenRunOptions opts;
  opts.config = cfg;
  OpenedRun run = open_run(src, cpu_only(), opts);
  Trainer& t = *run.trainer;
  t.run(60);
  const Checkpoint c = t.checkpoint("horse.png");
  const auto bytes = serialize_checkpoint(c);
  const Checkpoint back = deserialize_checkpoint(bytes.data(), bytes.size(), "mem");
  REQUIRE(back.params == c.params); // the final weights stay exact
  int keyframes = 0;
  for (size_t i = 0; i < back.snapshots.size(); ++i) {
    const Snapshot& s = back.snapshots[i];
    if (s.half_params.empty()) continue;
    ++keyframes;
    CAPTURE(s.metrics.step);
    const Image exact = render_cpu(c, c.snapshots[i].params, 96, 80);
    CHECK(test::psnr_f64(render_cpu(c, frame_weights(s), 96, 80).pixels, exact.pixels) >= 50);
  }
  CHECK(keyframes >= 3);
}

TEST_CASE("model file: a damaged packed file is a clear error, never a crash") {
  Trainer t = test::small_trainer(test::small_config(OptimizerKind::Adam, 0), test::gradient_image(10, 8, 3));
  t.run(8);
  const auto good = serialize_checkpoint(t.checkpoint("x.png"));
  (void)deserialize_checkpoint(good.data(), good.size(), "good");
  int refused = 0;
  for (size_t at = 16; at + 4 < good.size(); at += 3) {
    std::vector<uint8_t> bad = good;
    bad[at] ^= 0x5a;
    reseal(bad);
    try {
      (void)deserialize_checkpoint(bad.data(), bad.size(), "bad.redraw");
    } catch (const CheckpointError& e) {
      const std::string what = e.what(); // names the file, or the config field inside the model
      CHECK((what.rfind("bad.redraw", 0) == 0 || what.rfind("bad config inside the model", 0) == 0));
      ++refused;
    }
  }
  CHECK(refused > 0);
  // A packed length that lies is refused before anything that size is allocated.
  std::vector<uint8_t> lie = good;
  const uint64_t huge = uint64_t(1) << 40;
  std::memcpy(lie.data() + 16 + 12 + 4, &huge, 8); // META's unpacked length
  reseal(lie);
  CHECK_THROWS_WITH_AS(deserialize_checkpoint(lie.data(), lie.size(), "lie.redraw"), doctest::Contains("chunk META: holds 1099511627776 bytes unpacked where the metadata limit allows at most"),
                       CheckpointError);
}

TEST_CASE("hash grid sized to the image: the table follows the pixel count, the finest level the longer side") {
  CHECK(auto_log2_hashmap_size(400 * 328) == 17); // 131,200 pixels: 2^17
  CHECK(auto_log2_hashmap_size(512 * 512) == 18);
  CHECK(auto_log2_hashmap_size(300 * 300) == 16); // 90,000: log2 16.46 -> 2^16
  CHECK(auto_log2_hashmap_size(16) == k_auto_log2_hashmap_min);
  CHECK(auto_log2_hashmap_size(int64_t(1) << 26) == k_auto_log2_hashmap_max);
  RunConfig cfg = load_preset("instant");
  CHECK(cfg.model.encoding.auto_table_size);
  CHECK(cfg.model.encoding.auto_finest_resolution);
  cfg.data.max_side = 512; // the drawing at its own 400x328
  cfg.training.steps = 2;
  cfg.training.cpu_batch_size = 1024;
  OpenRunOptions opts;
  opts.config = cfg;
  OpenedRun run = open_run(RunSource{test::sample("horse.png").string(), ""}, cpu_only(), opts);
  const EncodingSpec& e = run.trainer->config().model.encoding;
  CHECK(e.log2_hashmap_size == 17);
  CHECK(e.finest_resolution == 400);
  run.trainer->run(2);
  // The model records the resolved sizes, so it reloads as the same network on any image.
  test::TempDir dir;
  save_checkpoint(dir.path / "m.redraw", run.trainer->checkpoint("horse.png"));
  const Checkpoint back = load_checkpoint(dir.path / "m.redraw");
  CHECK(back.config.model.encoding.log2_hashmap_size == 17);
  CHECK(back.config.model.encoding.finest_resolution == 400);
  CHECK(back.config.model.encoding.auto_table_size);
  CHECK(back.params.size() == size_t(parameter_count(run.trainer->config().model)));
  // A user's own value wins over auto.
  const nlohmann::json j = {{"model", {{"encoding", {{"otype", "HashGrid"}, {"log2_hashmap_size", 15}}}}}};
  CHECK_FALSE(parse_run_config(j, "cfg").model.encoding.auto_table_size);
}

TEST_CASE("chunk packing: pieces of any size pack as the whole would, and unpack to the same bytes") {
  // Floats whose planes differ (a ramp), cut at odd places so elements straddle pieces.
  std::vector<uint8_t> raw(40'003 * 4);
  for (size_t i = 0; i < raw.size() / 4; ++i) {
    const float v = 0.001f * float(i) - 7.0f;
    std::memcpy(&raw[i * 4], &v, 4);
  }
  auto file_of = [&](const std::vector<size_t>& cuts, int width) {
    ChunkFileWriter out("TESTFILE", 3, true);
    out.add("DATA", raw.size(), [&](const auto& visit) {
      size_t at = 0;
      for (size_t cut : cuts) {
        visit(ChunkPiece(raw.data() + at, cut - at));
        at = cut;
      }
      visit(ChunkPiece(raw.data() + at, raw.size() - at));
    }, width);
    return out.finish();
  };
  for (int width : {1, 2, 4, 8}) {
    CAPTURE(width);
    const std::vector<uint8_t> whole = file_of({}, width);
    CHECK(file_of({1, 7, 8, 1000, 65'537, 131'073}, width) == whole);
    CHECK(file_of({3, 3, 4, 160'000}, width) == whole); // an empty piece too
    const std::vector<ChunkRef> refs = chunk_table(whole.data() + 12, whole.size() - 16, "t");
    REQUIRE(refs.size() == 1);
    CHECK(refs[0].tag == "DATA");
    const ByteReader where(refs[0].body, refs[0].len, "t", "chunk DATA");
    CHECK(unpack_chunk(where, refs[0].body, refs[0].len, raw.size()) == raw);
    CHECK_THROWS_AS(unpack_chunk(where, refs[0].body, refs[0].len, raw.size() - 1), CheckpointError);
    if (width == 4) CHECK(whole.size() < raw.size() / 2); // the regrouped ramp compresses
  }
  // A source that gives fewer bytes than it said is a programming error, caught before the file ends.
  ChunkFileWriter out("TESTFILE", 3, true);
  CHECK_THROWS_AS(out.add("DATA", 100, [&](const auto& visit) { visit(ChunkPiece(raw.data(), 99)); }, 1), std::logic_error);
}

TEST_CASE("model file: finer, gauss and wire presets save, load and render the same bits, their parameters kept") {
  for (const std::string preset : {"finer", "gauss", "wire"}) {
    CAPTURE(preset);
    RunConfig cfg = load_preset(preset);
    cfg.data.max_side = 24;
    cfg.training.steps = 3;
    // Values no default holds, so a field the file dropped would come back different.
    cfg.model.omega_0 = 27.5f;
    cfg.model.gauss_scale = 23.25f;
    cfg.model.first_bias_scale = 1.75f;
    RunSource src{test::sample("horse.png").string(), ""};
    OpenRunOptions opts;
    opts.config = cfg;
    OpenedRun run = open_run(src, cpu_only(), opts);
    run.trainer->run(3);
    const Checkpoint c = run.trainer->checkpoint("horse.png");
    test::TempDir dir;
    const auto file = dir.path / (preset + ".redraw");
    save_checkpoint(file, c);
    const Checkpoint back = load_checkpoint(file);
    const ModelSpec &m = back.config.model, &want = c.config.model;
    CHECK(m.hidden_activations == want.hidden_activations);
    CHECK(m.init == want.init);
    CHECK(m.omega_0 == 27.5f);
    CHECK(m.gauss_scale == 23.25f);
    CHECK(m.first_bias_scale == 1.75f);
    REQUIRE(back.params == c.params);
    const Image a = render_cpu(c, c.params, 40, 28), b = render_cpu(back, back.params, 40, 28);
    REQUIRE(a.pixels.size() == b.pixels.size());
    CHECK(std::memcmp(a.pixels.data(), b.pixels.data(), a.pixels.size() * sizeof(float)) == 0);
    // The render depends on the field the activation reads: it is not a picture that ignores it.
    Checkpoint other = back;
    other.config.model.gauss_scale = 11.0f;
    other.config.model.omega_0 = 21.0f;
    CHECK(test::max_abs_diff(render_cpu(other, back.params, 40, 28), a) > 1e-4);
  }
}
