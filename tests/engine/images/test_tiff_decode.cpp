// TIFFs written byte by byte here (header, one directory before the pixels, strips or tiles,
// interleaved or in planes, either byte order): 16-bit integers read as value / 65535; 16-, 32-
// and 64-bit floats read alike (the 32-bit ones through libvips, the others through libtiff), RGB
// as linear light and grey as it is, clamped with a note; and cut or damaged files refused or
// shown in part, naming the file.
#include "test_support.h"

#include "engine/errors.h"
#include "engine/half_float.h"
#include "engine/images/image.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <utility>

using namespace redraw;

namespace {

struct TiffSpec {
  int w = 32, h = 24, samples = 3;
  int bits = 16;
  int format = 1; ///< SampleFormat: 1 unsigned integer, 3 IEEE float
  bool big_endian = false;
  bool planes = false;    ///< PlanarConfiguration 2: one plane per sample
  int rows_per_strip = 0; ///< 0: the whole picture in one strip
  int tile = 0;           ///< > 0: tiles of tile x tile instead of strips
  int photometric = -1;   ///< -1: RGB for 3 or more samples, else grey (min-is-black)
};

/// `v`'s low `n` bytes in the spec's byte order.
void put_bytes(const TiffSpec& s, std::vector<uint8_t>& out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i)
    out.push_back(uint8_t(v >> (8 * (s.big_endian ? n - 1 - i : i))));
}

/// One sample in the spec's format: an integer as it is, or a half, single or double float.
void put_sample(const TiffSpec& s, std::vector<uint8_t>& out, double v) {
  if (s.format == 1) {
    put_bytes(s, out, uint64_t(v), s.bits / 8);
  } else if (s.bits == 16) {
    put_bytes(s, out, float_to_half(float(v)), 2);
  } else if (s.bits == 32) {
    const float f = float(v);
    uint32_t u = 0;
    std::memcpy(&u, &f, 4);
    put_bytes(s, out, u, 4);
  } else {
    uint64_t u = 0;
    std::memcpy(&u, &v, 8);
    put_bytes(s, out, u, 8);
  }
}

/// The pixel blocks' width and height: a tile's, or a strip's (the whole width).
std::pair<int, int> tiff_block_size(const TiffSpec& s) {
  return {s.tile ? s.tile : s.w, s.tile ? s.tile : (s.rows_per_strip ? s.rows_per_strip : s.h)};
}

/// The blocks: strips of rows, or tiles (padded at the edges), per plane when in planes.
std::vector<std::vector<uint8_t>> tiff_blocks(const TiffSpec& s, const std::vector<double>& values) {
  const auto [bw, bh] = tiff_block_size(s);
  std::vector<std::vector<uint8_t>> blocks;
  for (int plane = 0; plane < (s.planes ? s.samples : 1); ++plane)
    for (int y0 = 0; y0 < s.h; y0 += bh)
      for (int x0 = 0; x0 < s.w; x0 += bw) {
        std::vector<uint8_t> b;
        const int rows = s.tile ? bh : std::min(bh, s.h - y0);
        for (int y = y0; y < y0 + rows; ++y)
          for (int x = x0; x < x0 + bw; ++x)
            for (int c = s.planes ? plane : 0; c < (s.planes ? plane + 1 : s.samples); ++c)
              put_sample(s, b, x < s.w && y < s.h ? values[(size_t(y) * s.w + x) * s.samples + c] : 0.0);
        blocks.push_back(std::move(b));
      }
  return blocks;
}

/// The TIFF's bytes for `values` (w x h x samples, interleaved; integers as they are, floats in
/// any range). The directory comes first, so a file cut in its pixels keeps it.
std::vector<uint8_t> tiff_bytes(const TiffSpec& s, const std::vector<double>& values) {
  const auto put = [&](std::vector<uint8_t>& out, uint64_t v, int n) { put_bytes(s, out, v, n); };
  const auto [bw, bh] = tiff_block_size(s);
  const std::vector<std::vector<uint8_t>> blocks = tiff_blocks(s, values);
  const int photometric = s.photometric >= 0 ? s.photometric : s.samples >= 3 ? 2 : 1;
  struct Entry {
    uint16_t tag, type;
    std::vector<uint32_t> values;
  };
  std::vector<Entry> entries = {{256, 4, {uint32_t(s.w)}},
                                {257, 4, {uint32_t(s.h)}},
                                {258, 3, std::vector<uint32_t>(size_t(s.samples), uint32_t(s.bits))},
                                {259, 3, {1}},
                                {262, 3, {uint32_t(photometric)}},
                                {277, 3, {uint32_t(s.samples)}},
                                {284, 3, {s.planes ? 2u : 1u}},
                                {339, 3, std::vector<uint32_t>(size_t(s.samples), uint32_t(s.format))}};
  std::vector<uint32_t> sizes;
  for (const auto& b : blocks)
    sizes.push_back(uint32_t(b.size()));
  std::vector<uint32_t> offsets(blocks.size()); // filled below
  if (s.tile) {
    entries.push_back({322, 4, {uint32_t(bw)}});
    entries.push_back({323, 4, {uint32_t(bh)}});
    entries.push_back({324, 4, offsets});
    entries.push_back({325, 4, sizes});
  } else {
    entries.push_back({273, 4, offsets});
    entries.push_back({278, 4, {uint32_t(bh)}});
    entries.push_back({279, 4, sizes});
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.tag < b.tag; });
  // Layout: header, directory, the values that do not fit in an entry, then the blocks.
  const size_t directory_end = 8 + 2 + entries.size() * 12 + 4;
  size_t extra = 0;
  for (const Entry& e : entries)
    if (e.values.size() * (e.type == 3 ? 2 : 4) > 4) extra += e.values.size() * (e.type == 3 ? 2 : 4);
  uint32_t at = uint32_t(directory_end + extra);
  for (size_t i = 0; i < blocks.size(); at += uint32_t(blocks[i].size()), ++i)
    offsets[i] = at;
  for (Entry& e : entries)
    if (e.tag == 273 || e.tag == 324) e.values = offsets;
  std::vector<uint8_t> out = s.big_endian ? std::vector<uint8_t>{'M', 'M'} : std::vector<uint8_t>{'I', 'I'};
  put(out, 42, 2);
  put(out, 8, 4);
  put(out, entries.size(), 2);
  std::vector<uint8_t> tail;
  for (const Entry& e : entries) {
    const int size = e.type == 3 ? 2 : 4;
    put(out, e.tag, 2);
    put(out, e.type, 2);
    put(out, e.values.size(), 4);
    std::vector<uint8_t> v;
    for (const uint32_t x : e.values)
      put(v, x, size);
    if (v.size() <= 4) {
      v.resize(4, 0);
      out.insert(out.end(), v.begin(), v.end());
    } else {
      put(out, directory_end + tail.size(), 4);
      tail.insert(tail.end(), v.begin(), v.end());
    }
  }
  put(out, 0, 4);
  out.insert(out.end(), tail.begin(), tail.end());
  for (const auto& b : blocks)
    out.insert(out.end(), b.begin(), b.end());
  return out;
}

/// w x h x samples values k / 1024 (exact in half, single and double precision), with a few out
/// of [0, 1] when `outside`.
std::vector<double> float_values(const TiffSpec& s, bool outside) {
  std::vector<double> v(size_t(s.w) * s.h * s.samples);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = double((i * 37) % 1025) / 1024.0;
  if (outside) {
    v[0] = 3.5;
    v[1] = -0.25;
  }
  return v;
}

double srgb(double linear) { // the sRGB curve in double, for the expected values
  linear = std::clamp(linear, 0.0, 1.0);
  return linear <= 0.0031308 ? 12.92 * linear : 1.055 * std::pow(linear, 1.0 / 2.4) - 0.055;
}

Image decode_tiff(const std::vector<uint8_t>& bytes, ImageInfo& info, const std::string& name = "t.tif") {
  return decode_image(bytes.data(), bytes.size(), name, {}, {}, &info);
}

std::string tiff_error(const std::vector<uint8_t>& bytes, const std::string& name) {
  try {
    ImageInfo info;
    decode_tiff(bytes, info, name);
  } catch (const ImageError& e) {
    return e.what();
  }
  return "";
}

bool has_note(const ImageInfo& info, const std::string& needle) {
  for (const std::string& n : info.notes)
    if (n.find(needle) != std::string::npos) return true;
  return false;
}

} // namespace

TEST_CASE("TIFF: 16-bit grey and RGB samples read as value / 65535, in either byte order and any layout") {
  for (const int samples : {1, 3})
    for (const bool big : {false, true})
      for (const int layout : {0, 1, 2}) { // one strip; a strip per 5 rows in planes; 16 x 16 tiles
        CAPTURE(samples);
        CAPTURE(big);
        CAPTURE(layout);
        TiffSpec s;
        s.samples = samples;
        s.big_endian = big;
        s.planes = layout == 1 && samples > 1;
        s.rows_per_strip = layout == 1 ? 5 : 0;
        s.tile = layout == 2 ? 16 : 0;
        std::vector<double> v(size_t(s.w) * s.h * s.samples);
        for (size_t i = 0; i < v.size(); ++i)
          v[i] = double((i * 2654435761u) % 65536);
        ImageInfo info;
        const Image img = decode_tiff(tiff_bytes(s, v), info);
        CHECK(info.format == "TIFF");
        CHECK(info.bits == 16);
        CHECK_FALSE(info.floats);
        REQUIRE(img.channels == samples);
        REQUIRE(img.pixels.size() == v.size());
        double worst = 0;
        for (size_t i = 0; i < v.size(); ++i)
          worst = std::max(worst, std::abs(double(img.pixels[i]) - v[i] / 65535.0));
        CHECK(worst < 1e-7);
      }
}

TEST_CASE("TIFF: 16- and 64-bit floats read as the same values in 32-bit floats do, RGB linear and grey as is") {
  for (const int samples : {1, 3, 4})
    for (const bool big : {false, true})
      for (const int layout : {0, 1, 2}) {
        CAPTURE(samples);
        CAPTURE(big);
        CAPTURE(layout);
        TiffSpec s;
        s.samples = samples;
        s.format = 3;
        s.big_endian = big;
        s.planes = layout == 1 && samples > 1;
        s.rows_per_strip = layout == 1 ? 5 : 0;
        s.tile = layout == 2 ? 16 : 0;
        const std::vector<double> v = float_values(s, true);
        s.bits = 32;
        ImageInfo info32;
        const Image f32 = decode_tiff(tiff_bytes(s, v), info32); // libvips' own float TIFF path
        for (const int bits : {16, 64}) {
          CAPTURE(bits);
          s.bits = bits;
          ImageInfo info;
          const Image img = decode_tiff(tiff_bytes(s, v), info);
          CHECK(info.format == "TIFF");
          CHECK(info.bits == bits);
          CHECK(info.floats);
          CHECK(info.colour == info32.colour);
          CHECK(has_note(info, "clamped"));
          CHECK(test::max_abs_diff(img, f32) < 1e-6);
          // And against the closed form: RGB through the sRGB curve, grey and alpha clamped.
          const int colour = samples >= 3 ? 3 : 0;
          double worst = 0;
          for (size_t i = 0; i < v.size(); ++i) {
            const int c = int(i % size_t(samples));
            const double want = c < colour ? srgb(v[i]) : std::clamp(v[i], 0.0, 1.0);
            worst = std::max(worst, std::abs(double(img.pixels[i]) - want));
          }
          CHECK(worst < 1e-5);
        }
      }
  // Within [0, 1], nothing is said to be clamped; the probe agrees with the decode.
  TiffSpec s;
  s.samples = 1;
  s.format = 3;
  s.bits = 64;
  const auto bytes = tiff_bytes(s, float_values(s, false));
  ImageInfo info;
  decode_tiff(bytes, info);
  CHECK(has_note(info, "none clamped"));
  const ImageInfo probed = probe_image(bytes.data(), bytes.size(), "t.tif");
  CHECK(probed.width == s.w);
  CHECK(probed.height == s.h);
  CHECK(probed.bits == 64);
  CHECK(probed.floats);
}

TEST_CASE("TIFF: a file cut before its directory, or with a damaged one, is refused naming the file") {
  TiffSpec s;
  s.format = 3;
  s.bits = 64;
  const auto bytes = tiff_bytes(s, float_values(s, false));
  // The directory behind the pixels, as most writers put it, and the file cut before it.
  std::vector<uint8_t> moved(bytes.begin(), bytes.begin() + 8);
  moved.insert(moved.end(), bytes.end() - 100, bytes.end());
  const uint32_t directory = uint32_t(bytes.size()) + 8;
  for (int i = 0; i < 4; ++i)
    moved[4 + size_t(i)] = uint8_t(directory >> (8 * i));
  const std::string cut = tiff_error(moved, "cut.tif");
  CHECK(cut == "cut.tif: corrupt or truncated image: the file ends before the image does (the TIFF's directory "
               "would start at byte " +
                   std::to_string(directory) + " of a 108-byte file)");
  std::vector<uint8_t> header_only(bytes.begin(), bytes.begin() + 6);
  CHECK(tiff_error(header_only, "six.tif").find("six.tif: corrupt or truncated image") == 0);
  // A directory whose entry count runs past the file.
  std::vector<uint8_t> damaged(bytes.begin(), bytes.begin() + 40);
  damaged[8] = 0xff;
  damaged[9] = 0x7f;
  const std::string e = tiff_error(damaged, "bad.tif");
  CHECK(e.find("bad.tif: corrupt or truncated image") == 0);
  CHECK_THROWS_AS(probe_image(moved.data(), moved.size(), "cut.tif"), ImageError);
}

TEST_CASE("TIFF: a float TIFF cut in its strips keeps its whole rows, and more than half missing is refused") {
  TiffSpec s;
  s.format = 3;
  s.bits = 64;
  s.w = 16;
  s.h = 20;
  s.samples = 1;
  s.rows_per_strip = 1;
  const std::vector<double> v = float_values(s, false);
  const auto bytes = tiff_bytes(s, v);
  const size_t row_bytes = size_t(s.w) * 8, pixels_at = bytes.size() - row_bytes * size_t(s.h);
  ImageInfo whole_info;
  const Image whole = decode_tiff(bytes, whole_info);
  CHECK(whole_info.incomplete.empty());
  ImageInfo info;
  const Image cut = decode_tiff(std::vector<uint8_t>(bytes.begin(), bytes.begin() + long(pixels_at + row_bytes * 13 + 9)),
                           info, "strips.tif");
  CHECK(info.incomplete == "the file ends early; rows 14-20 of 20 (35%) are missing and shown grey");
  for (size_t i = 0; i < size_t(13 * s.w); ++i)
    REQUIRE(cut.pixels[i] == whole.pixels[i]);
  for (size_t i = size_t(13 * s.w); i < cut.pixels.size(); ++i)
    REQUIRE(cut.pixels[i] == 0.5f);
  const std::string e =
      tiff_error(std::vector<uint8_t>(bytes.begin(), bytes.begin() + long(pixels_at + row_bytes * 9)), "strips.tif");
  CHECK(e == "strips.tif: corrupt or truncated image: the file ends before the image does; rows 10-20 of 20 (55%) "
             "are missing, more than half of the picture");
}
