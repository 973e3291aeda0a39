#pragma once
/// The byte level of the .redraw model file: a little-endian writer, a bounds-checked reader over
/// untrusted bytes, the file's CRC-32, and chunk bodies packed with zstd.
/// - A file is "RDRWMODL", u32 version, u32 chunk count, chunks of { char tag[4], u64 byte length,
///   body }, then a CRC-32 (zlib) of every byte before it. checkpoint.cpp says what the chunks hold.
/// - From version 3 every chunk body is packed: { u8 codec (0 stored, 1 zstd), u8 element width
///   (1, 2, 4 or 8: the bytes of an element are regrouped by significance before compressing,
///   which makes floats compress), u16 0, u64 unpacked length, payload }.
/// - Reading never allocates from an untrusted size before checking it against what is left (or,
///   for an unpacked length, growing only as the decompressor really produces bytes), and every
///   defect throws CheckpointError naming the file and the place.
#include "engine/errors.h"
#include "engine/metric_columns.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace redraw {

class AtomicFileWriter;

/// Bytes of one metrics row in the file (i64 step, four f64: the Hist columns of
/// engine/metric_columns.h, in its order). Fixed: a column added later is coded Extra (MCOL).
constexpr size_t k_checkpoint_row_bytes = 8 + 4 * 8;
static_assert(metric_hist_row_bytes() == k_checkpoint_row_bytes,
              "a HIST row's layout is fixed: code a new metric column Extra (engine/metric_columns.h)");
/// The model file's first eight bytes.
constexpr char k_model_magic[8] = {'R', 'D', 'R', 'W', 'M', 'O', 'D', 'L'};
/// FRAM flags: what a frame keeps in the file (fp16 weights, exact weights, a picture).
constexpr uint8_t k_frame_half = 1, k_frame_exact = 2, k_frame_picture = 4;
/// Bytes of one FRAM record: the metrics row, flags, channels, u16 0, i32 width and height.
constexpr size_t k_frame_record_bytes = k_checkpoint_row_bytes + 4 + 8;

/// Appends little-endian values to `bytes`.
class ByteWriter {
public:
  std::vector<uint8_t> bytes;
  template <class T> void put(const T& v) {
    const auto* p = reinterpret_cast<const uint8_t*>(&v);
    bytes.insert(bytes.end(), p, p + sizeof(T));
  }
  /// u64 count, then the elements' bytes.
  template <class T> void put_array(const std::vector<T>& v) {
    put<uint64_t>(v.size());
    put_raw(v.data(), v.size() * sizeof(T));
  }
  void put_raw(const void* p, size_t n) {
    if (n == 0) return;
    const auto* b = static_cast<const uint8_t*>(p);
    bytes.insert(bytes.end(), b, b + n);
  }
  void put_row(const MetricsRow& r);
};

/// Reads values from untrusted bytes; every length is checked against what remains first.
class ByteReader {
public:
  ByteReader(const uint8_t* p, size_t n, std::string name, std::string where)
      : m_p(p), m_n(n), m_name(std::move(name)), m_where(std::move(where)) {}
  [[noreturn]] void fail(const std::string& what) const;
  size_t remaining() const { return m_n - m_off; }
  size_t offset() const { return m_off; }
  const uint8_t* here() const { return m_p + m_off; }
  template <class T> T get() {
    if (remaining() < sizeof(T)) fail("unexpected end of data");
    T v;
    std::memcpy(&v, m_p + m_off, sizeof(T));
    m_off += sizeof(T);
    return v;
  }
  /// A u64 count, then that many elements.
  template <class T> std::vector<T> get_array(const char* what = "array") {
    const uint64_t count = get<uint64_t>();
    if (count > remaining() / sizeof(T))
      fail(std::string(what) + " of " + std::to_string(count) + " elements runs past the end");
    std::vector<T> v(static_cast<size_t>(count));
    if (count > 0) std::memcpy(v.data(), m_p + m_off, size_t(count) * sizeof(T)); // (never memcpy to null)
    m_off += size_t(count) * sizeof(T);
    return v;
  }
  /// Skips n bytes (checked).
  void skip(uint64_t n) {
    if (n > remaining()) fail("unexpected end of data");
    m_off += size_t(n);
  }
  MetricsRow get_row();
  /// A u64 count of items of at least `min_item_bytes` each, checked against what remains.
  uint64_t get_count(size_t min_item_bytes, const char* what);
  const std::string& name() const { return m_name; }

private:
  const uint8_t* m_p;
  size_t m_n, m_off = 0;
  std::string m_name, m_where;
};

/// CRC-32 (zlib's polynomial) of n bytes.
uint32_t checkpoint_crc(const uint8_t* p, size_t n);
/// The same CRC continued over n more bytes (checkpoint_crc(a + b) == checkpoint_crc_update(checkpoint_crc(a), b)).
uint32_t checkpoint_crc_update(uint32_t crc, const uint8_t* p, size_t n);

/// Chunks larger than this are packed at zstd level 3, smaller ones at 9.
constexpr size_t k_fast_pack_bytes = size_t(16) << 20;
/// How a chunk body is packed (format 3 on).
enum class ChunkCodec : uint8_t { Stored = 0, Zstd = 1 };

/// A packed chunk's header, checked: its codec and element width are known, and its unpacked
/// length is at most the bound the caller gives (what the model's shape allows that chunk).
struct PackedChunk {
  ChunkCodec codec;
  int width;
  uint64_t raw_len;
  const uint8_t* payload;
  size_t payload_len;
};
/// Reads and checks a packed body's header; `r` names the file and chunk in errors.
PackedChunk read_pack_header(const ByteReader& r, const uint8_t* body, size_t size, uint64_t max_bytes);
/// The unpacked bytes (planes still grouped by width) handed to `sink` piece by piece, through a
/// fixed buffer: refused as soon as they run past the stated length, or when they end short.
void inflate_chunk(const ByteReader& r, const PackedChunk& p, const std::function<void(const uint8_t*, size_t)>& sink);
/// Unpacks a chunk body whole; `max_bytes` bounds the unpacked length (checked before inflating).
std::vector<uint8_t> unpack_chunk(const ByteReader& r, const uint8_t* body, size_t size, uint64_t max_bytes);

/// One chunk of a file as it lies in the file: its tag and its (still packed) body.
struct ChunkRef {
  std::string tag;
  const uint8_t* body;
  size_t len;
};
/// The most chunks a file may hold. The writer makes about a dozen; the bound keeps the work of
/// walking and checking a crafted table (millions of empty chunks in a few MB) small.
constexpr uint32_t k_max_file_chunks = 4096;
/// The chunk table after the 12-byte header (`data`/`size` exclude the trailing CRC): every
/// chunk's tag and place, checked to lie inside the file; nothing is unpacked. A count over
/// k_max_file_chunks is refused, naming the file and the limit, before the walk.
std::vector<ChunkRef> chunk_table(const uint8_t* data, size_t size, const std::string& name);
/// A chunk tag as text, bytes outside printable ASCII escaped (\xNN).
std::string printable_tag(const std::string& tag);

/// A chunk's unpacked bytes, piece by piece: the source calls `visit` on each piece in order. It
/// is called once per byte plane when packing regroups (`width` times), and must give the same
/// bytes every time, so pieces can be made on the fly (a picture's difference, weights rounded to
/// fp16) or point at the caller's arrays: a chunk is never held whole, unpacked or packed.
using ChunkPiece = std::span<const uint8_t>;
using ChunkSource = std::function<void(const std::function<void(ChunkPiece)>& visit)>;

/// Builds a file: magic, version, chunk table, CRC. Chunks are packed when `packed`: those of 64
/// bytes or more through zstd (level 9, or 3 past k_fast_pack_bytes), regrouped by `width`.
class ChunkFileWriter {
public:
  /// With a `sink`, each chunk goes to it as it is packed (a save holds a compressor's buffers,
  /// not a chunk); without, the chunks are kept for finish().
  ChunkFileWriter(const char magic[8], uint32_t version, bool packed, AtomicFileWriter* sink = nullptr);
  /// Adds a chunk of `raw_bytes` unpacked bytes given by `source` (elements of `width` bytes).
  void add(const char tag[4], uint64_t raw_bytes, const ChunkSource& source, int width = 1);
  /// Adds a chunk whose unpacked body is `raw`.
  void add(const char tag[4], const std::vector<uint8_t>& raw, int width = 1);
  /// The finished file: header, chunks and the CRC (without a sink).
  std::vector<uint8_t> finish();
  /// Ends the file in the sink: the chunk count patched into the header, then the CRC.
  void finish_sink();

private:
  void begin_chunk(const char tag[4]);
  void chunk_bytes(const uint8_t* p, size_t n); ///< kept, or written to the sink
  void end_chunk();                              ///< patches the chunk's length in
  void pack(uint64_t raw_bytes, const ChunkSource& source, int width);

  uint8_t m_header[16] = {};                 ///< magic, version, chunk count
  uint8_t m_head[12] = {};                   ///< the open chunk's tag and length
  std::vector<std::vector<uint8_t>> m_parts; ///< without a sink: per chunk, tag + u64 length, then the body
  AtomicFileWriter* m_sink = nullptr;
  uint32_t m_body_crc = 0; ///< with a sink: the CRC of what follows the header
  uint64_t m_body_bytes = 0;
  uint32_t m_chunk_crc = 0; ///< with a sink: the CRC of the open chunk's body so far
  uint64_t m_chunk_bytes = 0;
  uint32_t m_chunks = 0;
  bool m_packed;
};

} // namespace redraw
