#include "engine/model_files/checkpoint_codec.h"
#include "engine/atomic_file.h"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <stdexcept>

namespace redraw {

void ByteWriter::put_row(const MetricsRow& r) {
  for (const MetricColumn& c : k_metric_columns) {
    if (c.coding == MetricCoding::HistI64) put(c.get_i64(r));
    if (c.coding == MetricCoding::HistF64) put(c.get(r));
  }
}

void ByteReader::fail(const std::string& what) const { throw CheckpointError(m_name + ": " + m_where + ": " + what); }

MetricsRow ByteReader::get_row() {
  MetricsRow r;
  for (const MetricColumn& c : k_metric_columns) {
    if (c.coding == MetricCoding::HistI64) c.set_i64(r, get<int64_t>());
    if (c.coding == MetricCoding::HistF64) c.set(r, get<double>());
  }
  return r;
}

uint64_t ByteReader::get_count(size_t min_item_bytes, const char* what) {
  const uint64_t count = get<uint64_t>();
  if (count > remaining() / min_item_bytes)
    fail(std::string(what) + " count " + std::to_string(count) + " runs past the end");
  return count;
}

uint32_t checkpoint_crc_update(uint32_t crc, const uint8_t* p, size_t n) {
  uLong c = crc;
  while (n > 0) {
    const uInt part = uInt(std::min<size_t>(n, size_t(1) << 30));
    c = crc32(c, p, part);
    p += part;
    n -= part;
  }
  return uint32_t(c);
}

uint32_t checkpoint_crc(const uint8_t* p, size_t n) {
  return checkpoint_crc_update(uint32_t(crc32(0L, Z_NULL, 0)), p, n);
}

namespace {
constexpr size_t k_pack_header = 1 + 1 + 2 + 8;

/// The bytes as a rows x cols matrix, transposed (a cols x rows matrix). With rows elements of
/// cols bytes, byte b of element i goes to plane b: the exponent bytes of floats line up and
/// compress; the transpose with rows and cols swapped puts them back.
std::vector<uint8_t> transpose_bytes(const std::vector<uint8_t>& in, size_t rows, size_t cols) {
  std::vector<uint8_t> out(in.size());
  for (size_t i = 0; i < rows; ++i)
    for (size_t b = 0; b < cols; ++b)
      out[b * rows + i] = in[i * cols + b];
  return out;
}
bool regroups(size_t bytes, size_t width) { return width > 1 && bytes % width == 0; }
std::vector<uint8_t> ungroup(const std::vector<uint8_t>& planes, size_t width) {
  return regroups(planes.size(), width) ? transpose_bytes(planes, width, planes.size() / width) : planes;
}

struct DctxFree {
  void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};
struct CctxFree {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};
} // namespace

PackedChunk read_pack_header(const ByteReader& where, const uint8_t* body, size_t size, uint64_t max_bytes) {
  ByteReader r = where;
  const auto codec = r.get<uint8_t>();
  const auto width = r.get<uint8_t>();
  const auto zero = r.get<uint16_t>();
  const auto raw_len = r.get<uint64_t>();
  if (zero != 0 || (width != 1 && width != 2 && width != 4 && width != 8))
    r.fail("bad packing header (element width " + std::to_string(width) + ")");
  if (codec != uint8_t(ChunkCodec::Stored) && codec != uint8_t(ChunkCodec::Zstd))
    r.fail("unknown packing codec " + std::to_string(codec));
  if (raw_len > max_bytes)
    r.fail("unpacked length " + std::to_string(raw_len) + " bytes is more than this model's shape allows (" +
           std::to_string(max_bytes) + ")");
  if (raw_len % width != 0) r.fail("unpacked length is not a whole number of elements");
  return {ChunkCodec(codec), width, raw_len, body + k_pack_header, size - k_pack_header};
}

void inflate_chunk(const ByteReader& r, const PackedChunk& p, const std::function<void(const uint8_t*, size_t)>& sink) {
  if (p.codec == ChunkCodec::Stored) {
    if (p.payload_len != p.raw_len) r.fail("stored length does not match the chunk's size");
    if (p.payload_len > 0) sink(p.payload, p.payload_len);
    return;
  }
  std::unique_ptr<ZSTD_DCtx, DctxFree> ctx(ZSTD_createDCtx());
  if (!ctx) r.fail("out of memory for the decompressor");
  // Piece by piece through a fixed buffer: nothing is allocated from the stated length, and the
  // data is refused as soon as it runs past it.
  std::vector<uint8_t> buf(ZSTD_DStreamOutSize());
  ZSTD_inBuffer in{p.payload, p.payload_len, 0};
  uint64_t produced = 0;
  size_t ret = 1;
  while (ret != 0) {
    ZSTD_outBuffer o{buf.data(), buf.size(), 0};
    ret = ZSTD_decompressStream(ctx.get(), &o, &in);
    if (ZSTD_isError(ret)) r.fail(std::string("corrupt compressed data (") + ZSTD_getErrorName(ret) + ")");
    produced += o.pos;
    if (produced > p.raw_len) r.fail("compressed data runs past its stated length of " + std::to_string(p.raw_len) + " bytes");
    if (o.pos > 0) sink(buf.data(), o.pos);
    if (ret != 0 && in.pos == in.size && o.pos < o.size) r.fail("compressed data ends early");
  }
  if (in.pos != in.size) r.fail("bytes after the end of the compressed data");
  if (produced != p.raw_len) r.fail("compressed data is shorter than its stated length");
}

std::vector<uint8_t> unpack_chunk(const ByteReader& where, const uint8_t* body, size_t size, uint64_t max_bytes) {
  const PackedChunk p = read_pack_header(where, body, size, max_bytes);
  std::vector<uint8_t> out;
  // Grows only as bytes really come out: a lying length never allocates by itself.
  inflate_chunk(where, p, [&](const uint8_t* d, size_t n) { out.insert(out.end(), d, d + n); });
  return ungroup(out, size_t(p.width));
}

std::vector<ChunkRef> chunk_table(const uint8_t* data, size_t size, const std::string& name) {
  ByteReader top(data, size, name, "header");
  const uint32_t chunks = top.get<uint32_t>();
  if (chunks > k_max_file_chunks)
    top.fail("chunk count " + std::to_string(chunks) + " is over the limit of " + std::to_string(k_max_file_chunks) +
             " chunks");
  // Each chunk takes at least its 12-byte head: a count beyond that is refused before the walk.
  if (chunks > top.remaining() / 12) top.fail("chunk count " + std::to_string(chunks) + " runs past the end");
  std::vector<ChunkRef> refs;
  refs.reserve(chunks);
  for (uint32_t i = 0; i < chunks; ++i) {
    char tag[5] = {};
    for (int k = 0; k < 4; ++k)
      tag[k] = char(top.get<uint8_t>());
    const uint64_t len = top.get<uint64_t>();
    if (len > top.remaining()) top.fail(std::string("chunk ") + printable_tag(tag) + " runs past the end of the file");
    refs.push_back({tag, top.here(), size_t(len)});
    top.skip(len);
  }
  if (top.remaining() != 0) top.fail(std::to_string(top.remaining()) + " bytes after the last chunk");
  return refs;
}

std::string printable_tag(const std::string& tag) {
  std::string out;
  for (const unsigned char c : tag) {
    if (c >= 0x20 && c < 0x7f) {
      out += char(c);
    } else {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      out += b;
    }
  }
  return out;
}

ChunkFileWriter::ChunkFileWriter(const char magic[8], uint32_t version, bool packed, AtomicFileWriter* sink)
    : m_sink(sink), m_packed(packed) {
  std::memcpy(m_header, magic, 8);
  std::memcpy(m_header + 8, &version, 4);
  if (m_sink) m_sink->write(m_header, sizeof m_header); // the count is patched by finish_sink()
}

void ChunkFileWriter::begin_chunk(const char tag[4]) {
  std::memcpy(m_head, tag, 4);
  std::memset(m_head + 4, 0, 8); // the length, patched by end_chunk()
  if (m_sink) {
    m_sink->write(m_head, sizeof m_head);
    m_chunk_crc = checkpoint_crc(nullptr, 0);
  } else {
    m_parts.emplace_back(m_head, m_head + sizeof m_head);
  }
  m_chunk_bytes = 0;
}

void ChunkFileWriter::chunk_bytes(const uint8_t* p, size_t n) {
  if (n == 0) return;
  m_chunk_bytes += n;
  if (!m_sink) {
    m_parts.back().insert(m_parts.back().end(), p, p + n);
    return;
  }
  m_chunk_crc = checkpoint_crc_update(m_chunk_crc, p, n);
  m_sink->write(p, n);
}

void ChunkFileWriter::end_chunk() {
  const uint64_t len = m_chunk_bytes;
  std::memcpy(m_head + 4, &len, 8);
  ++m_chunks;
  if (!m_sink) {
    std::memcpy(m_parts.back().data(), m_head, sizeof m_head);
    return;
  }
  m_sink->write_at(sizeof m_header + m_body_bytes, m_head, sizeof m_head);
  // The CRC runs over the head as patched, then the body (zlib's crc32_combine joins them).
  m_body_crc = checkpoint_crc_update(m_body_crc, m_head, sizeof m_head);
  m_body_crc = uint32_t(crc32_combine(m_body_crc, m_chunk_crc, z_off_t(len)));
  m_body_bytes += sizeof m_head + len;
}

void ChunkFileWriter::add(const char tag[4], const std::vector<uint8_t>& raw, int width) {
  add(tag, raw.size(), [&](const auto& visit) { visit(ChunkPiece(raw)); }, width);
}

void ChunkFileWriter::add(const char tag[4], uint64_t raw_bytes, const ChunkSource& source, int width) {
  begin_chunk(tag);
  if (m_packed) {
    pack(raw_bytes, source, width);
  } else {
    source([&](ChunkPiece p) { chunk_bytes(p.data(), p.size()); });
  }
  end_chunk();
}

void ChunkFileWriter::pack(uint64_t raw_bytes, const ChunkSource& source, int width) {
  if ((width != 1 && width != 2 && width != 4 && width != 8) || !regroups(raw_bytes, size_t(width))) width = 1;
  uint8_t head[k_pack_header] = {};
  std::memcpy(head + 4, &raw_bytes, 8);
  const bool small = raw_bytes < 64; // stored: a compressed frame would not be smaller
  head[0] = uint8_t(small ? ChunkCodec::Stored : ChunkCodec::Zstd);
  head[1] = uint8_t(small ? 1 : width);
  chunk_bytes(head, sizeof head);
  uint64_t given = 0;
  if (small) {
    source([&](ChunkPiece p) {
      chunk_bytes(p.data(), p.size());
      given += p.size();
    });
    if (given != raw_bytes) throw std::logic_error("ChunkFileWriter: a chunk's source gave the wrong number of bytes");
    return;
  }
  // Large chunks (the weights and optimizer state of a big hash grid) at a fast level: level 9
  // costs seconds per hundred megabytes at the end of every save, for a few percent of size.
  const int level = raw_bytes > k_fast_pack_bytes ? 3 : 9;
  std::unique_ptr<ZSTD_CCtx, CctxFree> ctx(ZSTD_createCCtx());
  if (!ctx || ZSTD_isError(ZSTD_CCtx_setParameter(ctx.get(), ZSTD_c_compressionLevel, level)) ||
      ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(ctx.get(), raw_bytes)))
    throw std::bad_alloc();
  std::vector<uint8_t> in_buf(size_t(1) << 20), out_buf(ZSTD_CStreamOutSize());
  size_t filled = 0;
  const auto compress = [&](ZSTD_EndDirective mode) {
    ZSTD_inBuffer in{in_buf.data(), filled, 0};
    size_t left = 1;
    while (mode == ZSTD_e_end ? left != 0 : in.pos < in.size) {
      ZSTD_outBuffer out{out_buf.data(), out_buf.size(), 0};
      left = ZSTD_compressStream2(ctx.get(), &out, &in, mode);
      if (ZSTD_isError(left)) throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(left));
      chunk_bytes(out_buf.data(), out.pos);
    }
    filled = 0;
  };
  // Byte b of each element is plane b: the planes one after another, each gathered from the pieces
  // (an element may span two pieces: a byte's plane is its offset in the chunk modulo the width).
  for (int plane = 0; plane < width; ++plane) {
    given = 0;
    source([&](ChunkPiece p) {
      size_t k = size_t((uint64_t(plane) + uint64_t(width) - given % uint64_t(width)) % uint64_t(width));
      given += p.size();
      while (k < p.size()) {
        const size_t room = in_buf.size() - filled;
        const size_t take = std::min(room, (p.size() - k + size_t(width) - 1) / size_t(width));
        if (width == 1) {
          std::memcpy(in_buf.data() + filled, p.data() + k, take);
        } else {
          for (size_t j = 0; j < take; ++j) in_buf[filled + j] = p[k + j * size_t(width)];
        }
        filled += take;
        k += take * size_t(width);
        if (filled == in_buf.size()) compress(ZSTD_e_continue);
      }
    });
    if (given != raw_bytes) throw std::logic_error("ChunkFileWriter: a chunk's source gave the wrong number of bytes");
  }
  compress(ZSTD_e_end);
}

std::vector<uint8_t> ChunkFileWriter::finish() {
  std::memcpy(m_header + 12, &m_chunks, 4);
  size_t total = sizeof m_header + 4;
  for (const std::vector<uint8_t>& p : m_parts)
    total += p.size();
  std::vector<uint8_t> out(m_header, m_header + sizeof m_header);
  out.reserve(total);
  for (const std::vector<uint8_t>& p : m_parts)
    out.insert(out.end(), p.begin(), p.end());
  const uint32_t crc = checkpoint_crc(out.data(), out.size());
  const auto* c = reinterpret_cast<const uint8_t*>(&crc);
  out.insert(out.end(), c, c + 4);
  return out;
}

void ChunkFileWriter::finish_sink() {
  std::memcpy(m_header + 12, &m_chunks, 4);
  m_sink->write_at(12, m_header + 12, 4);
  // The CRC of header + body from the two parts' CRCs (zlib's crc32_combine).
  const uint32_t crc =
      uint32_t(crc32_combine(checkpoint_crc(m_header, sizeof m_header), m_body_crc, z_off_t(m_body_bytes)));
  m_sink->write(&crc, 4);
}

} // namespace redraw
