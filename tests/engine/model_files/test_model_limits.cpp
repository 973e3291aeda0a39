// engine/model_files/checkpoint_read: a model file costs what its declared network needs plus a bounded
// amount. Unknown chunks are never unpacked; a known chunk is refused, naming it, when its stated
// length is other than the model's shape allows; frame pictures fit the training size; the
// writer keeps a very long run within the file limits, so what it writes always opens.
#include "test_support.h"

#include "engine/model_files/checkpoint.h"
#include "engine/model_files/checkpoint_codec.h"
#include "engine/errors.h"
#include "engine/frames/timelapse.h"

#include <doctest/doctest.h>
#include <zstd.h>

#include <cstring>
#include <string>

using namespace redraw;

namespace {
Checkpoint small_model() {
  Trainer t = test::small_trainer(test::small_config(OptimizerKind::Adam, 0), test::gradient_image(12, 9, 3));
  t.run(6);
  return t.checkpoint("img.png");
}

/// The file's chunks rebuilt through `edit` (which may change, add or drop chunks), CRC resealed.
std::vector<uint8_t> rebuilt(const std::vector<uint8_t>& file,
                             const std::function<void(std::vector<std::pair<std::string, std::vector<uint8_t>>>&)>& edit) {
  std::vector<std::pair<std::string, std::vector<uint8_t>>> chunks;
  for (const ChunkRef& c : chunk_table(file.data() + 12, file.size() - 16, "t"))
    chunks.emplace_back(c.tag, std::vector<uint8_t>(c.body, c.body + c.len));
  edit(chunks);
  std::vector<uint8_t> out(file.begin(), file.begin() + 12);
  const uint32_t n = uint32_t(chunks.size());
  out.insert(out.end(), reinterpret_cast<const uint8_t*>(&n), reinterpret_cast<const uint8_t*>(&n) + 4);
  for (const auto& [tag, body] : chunks) {
    out.insert(out.end(), tag.begin(), tag.end());
    const uint64_t len = body.size();
    out.insert(out.end(), reinterpret_cast<const uint8_t*>(&len), reinterpret_cast<const uint8_t*>(&len) + 8);
    out.insert(out.end(), body.begin(), body.end());
  }
  const uint32_t crc = checkpoint_crc(out.data(), out.size());
  out.insert(out.end(), reinterpret_cast<const uint8_t*>(&crc), reinterpret_cast<const uint8_t*>(&crc) + 4);
  return out;
}

/// A packed chunk body: zstd of `raw` (element width 1) under a header that states `stated` bytes.
std::vector<uint8_t> packed_body(const std::vector<uint8_t>& raw, uint64_t stated) {
  std::vector<uint8_t> out(12, 0);
  out[0] = uint8_t(ChunkCodec::Zstd);
  out[1] = 1;
  std::memcpy(out.data() + 4, &stated, 8);
  std::vector<uint8_t> z(ZSTD_compressBound(raw.size()));
  const size_t n = ZSTD_compress(z.data(), z.size(), raw.data(), raw.size(), 1);
  REQUIRE(!ZSTD_isError(n));
  out.insert(out.end(), z.begin(), z.begin() + ptrdiff_t(n));
  return out;
}

std::string model_refusal(const std::vector<uint8_t>& bytes) {
  try {
    (void)deserialize_checkpoint(bytes.data(), bytes.size(), "m.redraw");
  } catch (const CheckpointError& e) {
    return e.what();
  }
  return "(opened)";
}
} // namespace

TEST_CASE("model limits: an unknown chunk is skipped without being unpacked, whatever it claims") {
  const Checkpoint c = small_model();
  const std::vector<uint8_t> good = serialize_checkpoint(c);
  // A packed body claiming a terabyte, whose payload is not even zstd: unpacking it would fail.
  std::vector<uint8_t> claim(12 + 64, 0x77);
  claim[0] = uint8_t(ChunkCodec::Zstd);
  claim[1] = 1;
  claim[2] = claim[3] = 0;
  const uint64_t tb = uint64_t(1) << 40;
  std::memcpy(claim.data() + 4, &tb, 8);
  const auto file = rebuilt(good, [&](auto& chunks) { chunks.insert(chunks.begin() + 1, {"ZZZZ", claim}); });
  const Checkpoint back = deserialize_checkpoint(file.data(), file.size(), "m.redraw");
  CHECK(back.params == c.params);
  CHECK(back.history.size() == c.history.size());
}

TEST_CASE("model limits: a known chunk whose stated length the model's shape does not allow is refused, naming it") {
  const Checkpoint c = small_model();
  const std::vector<uint8_t> good = serialize_checkpoint(c);
  const uint64_t weights = c.params.size() * 4;
  // PARM: real data of a few more bytes than the network's weights.
  const std::vector<uint8_t> more(weights + 4096, 0);
  const auto parm = rebuilt(good, [&](auto& chunks) {
    for (auto& [tag, body] : chunks)
      if (tag == "PARM") body = packed_body(more, more.size());
  });
  const std::string why = model_refusal(parm);
  CHECK(why.find("m.redraw: chunk PARM: holds " + std::to_string(more.size()) + " bytes unpacked") == 0);
  CHECK(why.find("needs exactly " + std::to_string(weights)) != std::string::npos);
  // The right length stated, but the data runs on: refused as it runs past, not after.
  const auto runs = rebuilt(good, [&](auto& chunks) {
    for (auto& [tag, body] : chunks)
      if (tag == "PARM") body = packed_body(more, weights);
  });
  CHECK(model_refusal(runs).find("chunk PARM: compressed data runs past its stated length") != std::string::npos);
  // META over its limit: refused from the header.
  const auto meta = rebuilt(good, [&](auto& chunks) {
    for (auto& [tag, body] : chunks)
      if (tag == "META") body = packed_body(std::vector<uint8_t>(100, ' '), k_max_meta_bytes + 1);
  });
  CHECK(model_refusal(meta).find("chunk META: holds " + std::to_string(k_max_meta_bytes + 1)) != std::string::npos);
  // A known tag twice.
  const auto twice = rebuilt(good, [&](auto& chunks) { chunks.push_back(chunks.front()); });
  CHECK(model_refusal(twice).find("chunk META appears twice") != std::string::npos);
}

TEST_CASE("model limits: a table of more chunks than the limit is refused from the header, naming the limit") {
  const Checkpoint c = small_model();
  const std::vector<uint8_t> good = serialize_checkpoint(c);
  const size_t own = chunk_table(good.data() + 12, good.size() - 16, "t").size();
  // 200,000 empty chunks: 2.4 MB of file, each pair of which an all-pairs check would compare.
  const auto many = rebuilt(good, [&](auto& chunks) { chunks.resize(own + 200000, {"ZZZZ", {}}); });
  CHECK(model_refusal(many) == "m.redraw: header: chunk count " + std::to_string(own + 200000) + " is over the limit of " +
                             std::to_string(k_max_file_chunks) + " chunks");
  // Up to the limit the file opens, the unknown chunks skipped; a known tag twice among them is
  // still found, however far apart.
  const auto full = rebuilt(good, [&](auto& chunks) { chunks.resize(k_max_file_chunks, {"ZZZZ", {}}); });
  CHECK(deserialize_checkpoint(full.data(), full.size(), "m.redraw").params == c.params);
  const auto twice = rebuilt(good, [&](auto& chunks) {
    chunks.resize(k_max_file_chunks - 1, {"ZZZZ", {}});
    chunks.push_back(chunks[1]);
  });
  CHECK(model_refusal(twice) ==
        "m.redraw: chunk " + chunk_table(good.data() + 12, good.size() - 16, "t")[1].tag + " appears twice");
}

TEST_CASE("model limits: a frame picture larger than the training size's frames is refused") {
  Checkpoint c = small_model(); // 12x9: frame pictures of at most 12x9
  REQUIRE(!c.snapshots.empty());
  int32_t pw = 0, ph = 0;
  frame_picture_size(c.image_width, c.image_height, pw, ph);
  CHECK(model_refusal(serialize_checkpoint(c)) == "(opened)");
  Snapshot big = c.snapshots.back();
  big.metrics.step = c.step;
  big.params.clear();
  big.half_params.clear();
  big.picture = {pw + 1, ph, 3, std::vector<uint8_t>(size_t(pw + 1) * size_t(ph) * 3, 9)};
  c.snapshots.push_back(big);
  const std::string why = model_refusal(serialize_checkpoint(c));
  CHECK(why.find("chunk FRAM: frame ") != std::string::npos);
  CHECK(why.find("picture size " + std::to_string(pw + 1) + "x" + std::to_string(ph)) != std::string::npos);
}

TEST_CASE("model limits: a run past the file limits is written within them, and opens") {
  Checkpoint c = small_model();
  const Snapshot first = c.snapshots.front();
  // More frames than a file may hold, each a 1x1 picture.
  c.snapshots.assign(1, first);
  const size_t n = k_max_file_frames + 1000;
  for (size_t i = 1; i <= n; ++i) {
    Snapshot s;
    s.metrics.step = int64_t(i);
    s.picture = {1, 1, 3, {uint8_t(i), uint8_t(i >> 8), 7}};
    c.snapshots.push_back(std::move(s));
  }
  c.step = int64_t(n);
  // A loss trace longer than a file keeps.
  c.loss_trace.first_count = 1;
  c.loss_trace.loss.assign(k_max_file_loss_values + 10, 0.5f);
  c.loss_trace.loss.back() = 0.25f;
  const std::vector<uint8_t> bytes = serialize_checkpoint(c);
  const Checkpoint back = deserialize_checkpoint(bytes.data(), bytes.size(), "m.redraw");
  CHECK(back.snapshots.size() <= k_max_file_frames);
  CHECK(back.snapshots.size() > k_max_file_frames / 2); // thinned evenly, not emptied
  CHECK(back.snapshots.front().metrics.step == 0);
  CHECK(back.snapshots.back().metrics.step == int64_t(n)); // the newest always
  CHECK(back.snapshots.back().picture.pixels == c.snapshots.back().picture.pixels);
  CHECK(back.loss_trace.loss.size() == k_max_file_loss_values);
  CHECK(back.loss_trace.end_count() == c.loss_trace.end_count()); // the newest values
  CHECK(back.loss_trace.loss.back() == 0.25f);
}
