// BMP, TGA and binary PNM through stb_image (built in stb_image_build.cpp, its internal checks made
// errors). stb reads a short file as black, so the sizes a file can hold are checked first and
// reads past its end are caught (StbByteSource).
#include "engine/images/decode_support.h"
#include "engine/errors.h"
#include "engine/images/image_decoders.h"

#include <stb/stb_image.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <limits>
#include <memory>
#include <string_view>

namespace redraw::detail {

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

/// stb's refusal of a file it could not read: a format it does not know (an icon, say) gets the
/// list of formats Redraw reads, anything else stb's own reason.
[[noreturn]] void stb_refused(const std::string& name) {
  const char* why = stbi_failure_reason();
  if (!why || std::string_view(why) == "unknown image type") refuse_unknown_format(name);
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

/// The header as stb_image reads it: w x h and the channel count, with a top-down BMP's negative
/// height (rows stored from the top, which stb_image decodes the right way up) as its number of
/// rows. ImageError naming the file for anything stb refuses and for a size below 1.
void stb_header(const uint8_t* data, size_t size, const std::string& name, int& w, int& h, int& comp) {
  check_pnm_header(data, size, name);
  if (!stb_checked(name, [&] { return stbi_info_from_memory(data, int(size), &w, &h, &comp); })) stb_refused(name);
  if (h < 0 && starts_with(data, size, "BM")) {
    if (h == std::numeric_limits<int>::min())
      throw ImageError(name + ": corrupt image: the BMP header's height is out of range");
    h = -h;
  }
  check_header_sides(name, w, h);
}

} // namespace

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

ImageInfo probe_stb(const uint8_t* data, size_t size, const std::string& name) {
  int w = 0, h = 0, comp = 0;
  stb_header(data, size, name, w, h, comp);
  ImageInfo info;
  info.format = stb_format(data, size);
  info.width = w;
  info.height = h;
  info.channels = comp;
  info.bits = stb_checked(name, [&] { return stbi_is_16_bit_from_memory(data, int(size)); }) ? 16 : 8;
  info.colour = "sRGB (no profile)";
  return info;
}

Image decode_stb(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits) {
  int w = 0, h = 0, comp = 0;
  stb_header(data, size, name, w, h, comp);
  if (comp < 1 || comp > 4) throw ImageError(name + ": unsupported channel count " + std::to_string(comp));
  const bool wide = stb_checked(name, [&] { return stbi_is_16_bit_from_memory(data, int(size)) != 0; }); // 16-bit PNM
  const char* format = "";
  if (const uint64_t most = max_pixels_for_file(data, size, format); most > 0 && uint64_t(w) * uint64_t(h) > most)
    throw ImageError(name + ": the header claims " + std::to_string(w) + "x" + std::to_string(h) +
                     " pixels, more than a " + std::to_string(size) + "-byte " + format +
                     " file can hold (truncated or corrupt)");
  check_decode_size(name, uint64_t(std::max(w, 0)), uint64_t(std::max(h, 0)), comp, wide ? 2 : 1, limits);
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

} // namespace redraw::detail
