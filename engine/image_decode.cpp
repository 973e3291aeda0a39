// decode_image / load_image: format detection, the size and memory checks, a PNG's chunk CRCs, and
// the stb_image path for BMP, TGA and PNM. The other formats have their own decoders
// (image_decoders.h).
#include "engine/path_problem.h"
#include "engine/errors.h"
#include "engine/image.h"
#include "engine/image_decoders.h"

#include <stb/stb_image.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <string_view>

namespace redraw {

namespace detail {

void check_decode_size(const std::string& name, uint64_t w, uint64_t h, int channels, int sample_bytes,
                       const DecodeLimits& limits, const char* what) {
  if (w < 1 || h < 1)
    throw ImageError(name + ": the " + what + " is empty (" + std::to_string(w) + "x" + std::to_string(h) + ")");
  if (w > uint64_t(k_max_image_side) || h > uint64_t(k_max_image_side) || w * h > uint64_t(k_max_image_pixels))
    throw ImageError(name + ": the header claims " + std::to_string(w) + "x" + std::to_string(h) + " pixels for the " +
                     what + ", over the limit of " + std::to_string(k_max_image_side) + " per side and " +
                     std::to_string(k_max_image_pixels) + " pixels in all");
  const uint64_t need = w * h * uint64_t(channels) * uint64_t(sample_bytes + int(sizeof(float)));
  if (need > limits.max_bytes)
    throw ImageBudgetError(name + ": decoding the " + std::to_string(w) + "x" + std::to_string(h) + " " + what +
                               " needs " + std::to_string((need + (1 << 20) - 1) >> 20) +
                               " MiB, over the image memory budget of " + std::to_string(limits.max_bytes >> 20) +
                               " MiB (--max-image-memory raises it; in the app, Machine > Image memory)",
                           need, limits.max_bytes);
}

float linear_to_srgb(float v) {
  if (!(v > 0.0f)) return 0.0f;
  if (v >= 1.0f) return 1.0f; // exactly: 1.055 - 0.055 rounds below 1 in float
  return v <= 0.0031308f ? 12.92f * v : 1.055f * std::pow(v, 1.0f / 2.4f) - 0.055f;
}

OrientationWalk orientation_walk(int32_t o, int32_t w, int32_t h) {
  const int64_t W = w, H = h, last_row = (H - 1) * W;
  OrientationWalk k;
  k.out_w = o >= 5 ? h : w;
  k.out_h = o >= 5 ? w : h;
  switch (o) {
  case 2: k = {W - 1, -1, W, k.out_w, k.out_h}; break;                 // mirrored left-right
  case 3: k = {last_row + W - 1, -1, -W, k.out_w, k.out_h}; break;     // turned 180
  case 4: k = {last_row, 1, -W, k.out_w, k.out_h}; break;              // mirrored top-bottom
  case 5: k = {0, W, 1, k.out_w, k.out_h}; break;                      // transposed
  case 6: k = {last_row, -W, 1, k.out_w, k.out_h}; break;              // turned 90 clockwise to show
  case 7: k = {last_row + W - 1, -W, -1, k.out_w, k.out_h}; break;     // transversed
  case 8: k = {W - 1, W, -1, k.out_w, k.out_h}; break;                 // turned 90 anticlockwise to show
  default: k = {0, 1, W, k.out_w, k.out_h}; break;
  }
  return k;
}

} // namespace detail

namespace {

/// stb_image's terse failure reason in words a user can act on, keeping the decoder's own word.
std::string decoder_failure_text(const char* why) {
  const std::string w = why ? why : "";
  const char* plain = nullptr;
  if (w == "outofdata")
    plain = "the file ends before the image does";
  else if (w == "bad huffman code" || w == "bad codelengths" || w == "bad distance" || w == "bad zlib header" ||
           w == "bad compression" || w == "no preset dict" || w == "read past buffer" || w == "output buffer limit")
    plain = "the compressed pixel data is damaged";
  else if (w == "bad png sig" || w == "first not IHDR" || w == "bad IHDR len" || w == "no IDAT" || w == "multiple IHDR")
    plain = "the PNG structure is damaged";
  else if (w == "outofmem")
    plain = "not enough memory to decode it";
  if (!plain) return "the decoder stopped (" + (w.empty() ? std::string("no reason given") : w) + ")";
  return std::string(plain) + " (" + w + ")";
}
/// Files larger than this are refused before reading (a 65536^2 RGBA PNG compresses far below it).
constexpr std::uintmax_t k_max_image_file_bytes = std::uintmax_t(2) << 30;

/// stb_image's read callbacks over a file held in memory. stb fills whatever it cannot read with
/// zeros and still reports success, so this source records when the decoder wanted bytes past
/// the end of the file: then the file is truncated.
class StbByteSource {
public:
  StbByteSource(const uint8_t* data, size_t size) : m_data(data), m_size(size) {}
  StbByteSource(const StbByteSource&) = delete;
  StbByteSource& operator=(const StbByteSource&) = delete;

  /// Callbacks for one stbi_*_from_callbacks call; `this` is their user pointer.
  static const stbi_io_callbacks* callbacks() {
    static constexpr stbi_io_callbacks k_callbacks = {&read, &skip, &eof};
    return &k_callbacks;
  }
  bool read_past_end() const { return m_past_end; }

private:
  static int read(void* user, char* out, int n) {
    auto* self = static_cast<StbByteSource*>(user);
    if (!self->m_read_ahead) self->m_read_ahead = out; // stb's first read fills its own read-ahead buffer
    const size_t left = self->m_pos < self->m_size ? self->m_size - self->m_pos : 0;
    const size_t want = size_t(std::max(n, 0));
    const size_t got = std::min(left, want);
    // Refilling the read-ahead buffer asks for a whole buffer, and a short answer is normal until
    // nothing is left; stb refills only when it needs a byte. Any other read (into the decoder's
    // own memory) needs every byte it asks for.
    if (want > 0 && (left == 0 || (out != self->m_read_ahead && got < want))) self->m_past_end = true;
    if (got) std::memcpy(out, self->m_data + self->m_pos, got);
    self->m_pos += got;
    return int(got);
  }
  static void skip(void* user, int n) {
    auto* self = static_cast<StbByteSource*>(user);
    if (n >= 0)
      self->m_pos += size_t(n); // past the end is noticed by the next read
    else
      self->m_pos -= std::min(self->m_pos, size_t(-int64_t(n)));
  }
  static int eof(void* user) {
    const auto* self = static_cast<StbByteSource*>(user);
    return self->m_pos >= self->m_size ? 1 : 0;
  }

  const uint8_t* m_data;
  size_t m_size;
  size_t m_pos = 0;
  const char* m_read_ahead = nullptr;
  bool m_past_end = false;
};

bool starts_with(const uint8_t* data, size_t size, std::string_view magic) {
  return size >= magic.size() &&
         std::equal(magic.begin(), magic.end(), data, [](char a, uint8_t b) { return uint8_t(a) == b; });
}

/// The most pixels a file of `size` bytes can hold in the formats stb_image decodes without
/// compression or with run-length coding, where a short file is otherwise read as black; 0 when
/// there is no such bound (PNG, JPEG and GIF are compressed, and stb refuses them when truncated).
/// `format` gets the format's name for the message.
uint64_t max_pixels_for_file(const uint8_t* data, size_t size, const char*& format) {
  const uint64_t bytes = size;
  if (starts_with(data, size, "BM")) {
    // stb reads only uncompressed and bit-field BMPs (it refuses RLE): at least 1 bit per pixel.
    format = "BMP";
    return 8 * bytes;
  }
  if (starts_with(data, size, "P5") || starts_with(data, size, "P6")) {
    // binary PGM / PPM: at least one byte per sample, and so per pixel.
    format = "PNM";
    return bytes;
  }
  // TGA is the one format stb reads without a magic number. Every other one's magic has a second
  // byte above 1, where a TGA keeps its colour-map type (0 or 1).
  if (size < 18 || data[1] > 1) return 0;
  const uint8_t type = data[2];
  format = "TGA";
  // raw colour-mapped, true-colour and grey: at least 8 bits per pixel.
  if (type == 1 || type == 2 || type == 3) return bytes;
  // RLE: a packet is a header byte and at least one byte of pixel, and covers at most 128 pixels.
  if (type == 9 || type == 10 || type == 11) return 64 * bytes;
  return 0;
}

/// The formats that go to stb_image: BMP, binary PNM and TGA, recognised without stb. stb also
/// reads PSD, HDR, PIC and text PNM, which Redraw does not offer, so they are never handed to it.
bool is_stb_format(const uint8_t* data, size_t size) {
  if (starts_with(data, size, "BM")) return true;
  if (starts_with(data, size, "P5") || starts_with(data, size, "P6")) return true;
  // TGA has no magic: a colour-map type of 0 or 1 and a known image type.
  if (size < 18 || data[1] > 1) return false;
  const uint8_t type = data[2];
  return type == 1 || type == 2 || type == 3 || type == 9 || type == 10 || type == 11;
}

const char* stb_format(const uint8_t* data, size_t size) {
  if (starts_with(data, size, "BM")) return "BMP";
  if (starts_with(data, size, "P5") || starts_with(data, size, "P6")) return "PNM";
  return "TGA";
}

/// A binary PNM's header (P5/P6: width, height and maximum value, with whitespace and # comments
/// between) read the way stb_image reads it, refused when a number is out of range before stb
/// parses it: stb adds digits into an int without a bound, so a long digit run overflowed (UB,
/// found by fuzz_image once stb was built with the sanitizers).
void check_pnm_header(const uint8_t* data, size_t size, const std::string& name) {
  if (!(starts_with(data, size, "P5") || starts_with(data, size, "P6"))) return;
  size_t i = 2;
  const auto skip_space_and_comments = [&] {
    for (;;) {
      while (i < size && std::isspace(data[i])) ++i;
      if (i >= size || data[i] != '#') return;
      while (i < size && data[i] != '\n' && data[i] != '\r') ++i;
    }
  };
  const char* fields[] = {"width", "height", "maximum value"};
  const uint64_t limits[] = {uint64_t(k_max_image_side), uint64_t(k_max_image_side), 65535};
  for (int f = 0; f < 3; ++f) {
    skip_space_and_comments();
    uint64_t v = 0;
    for (; i < size && std::isdigit(data[i]); ++i) {
      v = v * 10 + uint64_t(data[i] - '0');
      if (v > limits[f])
        throw ImageError(name + ": the PNM header's " + fields[f] + " is over " + std::to_string(limits[f]));
    }
  }
}

[[noreturn]] void unknown_format(const std::string& name) {
  throw ImageError(name + ": not a readable image (unknown format; Redraw reads PNG, JPEG, WebP, TIFF, HEIC, AVIF, "
                          "OpenEXR, GIF, BMP, TGA and PNM)");
}

/// stb's refusal of a file it could not read: a format it does not know (an icon, say) gets the
/// list of formats Redraw reads, anything else stb's own reason.
[[noreturn]] void stb_refused(const std::string& name) {
  const char* why = stbi_failure_reason();
  if (!why || std::string_view(why) == "unknown image type") unknown_format(name);
  throw ImageError(name + ": not a readable image (" + why + ")");
}

/// f() (stb_image calls) with an internal check of stb that fails (stb_internal_check_failed)
/// reported as a corrupt file of that name. (What stb allocated before the check is not freed.)
template <class F> auto stb_checked(const std::string& name, F f) {
  try {
    return f();
  } catch (const ImageError& e) {
    throw ImageError(name + ": corrupt image (" + e.what() + ")");
  }
}

ImageInfo probe_stb(const uint8_t* data, size_t size, const std::string& name) {
  check_pnm_header(data, size, name);
  int w = 0, h = 0, comp = 0;
  if (!stb_checked(name, [&] { return stbi_info_from_memory(data, int(size), &w, &h, &comp); })) {
    stb_refused(name);
  }
  ImageInfo info;
  info.format = stb_format(data, size);
  info.width = w;
  info.height = h;
  info.channels = comp;
  info.bits = stb_checked(name, [&] { return stbi_is_16_bit_from_memory(data, int(size)); }) ? 16 : 8;
  info.colour = "sRGB (no profile)";
  return info;
}

Image decode_with_stb(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits) {
  check_pnm_header(data, size, name);
  int w = 0, h = 0, comp = 0;
  if (!stb_checked(name, [&] { return stbi_info_from_memory(data, int(size), &w, &h, &comp); })) {
    stb_refused(name);
  }
  if (comp < 1 || comp > 4) throw ImageError(name + ": unsupported channel count " + std::to_string(comp));
  const bool wide = stb_checked(name, [&] { return stbi_is_16_bit_from_memory(data, int(size)) != 0; }); // 16-bit PNM
  const char* format = "";
  if (const uint64_t most = max_pixels_for_file(data, size, format); most > 0 && uint64_t(w) * uint64_t(h) > most)
    throw ImageError(name + ": the header claims " + std::to_string(w) + "x" + std::to_string(h) +
                     " pixels, more than a " + std::to_string(size) + "-byte " + format +
                     " file can hold (truncated or corrupt)");
  detail::check_decode_size(name, uint64_t(std::max(w, 0)), uint64_t(std::max(h, 0)), comp, wide ? 2 : 1, limits);
  Image img;
  int dw = 0, dh = 0, dc = 0;
  StbByteSource source(data, size);
  const std::unique_ptr<void, void (*)(void*)> px(stb_checked(name, [&] {
    return wide ? static_cast<void*>(stbi_load_16_from_callbacks(StbByteSource::callbacks(), &source, &dw, &dh, &dc, 0))
                : static_cast<void*>(stbi_load_from_callbacks(StbByteSource::callbacks(), &source, &dw, &dh, &dc, 0));
  }),
                                                   &stbi_image_free);
  if (!px) throw ImageError(name + ": corrupt or truncated image: " + decoder_failure_text(stbi_failure_reason()));
  if (source.read_past_end()) throw ImageError(name + ": truncated image (the file ends before its pixel data does)");
  if (dw != w || dh != h || dc != comp) throw ImageError(name + ": corrupt image (its size changed while decoding)");
  img.pixels.resize(size_t(dw) * dh * dc);
  if (wide) {
    const auto* p = static_cast<const stbi_us*>(px.get());
    for (size_t i = 0; i < img.pixels.size(); ++i)
      img.pixels[i] = float(p[i]) / 65535.0f;
  } else {
    const auto* p = static_cast<const stbi_uc*>(px.get());
    for (size_t i = 0; i < img.pixels.size(); ++i)
      img.pixels[i] = float(p[i]) / 255.0f;
  }
  img.width = dw;
  img.height = dh;
  img.channels = dc;
  return img;
}

constexpr std::string_view k_png_magic("\x89PNG\r\n\x1a\n", 8);

/// The chunks of a PNG whose CRC does not match, with the CRC put right in `fixed` (a copy); 0
/// when every chunk is sound (then `fixed` is left empty). Browsers ignore chunk CRCs; libpng
/// refuses a bad one in a critical chunk. ImageError when the chunks stop before IEND: libpng
/// may have every row by then, but the file is cut short, and a cut file is refused.
int fix_png_crcs(const uint8_t* data, size_t size, std::vector<uint8_t>& fixed, const std::string& name) {
  int bad = 0;
  size_t pos = 8;
  for (;;) {
    const uint32_t len = pos + 12 <= size ? (uint32_t(data[pos]) << 24) | (uint32_t(data[pos + 1]) << 16) |
                                                (uint32_t(data[pos + 2]) << 8) | data[pos + 3]
                                          : 0;
    if (pos + 12 > size || len > size - pos - 12)
      throw ImageError(name + ": corrupt or truncated image: the file ends before the image does");
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
  detail::check_decode_size(name, be32(16), be32(20), channels, depth == 16 ? 2 : 1, limits);
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

uint16_t le16(const uint8_t* p) { return uint16_t(p[0] | (p[1] << 8)); }

bool is_gif(const uint8_t* data, size_t size) { return starts_with(data, size, "GIF87a") || starts_with(data, size, "GIF89a"); }

void check_file_size(size_t size, const std::string& name) {
  if (size == 0) throw ImageError(name + ": the file is empty");
  if (size > size_t(std::numeric_limits<int>::max())) throw ImageError(name + ": the file is too large to decode");
}

} // namespace

Image decode_image(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits,
                   const DecodeOptions& options, ImageInfo* info_out) {
  check_file_size(size, name);
  ImageInfo info;
  Image img;
  if (is_gif(data, size)) {
    int32_t frames = 1;
    img = detail::decode_gif(data, size, name, limits, frames);
    info = {"GIF", img.width, img.height, 1, img.channels, 8, "sRGB (palette)", frames, 1, {}};
    if (frames > 1) info.notes.push_back("first of " + std::to_string(frames) + " frames");
  } else if (detail::is_exr(data, size)) {
    img = detail::decode_exr(data, size, name, limits, info);
  } else if (starts_with(data, size, k_png_magic) || detail::vips_recognises(data, size)) {
    const bool png = starts_with(data, size, k_png_magic);
    if (png) check_png_header(data, size, name, limits);
    if (starts_with(data, size, std::string_view("\xff\xd8\xff", 3))) check_jpeg_scans(data, size, name);
    std::vector<uint8_t> fixed;
    const int bad = png ? fix_png_crcs(data, size, fixed, name) : 0;
    img = bad ? detail::decode_vips(fixed.data(), fixed.size(), name, limits, options, info)
              : detail::decode_vips(data, size, name, limits, options, info);
    if (bad) info.notes.push_back(std::to_string(bad) + " PNG chunk(s) with a wrong CRC read anyway, as browsers do");
  } else if (is_stb_format(data, size)) {
    img = decode_with_stb(data, size, name, limits);
    info = probe_stb(data, size, name);
  } else {
    unknown_format(name);
  }
  if (info_out) *info_out = std::move(info);
  return img;
}

ImageInfo probe_image(const uint8_t* data, size_t size, const std::string& name) {
  check_file_size(size, name);
  if (is_gif(data, size)) {
    if (size < 13) throw ImageError(name + ": corrupt or truncated image: the GIF header is cut short");
    ImageInfo info{"GIF", le16(data + 6), le16(data + 8), 1, 3, 8, "sRGB (palette)", 1, 1, {}};
    return info;
  }
  if (detail::is_exr(data, size)) return detail::probe_exr(data, size, name);
  if (starts_with(data, size, k_png_magic) || detail::vips_recognises(data, size)) {
    std::vector<uint8_t> fixed;
    if (starts_with(data, size, k_png_magic))
      check_png_header(data, size, name, DecodeLimits{std::numeric_limits<uint64_t>::max()}); // sides and pixels
    if (starts_with(data, size, k_png_magic) && fix_png_crcs(data, size, fixed, name))
      return detail::probe_vips(fixed.data(), fixed.size(), name);
    return detail::probe_vips(data, size, name);
  }
  if (is_stb_format(data, size)) return probe_stb(data, size, name);
  unknown_format(name);
}

const std::vector<std::string>& image_extensions() {
  static const std::vector<std::string> k = {".png", ".jpg",  ".jpeg", ".jpe", ".webp", ".tif", ".tiff", ".heic",
                                             ".heif", ".avif", ".exr", ".gif", ".bmp",  ".tga", ".pnm",  ".pgm",
                                             ".ppm"};
  return k;
}

const std::vector<std::string>& image_mime_types() {
  static const std::vector<std::string> k = {
      "image/png",  "image/jpeg", "image/webp", "image/tiff",    "image/heic", "image/heif",    "image/avif",
      "image/x-exr", "image/gif", "image/bmp",  "image/x-tga",   "image/x-portable-anymap", "image/x-portable-graymap",
      "image/x-portable-pixmap"};
  return k;
}

namespace {
std::vector<uint8_t> read_image_file(const std::filesystem::path& file) {
  std::vector<uint8_t> bytes;
  if (const std::string why = read_user_file(file, k_max_image_file_bytes, "an image", "2 GiB", bytes); !why.empty())
    throw ImageError(why);
  return bytes;
}
} // namespace

Image load_image(const std::filesystem::path& file, const DecodeLimits& limits, const DecodeOptions& options,
                 ImageInfo* info) {
  const std::vector<uint8_t> bytes = read_image_file(file);
  return decode_image(bytes.data(), bytes.size(), file.string(), limits, options, info);
}

ImageInfo probe_image_file(const std::filesystem::path& file) {
  const std::vector<uint8_t> bytes = read_image_file(file);
  return probe_image(bytes.data(), bytes.size(), file.string());
}

} // namespace redraw
