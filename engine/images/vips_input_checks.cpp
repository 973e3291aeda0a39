// What Redraw checks in a file's bytes before libvips reads them (image_decoders.h, VipsInput):
// a PNG's IHDR against the limits and its chunk CRCs, a JPEG's scan count, and whether a PNG or a
// WebP ends before its own structure says it does.
#include "engine/images/decode_support.h"
#include "engine/errors.h"
#include "engine/images/image_decoders.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <string_view>

namespace redraw::detail {

namespace {

constexpr std::string_view k_png_magic("\x89PNG\r\n\x1a\n", 8);

/// The chunks of a PNG whose CRC does not match, with the CRC put right in `fixed` (a copy); 0
/// when every chunk is sound (then `fixed` is left empty). Browsers ignore chunk CRCs; libpng
/// refuses a bad one in a critical chunk. When the chunks stop before IEND (the file ends early),
/// `cut` is set and the last chunk is cut to the bytes there are, with its length and CRC to
/// match: libpng reads IDAT data in 8 KiB pieces and would drop a partial piece whole, and the
/// rows there are are to be shown, as browsers show them.
int fix_png_crcs(const uint8_t* data, size_t size, std::vector<uint8_t>& fixed, bool& cut) {
  const auto be32 = [](uint8_t* p, uint32_t v) {
    for (int i = 0; i < 4; ++i)
      p[i] = uint8_t(v >> (24 - 8 * i));
  };
  int bad = 0;
  size_t pos = 8;
  for (;;) {
    const uint32_t len = pos + 12 <= size ? (uint32_t(data[pos]) << 24) | (uint32_t(data[pos + 1]) << 16) |
                                                (uint32_t(data[pos + 2]) << 8) | data[pos + 3]
                                          : 0;
    if (pos + 12 > size || len > size - pos - 12) {
      cut = true;
      if (fixed.empty()) fixed.assign(data, data + size);
      if (pos + 8 > size) { // not even the chunk's length and type: end with the chunk before
        fixed.resize(pos);
        return bad;
      }
      const uint32_t kept = uint32_t(std::min<uint64_t>(len, size - pos - 8));
      fixed.resize(pos + 8 + kept + 4);
      be32(fixed.data() + pos, kept);
      be32(fixed.data() + pos + 8 + kept, uint32_t(crc32(0, fixed.data() + pos + 4, uInt(kept + 4))));
      return bad;
    }
    const size_t crc_at = pos + 8 + len;
    const uLong crc = crc32(0, data + pos + 4, uInt(len + 4));
    const uint8_t want[4] = {uint8_t(crc >> 24), uint8_t(crc >> 16), uint8_t(crc >> 8), uint8_t(crc)};
    if (std::memcmp(data + crc_at, want, 4) != 0) {
      if (fixed.empty()) fixed.assign(data, data + size);
      std::memcpy(fixed.data() + crc_at, want, 4);
      ++bad;
    }
    if (std::memcmp(data + pos + 4, "IEND", 4) == 0) break;
    pos = crc_at + 4;
  }
  return bad;
}

/// A PNG's IHDR size against the limits before any library sees it, so an absurd header is refused
/// in words: the samples the decoder will hand over (its colour type's channels, a palette's as
/// RGBA, 1 or 2 bytes each), so a refusal states the whole need, which the app offers to allow.
void check_png_header(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits) {
  if (size < 26 || std::memcmp(data + 12, "IHDR", 4) != 0) return;
  const auto be32 = [&](size_t o) {
    return (uint32_t(data[o]) << 24) | (uint32_t(data[o + 1]) << 16) | (uint32_t(data[o + 2]) << 8) | data[o + 3];
  };
  const uint8_t depth = data[24], colour = data[25];
  const int channels = colour == 0 ? 1 : colour == 4 ? 2 : colour == 2 ? 3 : 4; // grey, grey+alpha, RGB; RGBA, palette
  check_decode_size(name, be32(16), be32(20), channels, depth == 16 ? 2 : 1, limits);
}

/// A progressive JPEG may hold thousands of tiny scans, each one a pass over the whole picture (a
/// known way to make a small file take minutes); real encoders write about ten. Counting the
/// start-of-scan markers (FF DA, which entropy-coded data cannot hold) bounds them.
constexpr int k_max_jpeg_scans = 500;

void check_jpeg_scans(const uint8_t* data, size_t size, const std::string& name) {
  int scans = 0;
  for (const uint8_t* p = data; (p = static_cast<const uint8_t*>(std::memchr(p, 0xff, size_t(data + size - p)))) &&
                                p + 1 < data + size;
       ++p)
    if (p[1] == 0xda && ++scans > k_max_jpeg_scans)
      throw ImageError(name + ": corrupt image: the JPEG has more than " + std::to_string(k_max_jpeg_scans) +
                       " scans");
}

/// Walks a JPEG's segments (each skipped by its length) and the entropy-coded data of its scans (an
/// FF there is followed by 00 or a restart marker): the scans that begin, and whether the frame is
/// progressive. Stops at the end marker or where the bytes end.
void count_jpeg_scans(const uint8_t* data, size_t size, VipsInput& in) {
  size_t at = 2;
  while (at + 1 < size) {
    if (data[at] != 0xff) { // entropy-coded data
      ++at;
      continue;
    }
    const uint8_t m = data[at + 1];
    if (m == 0xff) {
      ++at;
      continue;
    }
    if (m == 0x00 || m == 0x01 || m == 0xd8 || (m >= 0xd0 && m <= 0xd7)) {
      at += 2;
      continue;
    }
    if (m == 0xd9 || at + 4 > size) return;
    if (m == 0xc2 || m == 0xc6 || m == 0xca || m == 0xce) in.jpeg_progressive = true;
    if (m == 0xda) ++in.jpeg_scans;
    at += 2 + ((size_t(data[at + 2]) << 8) | data[at + 3]);
  }
}

/// A WebP's RIFF header gives the file's length: shorter on disk, it was cut.
bool webp_cut(const uint8_t* data, size_t size) {
  if (size < 12 || !starts_with(data, size, "RIFF") || std::memcmp(data + 8, "WEBP", 4) != 0) return false;
  const uint64_t riff = uint64_t(data[4]) | (uint64_t(data[5]) << 8) | (uint64_t(data[6]) << 16) |
                        (uint64_t(data[7]) << 24);
  return riff + 8 > size;
}

} // namespace

bool is_png(const uint8_t* data, size_t size) { return starts_with(data, size, k_png_magic); }

VipsInput check_vips_input(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits) {
  VipsInput in;
  in.original = data;
  in.original_size = size;
  if (is_png(data, size)) {
    check_png_header(data, size, name, limits);
    in.bad_crcs = fix_png_crcs(data, size, in.fixed, in.cut);
  } else if (starts_with(data, size, std::string_view("\xff\xd8\xff", 3))) {
    check_jpeg_scans(data, size, name);
    count_jpeg_scans(data, size, in);
  } else {
    in.cut = webp_cut(data, size);
  }
  return in;
}

} // namespace redraw::detail
