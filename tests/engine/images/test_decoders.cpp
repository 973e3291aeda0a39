// The decoders behind decode_image on hostile input: the memory budget checked from the header
// before any allocation (GIF screens and frames included), truncation, and the files that broke
// stb_image (a 9-byte JPEG, a GIF claiming 60176 x 4096).
#include "test_support.h"

#include "engine/errors.h"
#include "engine/images/image.h"
#include "engine/images/image_decoders.h"

#include <doctest/doctest.h>
#include <stb/stb_image_write.h>
#include <zlib.h>

#include <cstring>

using namespace redraw;

namespace {
/// A binary PGM: `header`, then the bytes `samples`, decoded.
Image decode_pgm(const std::string& header, std::initializer_list<uint8_t> samples) {
  std::vector<uint8_t> b(header.begin(), header.end());
  b.insert(b.end(), samples);
  return decode_image(b.data(), b.size(), "t.pgm");
}

std::string decode_error(const std::vector<uint8_t>& bytes, const DecodeLimits& limits = {}) {
  try {
    decode_image(bytes.data(), bytes.size(), "t", limits);
  } catch (const ImageError& e) {
    return e.what();
  }
  return "";
}

void put16(std::vector<uint8_t>& b, int v) {
  b.push_back(uint8_t(v & 0xff));
  b.push_back(uint8_t(v >> 8));
}

/// A GIF with a w x h screen and one frame of fw x fh (pixel data: a clear code and an end code).
std::vector<uint8_t> gif_claiming(int w, int h, int fw, int fh) {
  std::vector<uint8_t> b = {'G', 'I', 'F', '8', '9', 'a'};
  put16(b, w);
  put16(b, h);
  b.insert(b.end(), {0x80, 0, 0, 0, 0, 0, 255, 255, 255}); // a two-colour global palette
  b.push_back(0x2c);
  put16(b, 0);
  put16(b, 0);
  put16(b, fw);
  put16(b, fh);
  b.push_back(0);
  b.insert(b.end(), {2, 1, 0x44, 0, 0x3b});
  return b;
}

/// For a file cut short: "" when it is shown with what is missing said (ImageInfo::incomplete),
/// else the error, or "shown silently" when it loads without a word about it.
std::string cut_outcome(const std::vector<uint8_t>& bytes) {
  try {
    ImageInfo info;
    decode_image(bytes.data(), bytes.size(), "t", {}, {}, &info);
    return info.incomplete.empty() ? "shown silently" : "";
  } catch (const ImageError& e) {
    return e.what();
  }
}

std::vector<uint8_t> png_bytes(const Image& img, int depth = 8) { return encode_png(img, depth); }

std::vector<uint8_t> jpeg_bytes(int w, int h, int comp) {
  std::vector<uint8_t> px(size_t(w) * h * comp);
  for (size_t i = 0; i < px.size(); ++i)
    px[i] = uint8_t(i * 13);
  std::vector<uint8_t> out;
  stbi_write_jpg_to_func(
      [](void* ctx, void* data, int size) {
        auto* o = static_cast<std::vector<uint8_t>*>(ctx);
        o->insert(o->end(), static_cast<uint8_t*>(data), static_cast<uint8_t*>(data) + size);
      },
      &out, w, h, comp, px.data(), 90);
  return out;
}
} // namespace

TEST_CASE("the GIF that made stb allocate 2 x 986 MB is refused from its header") {
  const auto gif = gif_claiming(60176, 4096, 60176, 4096);
  CHECK(gif.size() < 64);
  const std::string e = decode_error(gif);
  CHECK(e.find("GIF screen") != std::string::npos);
  CHECK(e.find("image memory budget of 1024 MiB") != std::string::npos);
  CHECK(e.find("--max-image-memory") != std::string::npos);
}

TEST_CASE("every GIF frame is checked before its rows are decoded") {
  // A small screen whose frame claims far more pixels than it: refused by the budget, then by the screen.
  DecodeLimits small;
  small.max_bytes = uint64_t(1) << 20;
  CHECK(decode_error(gif_claiming(16, 16, 30000, 30000), small).find("GIF frame") != std::string::npos);
  CHECK(decode_error(gif_claiming(16, 16, 20, 4)).find("outside the picture") != std::string::npos);
  auto cut = gif_claiming(4, 4, 4, 4);
  cut.resize(cut.size() - 3);
  CHECK(decode_error(cut).find("corrupt or truncated") != std::string::npos);
}

TEST_CASE("a big PNG inside the pixel limits is refused by the memory budget unless it is raised") {
  // The IHDR alone: 16384 x 16384 RGBA needs 5 GiB of pixels and floats, before a single row is read.
  std::vector<uint8_t> b = {0x89, 'P', 'N', 'G',  '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D',
                            'R',  0,   0,   0x40, 0,    0,    0,    0x40, 0, 8, 6, 0,  0,   0};
  const uLong crc = crc32(0, b.data() + 12, 17);
  for (int s = 24; s >= 0; s -= 8)
    b.push_back(uint8_t(crc >> s));
  const std::string e = decode_error(b);
  CHECK(e.find("16384x16384") != std::string::npos);
  CHECK(e.find("memory budget") != std::string::npos);
  // The budget is the caller's: a real picture just over a small one is refused, and loads under a larger one.
  const Image img = test::gradient_image(64, 48, 3);
  const auto png = png_bytes(img);
  DecodeLimits tight;
  tight.max_bytes = 64 * 48 * 3 * 5 - 1;
  CHECK(decode_error(png, tight).find("memory budget") != std::string::npos);
  tight.max_bytes += 1;
  CHECK(decode_image(png.data(), png.size(), "t", tight).width == 64);
}

TEST_CASE("PNG through libvips: 8 and 16 bit round trips; truncated files shown with what is missing or refused") {
  const Image rgb = test::gradient_image(21, 13, 3);
  for (int depth : {8, 16}) {
    const auto png = png_bytes(rgb, depth);
    const Image back = decode_image(png.data(), png.size(), "t");
    CHECK(back.channels == 3);
    CHECK(test::max_abs_diff(back, rgb) <= (depth == 8 ? 0.5 / 255 : 0.5 / 65535) + 1e-6);
    // Cut in the header: refused. Cut in the pixels: refused, or shown saying what is missing.
    CHECK(decode_error({png.begin(), png.begin() + 40}).find("corrupt or truncated") != std::string::npos);
    for (size_t keep = 41; keep < png.size(); keep += 23) {
      CAPTURE(keep);
      const std::string outcome = cut_outcome({png.begin(), png.begin() + long(keep)});
      CHECK((outcome.empty() || outcome.find("t: corrupt or truncated") == 0));
    }
    // Only the end marker (IEND) missing: every row is there, and the note says the file is cut.
    ImageInfo info;
    const std::vector<uint8_t> no_end(png.begin(), png.end() - 12);
    CHECK(test::max_abs_diff(decode_image(no_end.data(), no_end.size(), "t", {}, {}, &info), back) == 0);
    CHECK(info.incomplete == "the file ends early, but every row of the picture was read");
  }
  // A damaged IHDR (its size field): the CRCs are put right for it, so the decoder sees the damage.
  auto bad = png_bytes(test::gradient_image(9, 9, 1));
  bad[24] = 77; // bit depth 77
  CHECK(decode_error(bad).find("the PNG is damaged") != std::string::npos);
}

TEST_CASE("JPEG through libvips: pictures load, tiny files are refused and cut ones never load silently") {
  const auto rgb = jpeg_bytes(24, 16, 3), gray = jpeg_bytes(24, 16, 1);
  const Image a = decode_image(rgb.data(), rgb.size(), "t");
  CHECK(a.width == 24);
  CHECK(a.height == 16);
  CHECK(a.channels == 3);
  const Image g = decode_image(gray.data(), gray.size(), "t"); // stb writes grey as three components
  CHECK(g.height == 16);
  // Cut short: shown with what is missing said, or refused (more than half missing).
  const std::vector<uint8_t> cut(rgb.begin(), rgb.begin() + long(rgb.size() * 2 / 3));
  const std::string outcome = cut_outcome(cut);
  CHECK((outcome.empty() || outcome.find("the file ends before the image does") != std::string::npos));
  // The 9-byte JPEG whose Huffman table sent stb out of bounds: SOI, DHT with a bogus count.
  const std::vector<uint8_t> nine = {0xff, 0xd8, 0xff, 0xc4, 0x00, 0x07, 0x00, 0xff, 0xff};
  CHECK(decode_error(nine).find("corrupt or truncated") != std::string::npos);
  for (size_t n = 3; n < rgb.size(); n += 37) { // every prefix is refused cleanly or shown saying what is missing
    CAPTURE(n);
    const std::string prefix_outcome = cut_outcome({rgb.begin(), rgb.begin() + long(n)});
    CHECK((prefix_outcome.empty() || prefix_outcome.find("t: ") == 0));
  }
}

TEST_CASE("formats Redraw does not offer are not handed to stb") {
  std::vector<uint8_t> psd = {'8', 'B', 'P', 'S', 0, 1};
  psd.resize(64, 0);
  CHECK(decode_error(psd).find("not a readable") != std::string::npos);
  std::vector<uint8_t> hdr(64, 0);
  std::memcpy(hdr.data(), "#?RADIANCE\n", 11);
  CHECK(decode_error(hdr).find("not a readable") != std::string::npos);
}

TEST_CASE("stb_image's internal checks are errors, not aborts") {
  // stb_image is built in (engine/images/stb_image_build.cpp) with STBI_ASSERT routed here: a check a
  // crafted BMP, TGA or PNM reached would otherwise abort the app (Debian's libstb keeps assert on).
  try {
    detail::stb_internal_check_failed("n >= 0");
    FAIL("no exception");
  } catch (const ImageError& e) {
    CHECK(std::string(e.what()).find("n >= 0") != std::string::npos);
  }
  // The decoder that runs is that build: a 2x1 binary PNM decodes through it.
  const Image img = decode_pgm("P5\n2 1\n255\n", {0, 255});
  REQUIRE(img.width == 2);
  CHECK(img.pixels[0] == 0.0f);
  CHECK(img.pixels[1] == 1.0f);
}

TEST_CASE("a PNM header number out of range is refused before stb reads it") {
  // Found by fuzz_image: stb_image's PNM reader overflowed an int on a long run of digits.
  const auto pnm = [](const std::string& header) {
    std::vector<uint8_t> b(header.begin(), header.end());
    b.resize(b.size() + 64, 7);
    return b;
  };
  CHECK(decode_error(pnm("P5" + std::string(98, '1') + "=\n4")).find("PNM header's width is over") !=
        std::string::npos);
  CHECK(decode_error(pnm("P6 4 # a comment\n99999999999 255\n")).find("PNM header's height is over") !=
        std::string::npos);
  CHECK(decode_error(pnm("P5\n2 2\n65536\n")).find("maximum value is over 65535") != std::string::npos);
  // In range (leading zeros and comments included), the picture decodes.
  const Image img = decode_pgm("P5 #c\n0002 1\n255\n", {255, 0});
  CHECK(img.width == 2);
  CHECK(img.pixels[0] == 1.0f);
}

TEST_CASE("an OpenEXR header attribute claiming more bytes than the file holds is refused before OpenEXR allocates") {
  // Found by fuzz_image: OpenEXR 3.1 allocated (and cleared) the claimed size of an unknown attribute.
  std::vector<uint8_t> b = {0x76, 0x2f, 0x31, 0x01, 2, 0, 0, 0};
  for (const char* s : {"junk", "opaque"})
    b.insert(b.end(), s, s + std::strlen(s) + 1);
  b.insert(b.end(), {0xff, 0xff, 0xff, 0x7f, 1, 2, 3});
  CHECK(decode_error(b).find("the OpenEXR header is damaged (an attribute larger than the file)") != std::string::npos);
}

TEST_CASE("a JPEG with more than 500 scans is refused before decoding") {
  auto jpg = jpeg_bytes(24, 16, 3);
  std::vector<uint8_t> many(jpg.begin(), jpg.end() - 2); // without EOI
  for (int i = 0; i < 501; ++i)
    many.insert(many.end(), {0xff, 0xda, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3f, 0x00});
  many.insert(many.end(), {0xff, 0xd9});
  CHECK(decode_error(many).find("more than 500 scans") != std::string::npos);
  CHECK(decode_error(jpg).empty());
}

TEST_CASE("the OpenEXR headers fuzz_image found slow are refused from the header walk") {
  // Each made OpenEXR 3.1 allocate (and, under ASan, clear) gigabytes for a header attribute.
  // The source tree's corpus (a packed test copy elsewhere may not carry it).
  const auto corpus = std::filesystem::path(REDRAW_SAMPLE_DIR).parent_path() / "fuzz" / "corpus" / "image";
  if (!std::filesystem::exists(corpus)) return;
  for (const char* name : {"exr_huge_attribute.exr", "exr_misaligned_attribute.exr", "exr_chlist_overrun.exr"}) {
    CAPTURE(name);
    const auto bytes = test::read_bytes(corpus / name);
    REQUIRE(!bytes.empty());
    CHECK(decode_error(bytes).find("the OpenEXR header is damaged") != std::string::npos);
  }
}
