/// Reading a .redraw model from untrusted bytes. A chunk is unpacked only when its tag is known,
/// and only up to what the model's shape allows it (checkpoint.h's file limits): the META chunk
/// is read first, and its network, training size and step count bound every other chunk before
/// a byte of it is inflated. Unknown chunks are skipped without being unpacked.
#include "engine/model_files/checkpoint.h"

#include "engine/model_files/checkpoint_codec.h"
#include "engine/model_files/curves_chunk.h"
#include "engine/errors.h"
#include "engine/json_read.h"
#include "engine/path_problem.h"
#include "engine/frames/timelapse.h"

#include <nlohmann/json.hpp>

#include <optional>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <string_view>

namespace redraw {

namespace {
constexpr uint64_t k_max_checkpoint_bytes = uint64_t(8) << 30;
using ModelByteReader = ByteReader;

/// A chunk's JSON text parsed: CheckpointError naming the file and the chunk when it is not JSON
/// or nests too deep (parse_json).
nlohmann::json chunk_json(const ModelByteReader& r, const char* tag, const uint8_t* body, size_t len) {
  try {
    return parse_json({reinterpret_cast<const char*>(body), len}, r.name() + ": chunk " + tag);
  } catch (const ConfigError& e) {
    throw CheckpointError(e.what());
  }
}

void read_meta(const ModelByteReader& r, const uint8_t* body, size_t len, Checkpoint& c) {
  const std::string& name = r.name();
  const nlohmann::json meta = chunk_json(r, "META", body, len);
  try {
    // The name as the file holds it, past the limit a config is held to: the model check names
    // META.config.name, and `info` still lists what else the file holds.
    nlohmann::json config = meta.at("config");
    std::optional<std::string> config_name;
    if (config.is_object() && config.contains("name") && config["name"].is_string()) {
      config_name = config["name"].get<std::string>();
      config.erase("name");
    }
    c.config = parse_run_config(config, name);
    if (config_name) c.config.name = *config_name;
    c.step = meta.at("step").get<int64_t>();
    c.optimizer_step = meta.value("optimizer_step", c.step); // files written before it: the same
    c.seconds = meta.at("seconds").get<double>();
    c.lr_scale = meta.value("lr_scale", 1.0); // files written before recovery existed: 1
    if (meta.contains("initial_psnr_db") && meta["initial_psnr_db"].is_number())
      c.initial_psnr_db = meta["initial_psnr_db"].get<double>();
    c.image_width = meta.at("image_width").get<int32_t>();
    c.image_height = meta.at("image_height").get<int32_t>();
    c.source_image = meta.value("source_image", std::string());
    // The network's outputs: 1 or 3, and what a fixed colour mode says (files written before
    // the colour mode could be auto have no key: the mode tells).
    const int32_t mode_channels = channels_of(c.config.data.color_mode);
    const int32_t channels = meta.value("output_channels", mode_channels);
    const bool auto_mode = c.config.data.color_mode == ColorMode::Auto;
    if ((channels != 1 && channels != 3) || (!auto_mode && channels != mode_channels))
      r.fail("output_channels " + std::to_string(channels) + " does not fit colour mode " +
             color_mode_name(c.config.data.color_mode));
    c.config.model.output_channels = channels;
  } catch (const ConfigError& e) {
    throw CheckpointError(std::string("bad config inside the model: ") + e.what());
  } catch (const CheckpointError&) {
    throw;
  } catch (const std::exception& e) {
    r.fail(std::string("bad metadata: ") + e.what());
  }
  if (!(c.lr_scale > 0 && c.lr_scale <= 1)) r.fail("lr_scale must be in (0, 1]");
  if (c.step < 0 || c.optimizer_step < 0 || c.optimizer_step > c.step || c.image_width < 1 || c.image_height < 1 ||
      c.image_width > 65536 || c.image_height > 65536)
    r.fail("impossible step, optimizer step or image size in metadata");
}

void read_recoveries(const ModelByteReader& r, const uint8_t* body, size_t len, Checkpoint& c) {
  const nlohmann::json events = chunk_json(r, "RCOV", body, len);
  try {
    for (const auto& e : events.get_ref<const nlohmann::json::array_t&>()) {
      RecoveryEvent ev;
      ev.step = e.at("step").get<int64_t>();
      ev.rolled_back_to = e.at("rolled_back_to").get<int64_t>();
      ev.lr_scale = e.at("lr_scale").get<double>();
      ev.seconds = e.at("seconds").get<double>();
      ev.attempt = e.at("attempt").get<int32_t>();
      ev.reason = e.at("reason").get<std::string>();
      c.recoveries.push_back(std::move(ev));
    }
  } catch (const std::exception& e) {
    r.fail(std::string("bad recovery list: ") + e.what());
  }
}

/// a * b, saturating at UINT64_MAX (a bound, never an allocation).
uint64_t times(uint64_t a, uint64_t b) { return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b; }
uint64_t plus(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

/// A chunk's bytes: in place in the file (format 1 and 2, whose chunks are stored as they are),
/// or unpacked into `owned`.
struct ChunkBytes {
  std::vector<uint8_t> owned;
  const uint8_t* data = nullptr;
  size_t size = 0;
};

/// The file's chunks by tag. Each known tag may appear once; unknown ones are never unpacked.
class ChunkSet {
public:
  ChunkSet(const uint8_t* data, size_t size, const std::string& name, bool packed)
      : m_refs(chunk_table(data, size, name)), m_name(name), m_packed(packed) {
    static const char* const known[] = {"META", "PARM", "OPTM", "HIST", "SNAP", "FRAM",
                                        "FPIC", "FWGT", "FXCT", "RCOV", "CURV", "MCOL"};
    std::set<std::string_view> seen; // one pass: the table may hold up to k_max_file_chunks
    for (const ChunkRef& r : m_refs)
      if (std::find(std::begin(known), std::end(known), r.tag) != std::end(known) && !seen.insert(r.tag).second)
        throw CheckpointError(m_name + ": chunk " + r.tag + " appears twice");
  }
  const ChunkRef* find(const char* tag) const {
    for (const ChunkRef& r : m_refs)
      if (r.tag == tag) return &r;
    return nullptr;
  }
  ModelByteReader where(const ChunkRef& c) const { return ModelByteReader(c.body, c.len, m_name, "chunk " + c.tag); }
  bool packed() const { return m_packed; }
  const std::string& name() const { return m_name; }
  /// The chunk's bytes, unpacked when the file packs them: refused (naming the chunk) when its
  /// stated length is over `max_bytes`, or, with `exact`, not that length. An absent chunk is empty.
  ChunkBytes bytes(const char* tag, uint64_t max_bytes, bool exact = false, const char* what = nullptr) const {
    ChunkBytes out;
    const ChunkRef* c = find(tag);
    if (!c) return out;
    const ModelByteReader r = where(*c);
    if (!m_packed) {
      out.data = c->body;
      out.size = c->len;
      return out;
    }
    check_length(r, read_pack_header(r, c->body, c->len, UINT64_MAX).raw_len, max_bytes, exact, what);
    out.owned = unpack_chunk(r, c->body, c->len, max_bytes);
    out.data = out.owned.data();
    out.size = out.owned.size();
    return out;
  }
  /// Refuses a stated length over `max_bytes`, or other than it with `exact`; `what` says what
  /// the bound is.
  static void check_length(const ModelByteReader& r, uint64_t len, uint64_t max_bytes, bool exact, const char* what) {
    if (exact ? len == max_bytes : len <= max_bytes) return;
    r.fail("holds " + std::to_string(len) + " bytes unpacked where " + (what ? what : "this model's shape") +
           (exact ? " needs exactly " : " allows at most ") + std::to_string(max_bytes));
  }

private:
  std::vector<ChunkRef> m_refs;
  const std::string& m_name;
  bool m_packed;
};

/// What the FRAM records say, before any picture or weight is read.
struct FramePlan {
  std::vector<Snapshot> frames;
  std::vector<uint8_t> flags;
  std::vector<size_t> picture_sizes; ///< each frame's picture bytes (allocated as its data arrives)
  uint64_t picture_bytes = 0, half_frames = 0, exact_frames = 0;
};

/// Reads the FRAM records: each frame's metrics, what it keeps and its picture's size, which is at
/// most the frame picture size of the training size. Nothing is allocated for the pictures yet.
FramePlan read_frame_records(const ChunkSet& chunks, const Checkpoint& c) {
  FramePlan plan;
  const uint64_t max_frames = k_max_file_frames;
  const ChunkBytes fram = chunks.bytes("FRAM", 8 + max_frames * k_frame_record_bytes, false, "the frame limit");
  ModelByteReader rec(fram.data, fram.size, chunks.name(), "chunk FRAM");
  const uint64_t n = rec.get_count(k_frame_record_bytes, "frame");
  if (n > max_frames) rec.fail(std::to_string(n) + " frames is more than the limit of " + std::to_string(max_frames));
  int32_t max_w = 0, max_h = 0;
  frame_picture_size(c.image_width, c.image_height, max_w, max_h);
  plan.frames.reserve(size_t(n));
  plan.flags.reserve(size_t(n));
  for (uint64_t i = 0; i < n; ++i) {
    Snapshot s;
    s.metrics = rec.get_row();
    const auto flags = rec.get<uint8_t>();
    const auto channels = rec.get<uint8_t>();
    (void)rec.get<uint16_t>();
    const auto w = rec.get<int32_t>(), h = rec.get<int32_t>();
    const std::string frame = "frame " + std::to_string(i);
    if (flags & ~(k_frame_half | k_frame_exact | k_frame_picture) || (flags & k_frame_half && flags & k_frame_exact))
      rec.fail(frame + ": unknown flags " + std::to_string(flags));
    if (!(flags & (k_frame_half | k_frame_exact | k_frame_picture))) rec.fail(frame + ": keeps neither picture nor weights");
    if (flags & k_frame_picture) {
      if ((channels != 1 && channels != 3) || w < 1 || h < 1 || w > max_w || h > max_h)
        rec.fail(frame + ": picture size " + std::to_string(w) + "x" + std::to_string(h) + " (" +
                 std::to_string(channels) + " channels) does not fit a " + std::to_string(c.image_width) + "x" +
                 std::to_string(c.image_height) + " model's frames (at most " + std::to_string(max_w) + "x" +
                 std::to_string(max_h) + ", 1 or 3 channels)");
      const uint64_t bytes = uint64_t(w) * uint64_t(h) * channels;
      plan.picture_bytes += bytes;
      if (plan.picture_bytes > k_max_file_picture_bytes)
        rec.fail(frame + ": the frames' pictures come to more than " + std::to_string(k_max_file_picture_bytes) + " bytes");
      s.picture = {w, h, channels, {}};
      plan.picture_sizes.push_back(size_t(bytes));
    } else {
      plan.picture_sizes.push_back(0);
    }
    if (flags & (k_frame_half | k_frame_exact)) {
      (flags & k_frame_half ? plan.half_frames : plan.exact_frames) += 1;
      if (plan.half_frames + plan.exact_frames > k_max_file_weight_frames)
        rec.fail(frame + ": more than " + std::to_string(k_max_file_weight_frames) + " frames keep weights");
    }
    plan.frames.push_back(std::move(s));
    plan.flags.push_back(flags);
  }
  if (rec.remaining() != 0) rec.fail(std::to_string(rec.remaining()) + " bytes left over after the last frame");
  return plan;
}

/// Fills the frames' pictures from FPIC, streamed straight into them (each stored as its
/// difference from the previous picture of the same size).
void read_frame_pictures(const ChunkSet& chunks, FramePlan& plan) {
  const ChunkRef* ref = chunks.find("FPIC");
  if (!ref) {
    if (plan.picture_bytes > 0) throw CheckpointError(chunks.name() + ": no FPIC chunk for the frames' pictures");
    return;
  }
  const ModelByteReader r = chunks.where(*ref);
  const PackedChunk p = read_pack_header(r, ref->body, ref->len, UINT64_MAX);
  ChunkSet::check_length(r, p.raw_len, plan.picture_bytes, true, "the FRAM records' pictures");
  if (p.width != 1 && p.raw_len > 0) r.fail("pictures must be packed byte by byte (element width 1)");
  size_t frame = 0, at = 0;
  inflate_chunk(r, p, [&](const uint8_t* d, size_t n) {
    while (n > 0) {
      while (plan.picture_sizes[frame] == at) { // raw_len is the pictures' sum: a frame is left
        ++frame;
        at = 0;
      }
      std::vector<uint8_t>& px = plan.frames[frame].picture.pixels;
      if (at == 0) px.resize(plan.picture_sizes[frame]); // allocated as its bytes come
      const size_t take = std::min(n, px.size() - at);
      std::memcpy(px.data() + at, d, take);
      at += take;
      d += take;
      n -= take;
    }
  });
  const FramePicture* previous = nullptr;
  for (Snapshot& s : plan.frames) {
    if (s.picture.empty()) continue;
    if (previous && previous->width == s.picture.width && previous->height == s.picture.height &&
        previous->channels == s.picture.channels)
      for (size_t k = 0; k < s.picture.pixels.size(); ++k) s.picture.pixels[k] += previous->pixels[k];
    previous = &s.picture;
  }
}

/// The keyframes' weights: FWGT (fp16) and FXCT (fp32), exactly the frames' counts of `count`.
void read_frame_weights(const ChunkSet& chunks, FramePlan& plan, int64_t count) {
  const ChunkBytes half = chunks.bytes("FWGT", times(times(plan.half_frames, uint64_t(count)), 2), true,
                                       "the FRAM records' fp16 keyframes");
  const ChunkBytes exact = chunks.bytes("FXCT", times(times(plan.exact_frames, uint64_t(count)), 4), true,
                                        "the FRAM records' exact keyframes");
  if (half.size != plan.half_frames * uint64_t(count) * 2 || exact.size != plan.exact_frames * uint64_t(count) * 4)
    throw CheckpointError(chunks.name() + ": the keyframes' weights are missing");
  size_t h = 0, x = 0;
  for (size_t i = 0; i < plan.frames.size(); ++i) {
    Snapshot& s = plan.frames[i];
    if (plan.flags[i] & k_frame_half) {
      s.half_params.resize(size_t(count));
      std::memcpy(s.half_params.data(), half.data + h, size_t(count) * 2);
      h += size_t(count) * 2;
    } else if (plan.flags[i] & k_frame_exact) {
      s.params.resize(size_t(count));
      std::memcpy(s.params.data(), exact.data + x, size_t(count) * 4);
      x += size_t(count) * 4;
    }
    s.resumable = s.metrics.step == 0 && !s.params.empty(); // the untrained network's optimizer state is all zeros
  }
}

/// Format 1 and 2's SNAP chunk: frames with fp32 weights.
void read_snap(const ChunkSet& chunks, Checkpoint& c) {
  const ChunkRef* ref = chunks.find("SNAP");
  if (!ref) return;
  ModelByteReader r = chunks.where(*ref);
  const uint64_t n = r.get_count(k_checkpoint_row_bytes + 8, "snapshot");
  c.snapshots.reserve(size_t(n));
  for (uint64_t k = 0; k < n; ++k) {
    Snapshot s;
    s.metrics = r.get_row();
    s.params = r.get_array<float>("snapshot weights");
    s.resumable = s.metrics.step == 0; // the untrained network's optimizer state is all zeros
    c.snapshots.push_back(std::move(s));
  }
}

void read_weights(const ChunkSet& chunks, uint32_t version, int64_t count, Checkpoint& c) {
  const ChunkRef* ref = chunks.find("PARM");
  if (!ref) throw CheckpointError(chunks.name() + ": no PARM chunk (weights)");
  const ModelByteReader r = chunks.where(*ref);
  const std::string needs = "its config needs " + std::to_string(count) + " weights, " + std::to_string(uint64_t(count) * 4) + " bytes";
  if (version >= 3) {
    const ChunkBytes b = chunks.bytes("PARM", uint64_t(count) * 4, true, needs.c_str());
    c.params.resize(size_t(count));
    if (count > 0) std::memcpy(c.params.data(), b.data, size_t(count) * 4);
  } else {
    ModelByteReader v2 = r;
    c.params = v2.get_array<float>("weights");
  }
  if (int64_t(c.params.size()) != count)
    throw CheckpointError(r.name() + ": has " + std::to_string(c.params.size()) + " weights but " + needs);
  const uint64_t arrays = uint64_t(optimizer_state_arrays(c.config.optimizer));
  const ChunkBytes opt = chunks.bytes("OPTM", plus(16, times(times(arrays, uint64_t(count)), 4)), false,
                                      "the optimizer's state for this network");
  if (opt.size > 0) {
    ModelByteReader o(opt.data, opt.size, r.name(), "chunk OPTM");
    c.optimizer.first = o.get_array<float>("optimizer state");
    c.optimizer.second = o.get_array<float>("optimizer state");
  }
}

void read_history(const ChunkSet& chunks, Checkpoint& c) {
  const uint64_t max_rows = k_max_file_history_rows;
  const ChunkBytes hist = chunks.bytes("HIST", 8 + max_rows * k_checkpoint_row_bytes, false, "the history limit");
  if (hist.size > 0) {
    ModelByteReader r(hist.data, hist.size, chunks.name(), "chunk HIST");
    const uint64_t n = r.get_count(k_checkpoint_row_bytes, "history row");
    if (n > max_rows) r.fail(std::to_string(n) + " rows is more than the limit of " + std::to_string(max_rows));
    c.history.reserve(size_t(n));
    for (uint64_t k = 0; k < n; ++k) c.history.push_back(r.get_row());
  }
  // CURV: the exact rows' steps (at most one a row), then the loss trace.
  const ChunkBytes curves = chunks.bytes("CURV", 8 + 8 * uint64_t(c.history.size()) + 16 + 4 * k_max_file_loss_values,
                                         false, "the history's rows and the loss trace's limit");
  if (curves.size > 0) decode_curves_chunk(curves.data, curves.size, chunks.name(), c.history, c.loss_trace);
  // MCOL: the metric columns added after HIST's layout (engine/metric_columns.h), up to 256 of them.
  const ChunkBytes extra = chunks.bytes("MCOL", 8 + 256 * (2 + 0xffff + 8 * uint64_t(c.history.size())), false,
                                        "256 metric columns of the history's rows");
  if (extra.size > 0) decode_metric_columns_chunk(extra.data, extra.size, chunks.name(), c.history);
  else clear_extra_metric_columns(c.history);
}
} // namespace

namespace {
/// Checks the magic number, the CRC and the version; returns the version.
uint32_t check_file(const uint8_t* data, size_t size, const std::string& name) {
  if (size < 8 + 4 + 4 + 4) throw CheckpointError(name + ": too short to be a .redraw model (" + std::to_string(size) + " bytes)");
  if (std::memcmp(data, k_model_magic, 8) != 0) throw CheckpointError(name + ": not a .redraw model file (bad magic number)");
  uint32_t version = 0, stored_crc = 0;
  std::memcpy(&version, data + 8, 4);
  std::memcpy(&stored_crc, data + size - 4, 4);
  // The checksum first: a truncated or damaged file is reported as such, never as one from a
  // newer redraw because its version field happens to hold other bytes.
  if (checkpoint_crc(data, size - 4) != stored_crc)
    throw CheckpointError(name + ": the file is truncated or damaged (" + std::to_string(size) +
                          " bytes, checksum mismatch)");
  if (version == 0 || version > k_checkpoint_version)
    throw CheckpointError(name + ": format version " + std::to_string(version) +
                          " is not supported (this redraw reads up to " + std::to_string(k_checkpoint_version) +
                          "); it was written by a newer redraw");
  return version;
}

void read_meta_chunk(const ChunkSet& chunks, Checkpoint& c) {
  const ChunkRef* meta = chunks.find("META");
  if (!meta) throw CheckpointError(chunks.name() + ": no META chunk (config)");
  const ChunkBytes b = chunks.bytes("META", k_max_meta_bytes, false, "the metadata limit");
  read_meta(chunks.where(*meta), b.data, b.size, c);
}
} // namespace

Checkpoint read_checkpoint_meta(const uint8_t* data, size_t size, const std::string& name) {
  const uint32_t version = check_file(data, size, name);
  const ChunkSet chunks(data + 12, size - 16, name, version >= 3);
  Checkpoint c;
  read_meta_chunk(chunks, c);
  return c;
}

Checkpoint deserialize_checkpoint(const uint8_t* data, size_t size, const std::string& name) {
  const uint32_t version = check_file(data, size, name);
  const ChunkSet chunks(data + 12, size - 16, name, version >= 3);
  Checkpoint c;
  read_meta_chunk(chunks, c);
  // Every bound below comes from what META declared.
  const int64_t count = parameter_count(c.config.model);
  read_weights(chunks, version, count, c);
  read_history(chunks, c);
  if (chunks.find("RCOV")) {
    const ChunkBytes b = chunks.bytes("RCOV", k_max_meta_bytes, false, "the metadata limit");
    read_recoveries(chunks.where(*chunks.find("RCOV")), b.data, b.size, c);
  }
  if (version < 3) {
    read_snap(chunks, c);
  } else if (chunks.find("FRAM")) {
    FramePlan plan = read_frame_records(chunks, c);
    read_frame_pictures(chunks, plan);
    read_frame_weights(chunks, plan, count);
    c.snapshots = std::move(plan.frames);
  }
  const int arrays = optimizer_state_arrays(c.config.optimizer);
  const auto opt_ok = [&](const std::vector<float>& v, int needed) {
    return v.empty() || (arrays >= needed && int64_t(v.size()) == count);
  };
  if (!opt_ok(c.optimizer.first, 1) || !opt_ok(c.optimizer.second, 2))
    throw CheckpointError(name + ": optimizer state does not match the model's parameter count");
  for (const auto& s : c.snapshots) {
    if (s.picture.empty() && !has_weights(s))
      throw CheckpointError(name + ": a timelapse frame (step " + std::to_string(s.metrics.step) +
                            ") keeps neither a picture nor weights");
    if (has_weights(s) && int64_t(frame_weight_count(s)) != count)
      throw CheckpointError(name + ": a timelapse snapshot has the wrong number of weights");
  }
  return c;
}

Checkpoint load_checkpoint(const std::filesystem::path& file) {
  std::vector<uint8_t> bytes;
  if (const std::string why = read_user_file(file, k_max_checkpoint_bytes, "a model file", "8 GiB model", bytes);
      !why.empty())
    throw CheckpointError(why);
  return deserialize_checkpoint(bytes.data(), bytes.size(), file.string());
}

} // namespace redraw
