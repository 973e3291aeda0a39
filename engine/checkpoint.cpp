#include "engine/checkpoint.h"

#include "engine/atomic_file.h"
#include "engine/curves_chunk.h"
#include "engine/path_problem.h"
#include "engine/errors.h"
#include "engine/checkpoint_codec.h"
#include "engine/half_float.h"
#include "engine/timelapse.h"

#include <nlohmann/json.hpp>

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>

namespace redraw {

static_assert(std::endian::native == std::endian::little, "the .redraw format is little-endian");

namespace {
constexpr char k_magic[8] = {'R', 'D', 'R', 'W', 'M', 'O', 'D', 'L'};
constexpr uint64_t k_max_checkpoint_bytes = uint64_t(8) << 30;
using Writer = ByteWriter;
using Reader = ByteReader;
uint32_t crc_of(const uint8_t* p, size_t n) { return checkpoint_crc(p, n); }
} // namespace

int64_t count_nonfinite(std::span<const float> v) {
  int64_t n = 0;
  for (float x : v) n += std::isfinite(x) ? 0 : 1;
  return n;
}

uint64_t parameter_fingerprint(std::span<const float> params) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const float v : params) {
    uint32_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    for (int b = 0; b < 4; ++b) {
      h ^= (bits >> (8 * b)) & 0xffu;
      h *= 0x100000001b3ull;
    }
  }
  return h;
}

int64_t count_nonfinite(const Checkpoint& c) {
  int64_t n = count_nonfinite(c.params) + count_nonfinite(c.optimizer.first) + count_nonfinite(c.optimizer.second);
  for (const auto& s : c.snapshots) n += count_nonfinite(frame_weights(s));
  return n;
}

bool has_weights(const Snapshot& s) { return !s.params.empty() || !s.half_params.empty(); }

size_t frame_weight_count(const Snapshot& s) { return s.params.empty() ? s.half_params.size() : s.params.size(); }

std::vector<float> frame_weights(const Snapshot& s) { return s.params.empty() ? from_half(s.half_params) : s.params; }

FrameKind frame_kind(const Snapshot& s) {
  if (s.resumable && !s.params.empty()) return FrameKind::Resumable;
  return has_weights(s) ? FrameKind::Weights : FrameKind::Picture;
}

namespace {
std::vector<uint8_t> meta_bytes(const Checkpoint& c) {
  nlohmann::json meta = {{"config", to_json(c.config)},
                         {"step", c.step},
                         {"optimizer_step", c.optimizer_step >= 0 ? c.optimizer_step : c.step},
                         {"seconds", c.seconds},
                         {"lr_scale", c.lr_scale},
                         {"initial_psnr_db", std::isfinite(c.initial_psnr_db) ? nlohmann::json(c.initial_psnr_db)
                                                                                : nlohmann::json(nullptr)},
                         {"image_width", c.image_width},
                         {"image_height", c.image_height},
                         {"source_image", c.source_image},
                         {"output_channels", c.config.model.output_channels},
                         {"writer", std::string("redraw ") + REDRAW_VERSION}};
  const std::string text = meta.dump();
  return {text.begin(), text.end()};
}

std::vector<uint8_t> recovery_bytes(const Checkpoint& c) {
  nlohmann::json events = nlohmann::json::array();
  for (const auto& e : c.recoveries)
    events.push_back({{"step", e.step},
                      {"rolled_back_to", e.rolled_back_to},
                      {"lr_scale", e.lr_scale},
                      {"seconds", e.seconds},
                      {"attempt", e.attempt},
                      {"reason", e.reason}});
  const std::string text = events.dump();
  return {text.begin(), text.end()};
}

void read_meta(const Reader& r, const uint8_t* body, size_t len, Checkpoint& c) {
  const std::string& name = r.name();
  try {
    const nlohmann::json meta = nlohmann::json::parse(body, body + len);
    c.config = parse_run_config(meta.at("config"), name);
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

void read_recoveries(const Reader& r, const uint8_t* body, size_t len, Checkpoint& c) {
  try {
    const nlohmann::json events = nlohmann::json::parse(body, body + len);
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

// FRAM flags: what a frame keeps in the file.
constexpr uint8_t k_frame_half = 1, k_frame_exact = 2, k_frame_picture = 4;
constexpr size_t k_frame_record_bytes = k_checkpoint_row_bytes + 4 + 8;

/// The bytes of a float or fp16 array, as a chunk piece.
template <class T> ChunkPiece piece_of(const std::vector<T>& v) {
  return {reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(T)};
}

/// The format-3 frame chunks: FRAM (records), FPIC (pictures, each as its difference from the
/// previous picture of the same size, which compresses), FWGT (fp16 keyframes), FXCT (exact ones).
/// The pictures and weights stream from the frames into the file: none is copied whole.
void add_frames(ChunkFileWriter& out, const std::vector<Snapshot>& frames) {
  const std::vector<bool> keep = file_keyframes(frames); // true for every frame without a picture
  std::vector<uint8_t> flags_of(frames.size(), 0);
  ByteWriter rec;
  uint64_t written = 0, pic_bytes = 0, half_count = 0, exact_count = 0;
  for (size_t i = 0; i < frames.size(); ++i) {
    const Snapshot& s = frames[i];
    if (s.picture.empty() && !has_weights(s)) continue; // nothing to show
    uint8_t flags = s.picture.empty() ? 0 : k_frame_picture;
    pic_bytes += s.picture.pixels.size();
    if (keep[i] && has_weights(s)) {
      // Step 0 keeps exact weights (an exact branch: its optimizer state is zeros), as does a
      // frame whose weights fp16 cannot hold.
      const bool exact = !s.params.empty() && (s.metrics.step == 0 || !fits_half(s.params));
      flags |= exact ? k_frame_exact : k_frame_half;
      (exact ? exact_count : half_count) += frame_weight_count(s);
    }
    flags_of[i] = flags;
    ++written;
  }
  rec.put<uint64_t>(written);
  for (size_t i = 0; i < frames.size(); ++i) {
    const Snapshot& s = frames[i];
    if (flags_of[i] == 0) continue;
    rec.put_row(s.metrics);
    rec.put<uint8_t>(flags_of[i]);
    rec.put<uint8_t>(uint8_t(s.picture.channels));
    rec.put<uint16_t>(0);
    rec.put<int32_t>(s.picture.width);
    rec.put<int32_t>(s.picture.height);
  }
  out.add("FRAM", rec.bytes, 1);
  out.add("FPIC", pic_bytes, [&](const auto& visit) {
    std::vector<uint8_t> delta;
    const FramePicture* previous = nullptr;
    for (size_t i = 0; i < frames.size(); ++i) {
      if (!(flags_of[i] & k_frame_picture)) continue;
      const FramePicture& p = frames[i].picture;
      const bool same = previous && previous->width == p.width && previous->height == p.height &&
                        previous->channels == p.channels;
      delta.resize(p.pixels.size());
      for (size_t k = 0; k < delta.size(); ++k) delta[k] = uint8_t(p.pixels[k] - (same ? previous->pixels[k] : 0));
      visit(ChunkPiece(delta));
      previous = &p;
    }
  });
  out.add("FWGT", half_count * 2, [&](const auto& visit) {
    for (size_t i = 0; i < frames.size(); ++i) {
      if (!(flags_of[i] & k_frame_half)) continue;
      const Snapshot& s = frames[i];
      if (s.params.empty()) {
        visit(piece_of(s.half_params));
      } else {
        const std::vector<uint16_t> h = to_half(s.params);
        visit(piece_of(h));
      }
    }
  }, 2);
  out.add("FXCT", exact_count * 4, [&](const auto& visit) {
    for (size_t i = 0; i < frames.size(); ++i)
      if (flags_of[i] & k_frame_exact) visit(piece_of(frames[i].params));
  }, 4);
}

/// Rebuilds the frames from the format-3 chunks; `count` is the model's parameter count.
std::vector<Snapshot> read_frames(const std::string& name, const std::vector<uint8_t>& rec_bytes,
                                  const std::vector<uint8_t>& pic_bytes, const std::vector<uint8_t>& half_bytes,
                                  const std::vector<uint8_t>& exact_bytes, int64_t count) {
  Reader rec(rec_bytes.data(), rec_bytes.size(), name, "chunk FRAM");
  Reader pic(pic_bytes.data(), pic_bytes.size(), name, "chunk FPIC");
  Reader half(half_bytes.data(), half_bytes.size(), name, "chunk FWGT");
  Reader exact(exact_bytes.data(), exact_bytes.size(), name, "chunk FXCT");
  const uint64_t n = rec.get_count(k_frame_record_bytes, "frame");
  std::vector<Snapshot> frames;
  frames.reserve(size_t(n));
  const Snapshot* previous = nullptr;
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
    if (flags & k_frame_picture) {
      if ((channels != 1 && channels != 3) || w < 1 || h < 1 || w > 65536 || h > 65536)
        rec.fail(frame + ": impossible picture size " + std::to_string(w) + "x" + std::to_string(h));
      const uint64_t bytes = uint64_t(w) * uint64_t(h) * channels;
      if (bytes > pic.remaining()) pic.fail(frame + ": picture runs past the end");
      s.picture = {w, h, channels, std::vector<uint8_t>(pic.here(), pic.here() + bytes)};
      pic.skip(bytes);
      const FramePicture* before = previous ? &previous->picture : nullptr;
      if (before && before->width == w && before->height == h && before->channels == channels)
        for (size_t k = 0; k < s.picture.pixels.size(); ++k) s.picture.pixels[k] += before->pixels[k];
    }
    if (flags & k_frame_half) {
      if (uint64_t(count) > half.remaining() / 2) half.fail(frame + ": weights run past the end");
      s.half_params.resize(size_t(count));
      std::memcpy(s.half_params.data(), half.here(), size_t(count) * 2);
      half.skip(uint64_t(count) * 2);
    } else if (flags & k_frame_exact) {
      if (uint64_t(count) > exact.remaining() / 4) exact.fail(frame + ": weights run past the end");
      s.params.resize(size_t(count));
      std::memcpy(s.params.data(), exact.here(), size_t(count) * 4);
      exact.skip(uint64_t(count) * 4);
    }
    if (!(flags & (k_frame_half | k_frame_exact | k_frame_picture))) rec.fail(frame + ": keeps neither picture nor weights");
    s.resumable = s.metrics.step == 0 && !s.params.empty(); // the untrained network's optimizer state is all zeros
    frames.push_back(std::move(s));
    if (frames.back().picture.pixels.size() > 0) previous = &frames.back();
  }
  // (frames reserved n, so the pointer above stays valid)
  for (const Reader* r : {&pic, &half, &exact})
    if (r->remaining() != 0) r->fail(std::to_string(r->remaining()) + " bytes left over after the last frame");
  return frames;
}

/// Format 2 (and 1): every chunk stored as is, frames as exact fp32 weights (frames without
/// weights cannot be written in it and are left out).
ChunkFileWriter chunks_v2(const Checkpoint& c, uint32_t version, AtomicFileWriter* sink) {
  ChunkFileWriter out(k_magic, version, false, sink);
  out.add("META", meta_bytes(c));
  ByteWriter w;
  w.put_array(c.params);
  out.add("PARM", w.bytes);
  w.bytes.clear();
  w.put_array(c.optimizer.first);
  w.put_array(c.optimizer.second);
  out.add("OPTM", w.bytes);
  w.bytes.clear();
  w.put<uint64_t>(c.history.size());
  for (const auto& r : c.history) w.put_row(r);
  out.add("HIST", w.bytes);
  w.bytes.clear();
  size_t n = 0;
  for (const auto& s : c.snapshots) n += has_weights(s) ? 1 : 0;
  w.put<uint64_t>(n);
  for (const auto& s : c.snapshots)
    if (has_weights(s)) {
      w.put_row(s.metrics);
      w.put_array(frame_weights(s));
    }
  out.add("SNAP", w.bytes);
  out.add("RCOV", recovery_bytes(c));
  out.add("CURV", encode_curves_chunk(c.history, c.loss_trace));
  return out;
}

/// The chunks of `c` in format `version`: kept for finish(), or written to `sink` as they come.
ChunkFileWriter checkpoint_chunks(const Checkpoint& c, uint32_t version, AtomicFileWriter* sink = nullptr) {
  // A model with non-finite numbers renders black and cannot resume: it is never written.
  if (const int64_t bad = count_nonfinite(c); bad > 0)
    throw CheckpointError("refusing to save a model with " + std::to_string(bad) +
                          " non-finite weights or optimizer values (the run diverged)");
  if (version == 0 || version > k_checkpoint_version) throw CheckpointError("cannot write format version " + std::to_string(version));
  if (version < 3) return chunks_v2(c, version, sink);
  ChunkFileWriter out(k_magic, version, true, sink);
  out.add("META", meta_bytes(c));
  out.add("PARM", c.params.size() * 4, [&](const auto& visit) { visit(piece_of(c.params)); }, 4);
  // Each optimizer array as a u64 count, then its floats (ByteWriter::put_array's layout).
  const uint64_t first = c.optimizer.first.size(), second = c.optimizer.second.size();
  out.add("OPTM", 16 + (first + second) * 4, [&](const auto& visit) {
    visit(ChunkPiece(reinterpret_cast<const uint8_t*>(&first), 8));
    visit(piece_of(c.optimizer.first));
    visit(ChunkPiece(reinterpret_cast<const uint8_t*>(&second), 8));
    visit(piece_of(c.optimizer.second));
  }, 4);
  ByteWriter w;
  w.put<uint64_t>(c.history.size());
  for (const auto& r : c.history) w.put_row(r);
  out.add("HIST", w.bytes, 8);
  add_frames(out, c.snapshots);
  out.add("RCOV", recovery_bytes(c));
  out.add("CURV", encode_curves_chunk(c.history, c.loss_trace));
  return out;
}
} // namespace

std::vector<uint8_t> serialize_checkpoint(const Checkpoint& c, uint32_t version) {
  return checkpoint_chunks(c, version).finish();
}

void write_checkpoint(AtomicFileWriter& out, const Checkpoint& c) {
  checkpoint_chunks(c, k_checkpoint_version, &out).finish_sink();
}

Checkpoint deserialize_checkpoint(const uint8_t* data, size_t size, const std::string& name) {
  if (size < 8 + 4 + 4 + 4) throw CheckpointError(name + ": too short to be a .redraw model (" + std::to_string(size) + " bytes)");
  if (std::memcmp(data, k_magic, 8) != 0) throw CheckpointError(name + ": not a .redraw model file (bad magic number)");
  uint32_t version = 0, stored_crc = 0;
  std::memcpy(&version, data + 8, 4);
  std::memcpy(&stored_crc, data + size - 4, 4);
  // The checksum first: a truncated or damaged file is reported as such, never as one from a
  // newer redraw because its version field happens to hold other bytes.
  if (crc_of(data, size - 4) != stored_crc)
    throw CheckpointError(name + ": the file is truncated or damaged (" + std::to_string(size) +
                          " bytes, checksum mismatch)");
  if (version == 0 || version > k_checkpoint_version)
    throw CheckpointError(name + ": format version " + std::to_string(version) +
                          " is not supported (this redraw reads up to " + std::to_string(k_checkpoint_version) +
                          "); it was written by a newer redraw");

  Checkpoint c;
  bool have_meta = false, have_params = false, have_frames = false;
  std::vector<uint8_t> fram, fpic, fwgt, fxct, curves;
  for_each_chunk(data + 12, size - 16, name, version >= 3, k_max_checkpoint_bytes, [&](ChunkView& chunk) {
    const std::string& t = chunk.tag;
    const uint8_t* body = chunk.body.data();
    const size_t len = chunk.body.size();
    Reader r(body, len, name, "chunk " + t);
    if (t == "META") {
      read_meta(r, body, len, c);
      have_meta = true;
    } else if (t == "PARM") {
      if (version >= 3) {
        if (len % 4 != 0) r.fail("not a whole number of floats");
        c.params.resize(len / 4);
        if (len > 0) std::memcpy(c.params.data(), body, len);
      } else {
        c.params = r.get_array<float>("weights");
      }
      have_params = true;
    } else if (t == "OPTM") {
      c.optimizer.first = r.get_array<float>("optimizer state");
      c.optimizer.second = r.get_array<float>("optimizer state");
    } else if (t == "HIST") {
      const uint64_t n = r.get_count(k_checkpoint_row_bytes, "history row");
      c.history.reserve(size_t(n));
      for (uint64_t k = 0; k < n; ++k) c.history.push_back(r.get_row());
    } else if (t == "SNAP" && version < 3) {
      const uint64_t n = r.get_count(k_checkpoint_row_bytes + 8, "snapshot");
      c.snapshots.reserve(size_t(n));
      for (uint64_t k = 0; k < n; ++k) {
        Snapshot s;
        s.metrics = r.get_row();
        s.params = r.get_array<float>("snapshot weights");
        s.resumable = s.metrics.step == 0; // the untrained network's optimizer state is all zeros
        c.snapshots.push_back(std::move(s));
      }
    } else if (t == "FRAM" && version >= 3) {
      fram = std::move(chunk.body);
      have_frames = true;
    } else if (t == "FPIC" && version >= 3) {
      fpic = std::move(chunk.body);
    } else if (t == "FWGT" && version >= 3) {
      fwgt = std::move(chunk.body);
    } else if (t == "FXCT" && version >= 3) {
      fxct = std::move(chunk.body);
    } else if (t == "RCOV") {
      read_recoveries(r, body, len, c);
    } else if (t == "CURV") {
      curves = std::move(chunk.body); // read after the loop: it marks HIST rows
    } // unknown chunks are skipped
  });
  if (!curves.empty()) decode_curves_chunk(curves.data(), curves.size(), name, c.history, c.loss_trace);
  if (!have_meta) throw CheckpointError(name + ": no META chunk (config)");
  if (!have_params) throw CheckpointError(name + ": no PARM chunk (weights)");
  const int64_t count = parameter_count(c.config.model);
  if (int64_t(c.params.size()) != count)
    throw CheckpointError(name + ": has " + std::to_string(c.params.size()) + " weights but its config needs " + std::to_string(count));
  if (have_frames) c.snapshots = read_frames(name, fram, fpic, fwgt, fxct, count);
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

void save_checkpoint(const std::filesystem::path& file, const Checkpoint& c) {
  AtomicFileWriter out(file);
  write_checkpoint(out, c);
  out.commit();
}

Checkpoint load_checkpoint(const std::filesystem::path& file) {
  std::vector<uint8_t> bytes;
  if (const std::string why = read_user_file(file, k_max_checkpoint_bytes, "a model file", "8 GiB model", bytes);
      !why.empty())
    throw CheckpointError(why);
  return deserialize_checkpoint(bytes.data(), bytes.size(), file.string());
}

} // namespace redraw
