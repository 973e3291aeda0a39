// OpenEXR decoding with the OpenEXR library, from memory (libvips' EXR loader reads only files and
// is one of its untrusted ones, so it stays blocked). The first part's RGBA (luminance files come
// out grey), scene-linear, read through OpenEXR's RGBA interface in half precision (11 bits, ample
// for a training target): the sRGB curve is applied and values are clamped to [0, 1].
#include "engine/images/decode_support.h"
#include "engine/errors.h"
#include "engine/images/image_decoders.h"

#include <Iex.h>
#include <ImfArray.h>
#include <ImfHeader.h>
#include <ImfIO.h>
#include <ImfRgbaFile.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <mutex>
#include <string_view>
#include <utility>

namespace redraw::detail {

namespace {

/// The file held in memory, as OpenEXR's input stream; reading past its end throws.
class MemoryStream final : public Imf::IStream {
public:
  MemoryStream(const uint8_t* data, size_t size) : Imf::IStream("memory"), m_data(data), m_size(size) {}
  bool isMemoryMapped() const override { return true; }
  bool read(char c[], int n) override {
    std::memcpy(c, take(n), size_t(n));
    return m_pos < m_size;
  }
  char* readMemoryMapped(int n) override { return const_cast<char*>(reinterpret_cast<const char*>(take(n))); }
  uint64_t tellg() override { return m_pos; }
  void seekg(uint64_t pos) override { m_pos = pos; }

private:
  const uint8_t* take(int n) {
    if (n < 0 || m_pos > m_size || uint64_t(n) > m_size - m_pos)
      throw Iex::InputExc("the file ends before the image does");
    const uint8_t* p = m_data + m_pos;
    m_pos += uint64_t(n);
    return p;
  }
  const uint8_t* m_data;
  uint64_t m_size;
  uint64_t m_pos = 0;
};

/// OpenEXR's own header limits, so a hostile header is refused before its line buffers are sized.
void limit_exr_headers() {
  static std::once_flag once;
  std::call_once(once, [] {
    Imf::Header::setMaxImageSize(k_max_image_side, k_max_image_side);
    Imf::Header::setMaxTileSize(4096, 4096);
  });
}

void fill_exr_info(const Imf::RgbaInputFile& file, ImageInfo& info) {
  const Imath::Box2i dw = file.dataWindow();
  info.format = "OpenEXR";
  info.width = dw.max.x - dw.min.x + 1;
  info.height = dw.max.y - dw.min.y + 1;
  const Imf::RgbaChannels ch = file.channels();
  info.channels = (ch & Imf::WRITE_Y) && !(ch & Imf::WRITE_RGB) ? 1 : 3;
  if (ch & Imf::WRITE_A) info.channels += 1;
  info.bits = 32;
  info.floats = true;
  info.colour = "scene-linear (HDR)";
}

/// Walks the header's attributes (name, type, 4-byte size, value) before OpenEXR does: OpenEXR 3.1
/// allocates an unknown attribute's claimed size before reading it, so a 100-byte file could make
/// it allocate and clear gigabytes. ImageError when a size runs past the end of the file.
void check_exr_header(const uint8_t* data, size_t size, const std::string& name) {
  const auto bad = [&](const char* what) {
    throw ImageError(name + ": corrupt or truncated image: the OpenEXR header is damaged (" + what + ")");
  };
  if (size < 8) bad("too short");
  const bool multipart = (data[5] & 0x10) != 0; // version field, bit 12
  size_t pos = 8;
  // OpenEXR reads a value of a known fixed-size type by its type, whatever size the file gives: a
  // different size would leave this walk and OpenEXR's at different places.
  static const std::pair<const char*, uint32_t> k_fixed[] = {
      {"box2i", 16},      {"box2f", 16},    {"int", 4},      {"float", 4},          {"double", 8},
      {"v2i", 8},         {"v2f", 8},       {"v2d", 16},     {"v3i", 12},           {"v3f", 12},
      {"v3d", 24},        {"m33f", 36},     {"m33d", 72},    {"m44f", 64},          {"m44d", 128},
      {"compression", 1}, {"lineOrder", 1}, {"envmap", 1},   {"deepImageState", 1}, {"chromaticities", 32},
      {"timecode", 8},    {"keycode", 28},  {"rational", 8}, {"tiledesc", 9}};
  const auto text = [&]() { // a nul-terminated name; returns its length
    size_t n = 0;
    while (pos + n < size && data[pos + n] != 0) {
      if (++n > 255) bad("a name longer than 255 bytes");
    }
    if (pos + n >= size) bad("the file ends inside the header");
    const size_t len = n;
    pos += n + 1;
    return len;
  };
  for (int headers = 0; headers < 1024; ++headers) {
    for (int attributes = 0;; ++attributes) {
      if (attributes > 4096) bad("too many attributes");
      if (text() == 0) break; // the empty name ends a header
      const size_t type_at = pos;
      const size_t type_len = text(); // the type
      if (pos + 4 > size) bad("the file ends inside the header");
      const uint32_t n = uint32_t(data[pos]) | (uint32_t(data[pos + 1]) << 8) | (uint32_t(data[pos + 2]) << 16) |
                         (uint32_t(data[pos + 3]) << 24);
      pos += 4;
      const std::string_view type(reinterpret_cast<const char*>(data + type_at), type_len);
      for (const auto& [known, bytes] : k_fixed)
        if (type == known && n != bytes) bad("an attribute of the wrong size for its type");
      if (n > size - pos) bad("an attribute larger than the file");
      if (type == "chlist") { // read as OpenEXR reads it: records up to an empty name, whatever the size
        const size_t end = pos + n;
        while (text() != 0) {
          if (pos + 16 > size) bad("the file ends inside the channel list");
          pos += 16; // pixel type, linear flag, reserved, x and y sampling
        }
        if (pos != end) bad("a channel list of the wrong size");
        continue;
      }
      if (type == "preview") { // width and height, then width * height RGBA bytes
        if (n < 8) bad("a preview of the wrong size");
        const uint64_t pw = uint32_t(data[pos]) | (uint32_t(data[pos + 1]) << 8) | (uint32_t(data[pos + 2]) << 16) |
                            (uint32_t(data[pos + 3]) << 24);
        const uint64_t ph = uint32_t(data[pos + 4]) | (uint32_t(data[pos + 5]) << 8) | (uint32_t(data[pos + 6]) << 16) |
                            (uint32_t(data[pos + 7]) << 24);
        if (pw * ph * 4 + 8 != n) bad("a preview of the wrong size");
      }
      pos += n;
    }
    if (!multipart || (pos < size && data[pos] == 0)) return; // a single part, or the empty header after the last
  }
  bad("too many parts");
}

[[noreturn]] void rethrow_as_image_error(const std::string& name) {
  try {
    throw;
  } catch (const ImageError&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw ImageError(name + ": not enough memory to decode this OpenEXR image");
  } catch (const std::exception& e) {
    const std::string why = e.what();
    if (why.find("ends before") != std::string::npos || why.find("nexpected end") != std::string::npos)
      throw ImageError(name + ": corrupt or truncated image: the file ends before the image does");
    throw ImageError(name + ": corrupt or truncated image: the OpenEXR is damaged (" + why.substr(0, 200) + ")");
  }
}

} // namespace

bool is_exr(const uint8_t* data, size_t size) {
  return size >= 4 && data[0] == 0x76 && data[1] == 0x2f && data[2] == 0x31 && data[3] == 0x01;
}

namespace {

/// Opens the OpenEXR in memory (its header checked against the limits first), fills info and
/// hands the file to read(); whatever fails becomes an ImageError that names the file.
template <class Read>
void with_exr_file(const uint8_t* data, size_t size, const std::string& name, ImageInfo& info, Read&& read) {
  try {
    limit_exr_headers();
    check_exr_header(data, size, name);
    MemoryStream stream(data, size);
    Imf::RgbaInputFile file(stream, 1);
    fill_exr_info(file, info);
    read(file);
  } catch (...) {
    rethrow_as_image_error(name);
  }
}

} // namespace

ImageInfo probe_exr(const uint8_t* data, size_t size, const std::string& name) {
  ImageInfo info;
  with_exr_file(data, size, name, info, [](Imf::RgbaInputFile&) {});
  return info;
}

Image decode_exr(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits,
                 ImageInfo& info) {
  Image img;
  with_exr_file(data, size, name, info, [&](Imf::RgbaInputFile& file) {
    const Imath::Box2i dw = file.dataWindow();
    const int64_t w = int64_t(dw.max.x) - dw.min.x + 1, h = int64_t(dw.max.y) - dw.min.y + 1;
    // OpenEXR's own RGBA (4 halves per pixel), then our floats.
    check_decode_size(name, uint64_t(std::max<int64_t>(w, 0)), uint64_t(std::max<int64_t>(h, 0)), 4, 2, limits);
    Imf::Array2D<Imf::Rgba> px(h, w);
    // OpenEXR addresses pixel (x, y) as base + x + y * w, so base lies before the array when the
    // data window does not start at the origin (far before it for a crafted window). Computed in
    // integers: a pointer that far out of its array is undefined behaviour in C++.
    const uintptr_t origin = reinterpret_cast<uintptr_t>(&px[0][0]);
    const uintptr_t offset =
        (uintptr_t(int64_t(dw.min.x)) + uintptr_t(int64_t(dw.min.y)) * uintptr_t(w)) * sizeof(Imf::Rgba);
    file.setFrameBuffer(reinterpret_cast<Imf::Rgba*>(origin - offset), 1, size_t(w));
    file.readPixels(dw.min.y, dw.max.y);
    const int c = info.channels;
    img.width = int32_t(w);
    img.height = int32_t(h);
    img.channels = c;
    img.pixels.resize(size_t(w) * size_t(h) * size_t(c));
    bool clamped = false;
    const auto put = [&](float v) {
      if (!std::isfinite(v)) v = 0.0f;
      if (v > 1.0f || v < 0.0f) clamped = true;
      return v;
    };
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x) {
        const Imf::Rgba& p = px[y][x];
        float* o = img.pixels.data() + (size_t(y) * size_t(w) + size_t(x)) * size_t(c);
        if (c <= 2) {
          o[0] = linear_to_srgb(put(float(p.r)));
        } else {
          o[0] = linear_to_srgb(put(float(p.r)));
          o[1] = linear_to_srgb(put(float(p.g)));
          o[2] = linear_to_srgb(put(float(p.b)));
        }
        if (c == 2 || c == 4) o[c - 1] = std::clamp(put(float(p.a)), 0.0f, 1.0f);
      }
    info.notes.push_back(clamped ? "HDR: the sRGB curve applied, values outside [0, 1] clamped"
                                 : "HDR: the sRGB curve applied, nothing clamped");
  });
  return img;
}

} // namespace redraw::detail
