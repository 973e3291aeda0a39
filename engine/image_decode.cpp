// decode_image / load_image: format detection, the size and memory checks, and the stb_image path
// for BMP, TGA and PNM. PNG, JPEG and GIF have their own decoders (image_decoders.h).
#include "engine/path_problem.h"
#include "engine/errors.h"
#include "engine/image.h"
#include "engine/image_decoders.h"

#include <stb/stb_image.h>

#include <algorithm>
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
    throw ImageError(name + ": decoding the " + std::to_string(w) + "x" + std::to_string(h) + " " + what + " needs " +
                     std::to_string((need + (1 << 20) - 1) >> 20) + " MiB, over the image memory budget of " +
                     std::to_string(limits.max_bytes >> 20) + " MiB (--max-image-memory raises it)");
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

Image decode_with_stb(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits) {
  int w = 0, h = 0, comp = 0;
  if (!stbi_info_from_memory(data, int(size), &w, &h, &comp)) {
    const char* why = stbi_failure_reason();
    throw ImageError(name + ": not a readable PNG, JPEG, BMP, TGA or GIF image (" + (why ? why : "unknown format") +
                     ")");
  }
  if (comp < 1 || comp > 4) throw ImageError(name + ": unsupported channel count " + std::to_string(comp));
  const bool wide = stbi_is_16_bit_from_memory(data, int(size)) != 0; // 16-bit PNM
  const char* format = "";
  if (const uint64_t most = max_pixels_for_file(data, size, format); most > 0 && uint64_t(w) * uint64_t(h) > most)
    throw ImageError(name + ": the header claims " + std::to_string(w) + "x" + std::to_string(h) +
                     " pixels, more than a " + std::to_string(size) + "-byte " + format +
                     " file can hold (truncated or corrupt)");
  detail::check_decode_size(name, uint64_t(std::max(w, 0)), uint64_t(std::max(h, 0)), comp, wide ? 2 : 1, limits);
  Image img;
  int dw = 0, dh = 0, dc = 0;
  StbByteSource source(data, size);
  const std::unique_ptr<void, void (*)(void*)> px(
      wide ? static_cast<void*>(stbi_load_16_from_callbacks(StbByteSource::callbacks(), &source, &dw, &dh, &dc, 0))
           : static_cast<void*>(stbi_load_from_callbacks(StbByteSource::callbacks(), &source, &dw, &dh, &dc, 0)),
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

} // namespace

Image decode_image(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits) {
  if (size == 0) throw ImageError(name + ": the file is empty");
  if (size > size_t(std::numeric_limits<int>::max())) throw ImageError(name + ": the file is too large to decode");
  static constexpr std::string_view k_png_magic("\x89PNG\r\n\x1a\n", 8);
  if (starts_with(data, size, k_png_magic)) return detail::decode_png(data, size, name, limits);
  if (starts_with(data, size, std::string_view("\xff\xd8\xff", 3)))
    return detail::decode_jpeg(data, size, name, limits);
  if (starts_with(data, size, "GIF87a") || starts_with(data, size, "GIF89a"))
    return detail::decode_gif(data, size, name, limits);
  if (is_stb_format(data, size)) return decode_with_stb(data, size, name, limits);
  throw ImageError(name + ": not a readable PNG, JPEG, BMP, TGA or GIF image (unknown format)");
}

Image load_image(const std::filesystem::path& file, const DecodeLimits& limits) {
  std::error_code ec;
  const auto status = std::filesystem::status(file, ec);
  if (ec || !std::filesystem::exists(status)) {
    const std::string why = path_problem(file);
    throw ImageError(file.string() + ": " + (why.empty() ? std::string("no such file") : why));
  }
  if (std::filesystem::is_directory(status)) throw ImageError(file.string() + ": is a directory, not an image");
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) throw ImageError(file.string() + ": cannot read (" + ec.message() + ")");
  if (size > k_max_image_file_bytes)
    throw ImageError(file.string() + ": the file is " + std::to_string(size >> 20) + " MiB, over the 2 GiB limit");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ImageError(file.string() + ": cannot open for reading");
  std::vector<uint8_t> bytes(size);
  in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(size));
  if (!in) throw ImageError(file.string() + ": read error");
  return decode_image(bytes.data(), bytes.size(), file.string(), limits);
}

} // namespace redraw
