#include "engine/model_files/checkpoint.h"

#include "engine/atomic_file.h"
#include "engine/model_files/curves_chunk.h"
#include "engine/path_problem.h"
#include "engine/display_text.h"
#include "engine/soundness.h"
#include "engine/errors.h"
#include "engine/model_files/checkpoint_codec.h"
#include "engine/half_float.h"
#include "engine/frames/timelapse.h"

#include <nlohmann/json.hpp>

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>

namespace redraw {

static_assert(std::endian::native == std::endian::little, "the .redraw format is little-endian");

namespace {
using Writer = ByteWriter;
} // namespace

int64_t count_unsound(const Checkpoint& c) {
  return count_unsound(c.params, k_max_model_weight) + count_unsound(c.optimizer.first, k_max_optimizer_value) +
         count_unsound(c.optimizer.second, k_max_optimizer_value);
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

namespace {
std::vector<uint8_t> meta_bytes(const Checkpoint& c) {
  // The strings as the reader takes them (k_max_model_string_bytes of UTF-8): a source path too
  // long or not UTF-8 is stored shortened, never a file that no reader opens.
  nlohmann::json config = to_json(c.config);
  config["name"] = utf8_within(c.config.name, k_max_model_string_bytes);
  nlohmann::json meta = {{"config", config},
                         {"step", c.step},
                         {"optimizer_step", c.optimizer_step >= 0 ? c.optimizer_step : c.step},
                         {"seconds", c.seconds},
                         {"lr_scale", c.lr_scale},
                         {"initial_psnr_db", std::isfinite(c.initial_psnr_db) ? nlohmann::json(c.initial_psnr_db)
                                                                                : nlohmann::json(nullptr)},
                         {"image_width", c.image_width},
                         {"image_height", c.image_height},
                         {"source_image", utf8_within(c.source_image, k_max_model_string_bytes)},
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

/// The bytes of a float or fp16 array, as a chunk piece.
template <class T> ChunkPiece piece_of(const std::vector<T>& v) {
  return {reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(T)};
}

/// Which frames a file keeps: all of them, unless their count, their pictures' bytes or the
/// frames keeping weights would pass the file limits (checkpoint.h); then every k-th frame for
/// the smallest k that fits, the first and the newest always.
std::vector<bool> frames_within_limits(const std::vector<Snapshot>& frames, const std::vector<bool>& keep_weights) {
  const size_t n = frames.size();
  for (size_t k = 1;; ++k) {
    std::vector<bool> write(n, false);
    uint64_t count = 0, pictures = 0, weights = 0;
    for (size_t i = 0; i < n; ++i) {
      if (i != 0 && i + 1 != n && i % k != 0) continue;
      write[i] = true;
      ++count;
      pictures += frames[i].picture.pixels.size();
      weights += keep_weights[i] && has_weights(frames[i]) ? 1 : 0;
    }
    if ((count <= k_max_file_frames && pictures <= k_max_file_picture_bytes && weights <= k_max_file_weight_frames) ||
        count <= 2)
      return write;
  }
}

/// A history over k_max_file_history_rows as the file keeps it: every k-th row (the newest always).
std::vector<MetricsRow> history_within_limits(const std::vector<MetricsRow>& rows) {
  const size_t k = (rows.size() + k_max_file_history_rows - 2) / (k_max_file_history_rows - 1);
  std::vector<MetricsRow> out;
  for (size_t i = 0; i < rows.size(); i += k) out.push_back(rows[i]);
  if (out.back().step != rows.back().step) out.push_back(rows.back());
  return out;
}

/// A loss trace over k_max_file_loss_values as the file keeps it: its newest values.
LossTrace trace_within_limits(const LossTrace& t) {
  LossTrace out;
  const size_t drop = t.loss.size() - k_max_file_loss_values;
  out.first_count = t.first_count + int64_t(drop);
  out.loss.assign(t.loss.begin() + ptrdiff_t(drop), t.loss.end());
  return out;
}

/// The format-3 frame chunks: FRAM (records), FPIC (pictures, each as its difference from the
/// previous picture of the same size, which compresses), FWGT (fp16 keyframes), FXCT (exact ones).
/// The pictures and weights stream from the frames into the file: none is copied whole.
void add_frames(ChunkFileWriter& out, const std::vector<Snapshot>& frames) {
  const std::vector<bool> keep = file_keyframes(frames); // true for every frame without a picture
  const std::vector<bool> within = frames_within_limits(frames, keep);
  std::vector<uint8_t> flags_of(frames.size(), 0);
  ByteWriter rec;
  uint64_t written = 0, pic_bytes = 0, half_count = 0, exact_count = 0;
  for (size_t i = 0; i < frames.size(); ++i) {
    const Snapshot& s = frames[i];
    // Left out, or nothing to show (weights that are not sound are never written).
    const bool weights = keep[i] && has_weights(s) && !frame_weights_unsound(s);
    if (!within[i] || (s.picture.empty() && !weights)) continue;
    uint8_t flags = s.picture.empty() ? 0 : k_frame_picture;
    pic_bytes += s.picture.pixels.size();
    if (weights) {
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

/// Format 2 (and 1): every chunk stored as is, frames as exact fp32 weights (frames without
/// weights cannot be written in it and are left out).
ChunkFileWriter chunks_v2(const Checkpoint& c, uint32_t version, AtomicFileWriter* sink) {
  ChunkFileWriter out(k_model_magic, version, false, sink);
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
  // A model with non-finite numbers renders black and cannot resume, and one past the bounds no
  // reader opens: neither is ever written.
  if (const int64_t bad = count_unsound(c); bad > 0)
    throw CheckpointError("refusing to save a model with " + std::to_string(bad) +
                          " weights or optimizer values that are not finite or past the bounds a model may hold (the "
                          "run diverged)");
  if (version == 0 || version > k_checkpoint_version) throw CheckpointError("cannot write format version " + std::to_string(version));
  if (version < 3) return chunks_v2(c, version, sink);
  ChunkFileWriter out(k_model_magic, version, true, sink);
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
  // A very long run's history and loss trace thinned to the file limits (copied only then).
  std::vector<MetricsRow> thinned_rows;
  LossTrace newest_losses;
  if (c.history.size() > k_max_file_history_rows) thinned_rows = history_within_limits(c.history);
  if (c.loss_trace.loss.size() > k_max_file_loss_values) newest_losses = trace_within_limits(c.loss_trace);
  const std::vector<MetricsRow>& history = thinned_rows.empty() ? c.history : thinned_rows;
  const LossTrace& trace = newest_losses.empty() ? c.loss_trace : newest_losses;
  ByteWriter w;
  w.put<uint64_t>(history.size());
  for (const auto& r : history) w.put_row(r);
  out.add("HIST", w.bytes, 8);
  add_frames(out, c.snapshots);
  out.add("RCOV", recovery_bytes(c));
  out.add("CURV", encode_curves_chunk(history, trace));
  if (std::vector<uint8_t> extra = encode_metric_columns_chunk(history); !extra.empty()) out.add("MCOL", extra, 8);
  return out;
}
} // namespace

std::vector<uint8_t> serialize_checkpoint(const Checkpoint& c, uint32_t version) {
  return checkpoint_chunks(c, version).finish();
}

void write_checkpoint(AtomicFileWriter& out, const Checkpoint& c) {
  checkpoint_chunks(c, k_checkpoint_version, &out).finish_sink();
}

void save_checkpoint(const std::filesystem::path& file, const Checkpoint& c) {
  AtomicFileWriter out(file);
  write_checkpoint(out, c);
  out.commit();
}

} // namespace redraw
