#include "engine/checkpoint.h"

#include "engine/atomic_file.h"
#include "engine/curves_chunk.h"
#include "engine/path_problem.h"
#include "engine/errors.h"

#include <nlohmann/json.hpp>
#include <zlib.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>

namespace redraw {

static_assert(std::endian::native == std::endian::little, "the .redraw format is little-endian");

namespace {
constexpr char k_magic[8] = {'R', 'D', 'R', 'W', 'M', 'O', 'D', 'L'};
constexpr uint64_t k_max_checkpoint_bytes = uint64_t(8) << 30;
constexpr size_t k_row_bytes = 8 + 4 * 8;

class Writer {
public:
  std::vector<uint8_t> bytes;
  template <class T> void put(const T& v) {
    const auto* p = reinterpret_cast<const uint8_t*>(&v);
    bytes.insert(bytes.end(), p, p + sizeof(T));
  }
  void put_floats(const std::vector<float>& v) {
    put<uint64_t>(v.size());
    if (v.empty()) return;
    const auto* p = reinterpret_cast<const uint8_t*>(v.data());
    bytes.insert(bytes.end(), p, p + v.size() * sizeof(float));
  }
  void put_row(const MetricsRow& r) {
    put(r.step);
    put(r.loss);
    put(r.psnr_db);
    put(r.lr);
    put(r.seconds);
  }
  size_t begin_chunk(const char tag[4]) {
    bytes.insert(bytes.end(), tag, tag + 4);
    put<uint64_t>(0);
    return bytes.size();
  }
  void end_chunk(size_t start) {
    const uint64_t len = bytes.size() - start;
    std::memcpy(bytes.data() + start - 8, &len, 8);
  }
};

/// Bounds-checked reader over untrusted bytes: every length is checked against what remains
/// before anything is allocated from it.
class Reader {
public:
  Reader(const uint8_t* p, size_t n, std::string name, std::string where) : m_p(p), m_n(n), m_name(std::move(name)), m_where(std::move(where)) {}
  [[noreturn]] void fail(const std::string& what) const {
    throw CheckpointError(m_name + ": " + m_where + ": " + what);
  }
  size_t remaining() const { return m_n - m_off; }
  template <class T> T get() {
    if (remaining() < sizeof(T)) fail("unexpected end of data");
    T v;
    std::memcpy(&v, m_p + m_off, sizeof(T));
    m_off += sizeof(T);
    return v;
  }
  std::vector<float> get_floats() {
    const uint64_t count = get<uint64_t>();
    if (count > remaining() / sizeof(float)) fail("array of " + std::to_string(count) + " floats runs past the end");
    std::vector<float> v(static_cast<size_t>(count));
    if (count > 0) std::memcpy(v.data(), m_p + m_off, size_t(count) * sizeof(float)); // (never memcpy to null)
    m_off += size_t(count) * sizeof(float);
    return v;
  }
  MetricsRow get_row() {
    MetricsRow r;
    r.step = get<int64_t>();
    r.loss = get<double>();
    r.psnr_db = get<double>();
    r.lr = get<double>();
    r.seconds = get<double>();
    return r;
  }
  uint64_t get_count(size_t min_item_bytes, const char* what) {
    const uint64_t count = get<uint64_t>();
    if (count > remaining() / min_item_bytes) fail(std::string(what) + " count " + std::to_string(count) + " runs past the end");
    return count;
  }

private:
  const uint8_t* m_p;
  size_t m_n, m_off = 0;
  std::string m_name, m_where;
};

uint32_t crc_of(const uint8_t* p, size_t n) {
  uLong crc = crc32(0L, Z_NULL, 0);
  while (n > 0) {
    const uInt part = uInt(std::min<size_t>(n, size_t(1) << 30));
    crc = crc32(crc, p, part);
    p += part;
    n -= part;
  }
  return uint32_t(crc);
}
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
  for (const auto& s : c.snapshots) n += count_nonfinite(s.params);
  return n;
}

std::vector<uint8_t> serialize_checkpoint(const Checkpoint& c) {
  // A model with non-finite numbers renders black and cannot resume: it is never written.
  if (const int64_t bad = count_nonfinite(c); bad > 0)
    throw CheckpointError("refusing to save a model with " + std::to_string(bad) +
                          " non-finite weights or optimizer values (the run diverged)");
  Writer w;
  w.bytes.assign(k_magic, k_magic + 8); // (insert into the empty vector trips a GCC 12 false -Wstringop-overflow)
  w.put<uint32_t>(k_checkpoint_version);
  w.put<uint32_t>(7);

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
  const std::string meta_text = meta.dump();
  size_t s = w.begin_chunk("META");
  w.bytes.insert(w.bytes.end(), meta_text.begin(), meta_text.end());
  w.end_chunk(s);

  s = w.begin_chunk("PARM");
  w.put_floats(c.params);
  w.end_chunk(s);

  s = w.begin_chunk("OPTM");
  w.put_floats(c.optimizer.first);
  w.put_floats(c.optimizer.second);
  w.end_chunk(s);

  s = w.begin_chunk("HIST");
  w.put<uint64_t>(c.history.size());
  for (const auto& r : c.history) w.put_row(r);
  w.end_chunk(s);

  s = w.begin_chunk("SNAP");
  w.put<uint64_t>(c.snapshots.size());
  for (const auto& snap : c.snapshots) {
    w.put_row(snap.metrics);
    w.put_floats(snap.params);
  }
  w.end_chunk(s);

  nlohmann::json events = nlohmann::json::array();
  for (const auto& e : c.recoveries)
    events.push_back({{"step", e.step},
                      {"rolled_back_to", e.rolled_back_to},
                      {"lr_scale", e.lr_scale},
                      {"seconds", e.seconds},
                      {"attempt", e.attempt},
                      {"reason", e.reason}});
  const std::string events_text = events.dump();
  s = w.begin_chunk("RCOV");
  w.bytes.insert(w.bytes.end(), events_text.begin(), events_text.end());
  w.end_chunk(s);

  const std::vector<uint8_t> curves = encode_curves_chunk(c.history, c.loss_trace);
  s = w.begin_chunk("CURV");
  w.bytes.insert(w.bytes.end(), curves.begin(), curves.end());
  w.end_chunk(s);

  w.put<uint32_t>(crc_of(w.bytes.data(), w.bytes.size()));
  return std::move(w.bytes);
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

  Reader top(data + 12, size - 16, name, "header");
  const uint32_t chunks = top.get<uint32_t>();
  Checkpoint c;
  bool have_meta = false, have_params = false;
  std::span<const uint8_t> curves; // read after the loop: it marks HIST rows
  for (uint32_t i = 0; i < chunks; ++i) {
    char tag[5] = {};
    for (char& ch : std::span(tag, 4)) ch = char(top.get<uint8_t>());
    const uint64_t len = top.get<uint64_t>();
    if (len > top.remaining()) top.fail(std::string("chunk ") + tag + " runs past the end of the file");
    const uint8_t* body = data + 12 + (size - 16 - top.remaining());
    for (uint64_t k = 0; k < len; ++k) (void)top.get<uint8_t>(); // skip: bounds already checked
    Reader r(body, size_t(len), name, std::string("chunk ") + tag);
    const std::string t(tag);
    if (t == "META") {
      nlohmann::json meta;
      try {
        meta = nlohmann::json::parse(body, body + len);
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
      } catch (const std::exception& e) {
        r.fail(std::string("bad metadata: ") + e.what());
      }
      if (!(c.lr_scale > 0 && c.lr_scale <= 1)) r.fail("lr_scale must be in (0, 1]");
      if (c.step < 0 || c.optimizer_step < 0 || c.optimizer_step > c.step || c.image_width < 1 || c.image_height < 1 || c.image_width > 65536 || c.image_height > 65536)
        r.fail("impossible step, optimizer step or image size in metadata");
      have_meta = true;
    } else if (t == "PARM") {
      c.params = r.get_floats();
      have_params = true;
    } else if (t == "OPTM") {
      c.optimizer.first = r.get_floats();
      c.optimizer.second = r.get_floats();
    } else if (t == "HIST") {
      const uint64_t n = r.get_count(k_row_bytes, "history row");
      c.history.reserve(size_t(n));
      for (uint64_t k = 0; k < n; ++k) c.history.push_back(r.get_row());
    } else if (t == "SNAP") {
      const uint64_t n = r.get_count(k_row_bytes + 8, "snapshot");
      c.snapshots.reserve(size_t(n));
      for (uint64_t k = 0; k < n; ++k) {
        Snapshot s;
        s.metrics = r.get_row();
        s.params = r.get_floats();
        s.resumable = s.metrics.step == 0; // the untrained network's optimizer state is all zeros
        c.snapshots.push_back(std::move(s));
      }
    } else if (t == "RCOV") {
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
    } else if (t == "CURV") {
      curves = {body, size_t(len)};
    } // unknown chunks are skipped
  }
  if (!curves.empty()) decode_curves_chunk(curves.data(), curves.size(), name, c.history, c.loss_trace);
  if (!have_meta) throw CheckpointError(name + ": no META chunk (config)");
  if (!have_params) throw CheckpointError(name + ": no PARM chunk (weights)");
  const int64_t count = parameter_count(c.config.model);
  if (int64_t(c.params.size()) != count)
    throw CheckpointError(name + ": has " + std::to_string(c.params.size()) + " weights but its config needs " + std::to_string(count));
  const int arrays = optimizer_state_arrays(c.config.optimizer);
  const auto opt_ok = [&](const std::vector<float>& v, int needed) {
    return v.empty() || (arrays >= needed && int64_t(v.size()) == count);
  };
  if (!opt_ok(c.optimizer.first, 1) || !opt_ok(c.optimizer.second, 2))
    throw CheckpointError(name + ": optimizer state does not match the model's parameter count");
  for (const auto& s : c.snapshots)
    if (int64_t(s.params.size()) != count) throw CheckpointError(name + ": a timelapse snapshot has the wrong number of weights");
  return c;
}

void save_checkpoint(const std::filesystem::path& file, const Checkpoint& c) {
  write_file_atomic(file, serialize_checkpoint(c));
}

Checkpoint load_checkpoint(const std::filesystem::path& file) {
  std::error_code ec;
  const auto status = std::filesystem::status(file, ec);
  if (ec || !std::filesystem::exists(status)) {
    const std::string why = path_problem(file);
    throw CheckpointError(file.string() + ": " + (why.empty() ? std::string("no such file") : why));
  }
  if (std::filesystem::is_directory(status)) throw CheckpointError(file.string() + ": is a directory, not a model file");
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) throw CheckpointError(file.string() + ": cannot read (" + ec.message() + ")");
  if (size > k_max_checkpoint_bytes) throw CheckpointError(file.string() + ": " + std::to_string(size >> 20) + " MiB is over the 8 GiB model limit");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw CheckpointError(file.string() + ": cannot open for reading");
  std::vector<uint8_t> bytes(size);
  in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(size));
  if (!in) throw CheckpointError(file.string() + ": read error");
  return deserialize_checkpoint(bytes.data(), bytes.size(), file.string());
}

} // namespace redraw
