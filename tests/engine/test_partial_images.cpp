// Files that end early (decode_support.h's policy): the rows that are there are decoded as the
// whole file decodes them, the missing ones are mid grey, ImageInfo::incomplete names them, and a
// file missing more than half of its rows is refused naming the file. The cut points are known
// from each file's own layout (restart markers in a JPEG's scan, one stored deflate block per PNG
// row, one TIFF strip per row), not from the decoder.
#include "test_support.h"

#include "engine/errors.h"
#include "engine/half_float.h"
#include "engine/images/image.h"
#include "engine/training/open_run.h"

#include <doctest/doctest.h>
#include <vips/vips.h>
#include <zlib.h>

#include <cstring>
#include <functional>

using namespace redraw;

namespace {

/// 128 x 96 RGB bytes with texture everywhere (no flat row anywhere).
std::vector<uint8_t> textured_rgb(int w, int h) {
  std::vector<uint8_t> px(size_t(w) * h * 3);
  uint32_t state = 99;
  for (size_t i = 0; i < px.size(); ++i) {
    state = state * 1664525u + 1013904223u;
    px[i] = uint8_t(((i / 3) % size_t(w)) * 2 + (state >> 28));
  }
  return px;
}

/// A JPEG of the pixels saved by libvips with `options` ("Q=90,subsample_mode=off,...").
std::vector<uint8_t> jpeg_of(const std::vector<uint8_t>& rgb, int w, int h, const std::string& options) {
  load_image(test::sample("horse.png")); // starts libvips the way Redraw does
  VipsImage* v = vips_image_new_from_memory_copy(rgb.data(), rgb.size(), w, h, 3, VIPS_FORMAT_UCHAR);
  REQUIRE(v);
  v->Type = VIPS_INTERPRETATION_sRGB;
  void* buf = nullptr;
  size_t len = 0;
  const int rc = vips_image_write_to_buffer(v, (".jpg[" + options + "]").c_str(), &buf, &len, nullptr);
  g_object_unref(v);
  if (rc != 0) FAIL("libvips could not write a JPEG: " << vips_error_buffer());
  std::vector<uint8_t> out(static_cast<uint8_t*>(buf), static_cast<uint8_t*>(buf) + len);
  g_free(buf);
  return out;
}

/// Where the scan's restart markers (FF D0..D7) end: with a restart after every MCU row, the
/// bytes up to the k-th one hold exactly k MCU rows.
std::vector<size_t> restart_ends(const std::vector<uint8_t>& jpeg) {
  std::vector<size_t> ends;
  for (size_t i = 0; i + 1 < jpeg.size(); ++i)
    if (jpeg[i] == 0xff && jpeg[i + 1] >= 0xd0 && jpeg[i + 1] <= 0xd7) ends.push_back(i + 2);
  return ends;
}

std::vector<uint8_t> prefix(const std::vector<uint8_t>& b, size_t n, bool end_marker = false) {
  std::vector<uint8_t> out(b.begin(), b.begin() + long(n));
  if (end_marker) out.insert(out.end(), {0xff, 0xd9});
  return out;
}

struct Decoded {
  Image img;
  ImageInfo info;
  std::string error;
};

Decoded decode(const std::vector<uint8_t>& bytes, const std::string& name, const DecodeOptions& options = {}) {
  Decoded d;
  try {
    d.img = decode_image(bytes.data(), bytes.size(), name, {}, options, &d.info);
  } catch (const ImageError& e) {
    d.error = e.what();
  }
  return d;
}

/// The rows [from, to) of a and b are the same samples.
bool same_rows(const Image& a, const Image& b, int32_t from, int32_t to) {
  REQUIRE(a.width == b.width);
  REQUIRE(a.channels == b.channels);
  const size_t row = size_t(a.width) * size_t(a.channels);
  return std::equal(a.pixels.begin() + long(row * size_t(from)), a.pixels.begin() + long(row * size_t(to)),
                    b.pixels.begin() + long(row * size_t(from)));
}

/// Every sample of rows [from, img.height) is mid grey (alpha opaque).
bool grey_from(const Image& img, int32_t from) {
  for (int32_t y = from; y < img.height; ++y)
    for (int32_t x = 0; x < img.width; ++x)
      for (int32_t c = 0; c < img.channels; ++c) {
        const bool alpha = (img.channels == 2 || img.channels == 4) && c == img.channels - 1;
        if (img.at(x, y, c) != (alpha ? 1.0f : 0.5f)) return false;
      }
  return true;
}

/// An 8-bit RGB PNG whose zlib stream stores each row (filter byte and samples) in its own
/// uncompressed deflate block, so the file's first `rows_start(k)` bytes hold exactly k rows.
struct StoredPng {
  std::vector<uint8_t> bytes;
  std::function<size_t(int)> rows_start;
};

StoredPng stored_png(const std::vector<uint8_t>& rgb, int w, int h, const std::vector<const char*>& empty_chunks = {}) {
  const auto be32 = [](std::vector<uint8_t>& b, uint32_t v) {
    for (int s = 24; s >= 0; s -= 8)
      b.push_back(uint8_t(v >> s));
  };
  const auto chunk = [&](std::vector<uint8_t>& out, const char* type, const std::vector<uint8_t>& data) {
    be32(out, uint32_t(data.size()));
    const size_t at = out.size();
    out.insert(out.end(), type, type + 4);
    out.insert(out.end(), data.begin(), data.end());
    be32(out, uint32_t(crc32(0, out.data() + at, uInt(data.size() + 4))));
  };
  const size_t row = size_t(w) * 3 + 1;
  std::vector<uint8_t> z = {0x78, 0x01}, raw;
  for (int y = 0; y < h; ++y) {
    const uint16_t len = uint16_t(row);
    z.insert(z.end(),
             {uint8_t(y == h - 1 ? 1 : 0), uint8_t(len), uint8_t(len >> 8), uint8_t(~len), uint8_t(~len >> 8)});
    z.push_back(0); // filter: none
    z.insert(z.end(), rgb.begin() + long(size_t(y) * (row - 1)), rgb.begin() + long(size_t(y + 1) * (row - 1)));
    raw.push_back(0);
    raw.insert(raw.end(), rgb.begin() + long(size_t(y) * (row - 1)), rgb.begin() + long(size_t(y + 1) * (row - 1)));
  }
  be32(z, uint32_t(adler32(adler32(0, nullptr, 0), raw.data(), uInt(raw.size()))));
  StoredPng png;
  png.bytes = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  std::vector<uint8_t> ihdr;
  be32(ihdr, uint32_t(w));
  be32(ihdr, uint32_t(h));
  ihdr.insert(ihdr.end(), {8, 2, 0, 0, 0});
  chunk(png.bytes, "IHDR", ihdr);
  for (const char* type : empty_chunks) chunk(png.bytes, type, {});
  const size_t idat_data = png.bytes.size() + 8;
  chunk(png.bytes, "IDAT", z);
  chunk(png.bytes, "IEND", {});
  png.rows_start = [idat_data, row](int k) { return idat_data + 2 + size_t(k) * (row + 5); };
  return png;
}

} // namespace

TEST_CASE("a JPEG cut short keeps the rows it has, grey below, and says which rows are missing") {
  const int w = 128, h = 96;
  const auto rgb = textured_rgb(w, h);
  // 4:4:4 (8-row MCUs), a restart marker after every MCU row (16 MCUs across): 12 MCU rows.
  const auto jpeg = jpeg_of(rgb, w, h, "Q=90,subsample_mode=off,restart_interval=16");
  const auto ends = restart_ends(jpeg);
  REQUIRE(ends.size() == 11);
  const Decoded whole = decode(jpeg, "whole.jpg");
  REQUIRE(whole.error.empty());
  CHECK(whole.info.incomplete.empty());
  for (const bool end_marker : {true, false}) { // ending with EOI (libjpeg only warns), or just cut
    CAPTURE(end_marker);
    // 7 of 12 MCU rows: rows 57-96 missing.
    const Decoded cut = decode(prefix(jpeg, ends[6], end_marker), "photo.jpg");
    REQUIRE(cut.error.empty());
    CHECK(cut.info.incomplete == "the file ends early; rows 57-96 of 96 (42%) are missing and shown grey");
    CHECK(same_rows(cut.img, whole.img, 0, 56));
    CHECK(grey_from(cut.img, 56));
    // 5 of 12 is less than half: refused, naming the file and the rows.
    const Decoded most = decode(prefix(jpeg, ends[4], end_marker), "photo.jpg");
    CHECK(most.error == "photo.jpg: corrupt or truncated image: the file ends before the image does; rows 41-96 of 96 "
                        "(58%) are missing, more than half of the picture");
    // Exactly half is still shown.
    const Decoded half = decode(prefix(jpeg, ends[5], end_marker), "photo.jpg");
    CHECK(half.error.empty());
    CHECK(half.info.incomplete == "the file ends early; rows 49-96 of 96 (50%) are missing and shown grey");
  }
}

TEST_CASE("a JPEG whose header claims far more than its scan holds is refused, shrunk on load or not") {
  const int w = 128, h = 96;
  auto jpeg = jpeg_of(textured_rgb(w, h), w, h, "Q=90");
  size_t sof = 0;
  for (size_t i = 2; i + 9 < jpeg.size() && !sof; ++i)
    if (jpeg[i] == 0xff && jpeg[i + 1] == 0xc0) sof = i;
  REQUIRE(sof > 0);
  REQUIRE(((jpeg[sof + 5] << 8) | jpeg[sof + 6]) == h);
  for (const size_t at : {sof + 5, sof + 7}) { // height, width: 16384
    jpeg[at] = 0x40;
    jpeg[at + 1] = 0;
  }
  DecodeOptions small;
  small.min_width = small.min_height = 256; // shrunk 1/8 on load: 2048 x 2048, within the budget
  const Decoded d = decode(jpeg, "huge.jpg", small);
  CHECK(d.error.find("huge.jpg: corrupt or truncated image: the file ends before the image does; rows ") == 0);
  CHECK(d.error.find(" of 16384 (") != std::string::npos);
  CHECK(d.error.find("more than half of the picture") != std::string::npos);
  // At full size it is over the default memory budget, refused from the header.
  CHECK(decode(jpeg, "huge.jpg").error.find("memory budget") != std::string::npos);
}

TEST_CASE("a cut JPEG of any length is refused or shown with what is missing, never silently") {
  const int w = 64, h = 48;
  const auto rgb = textured_rgb(w, h);
  for (const char* options : {"Q=85", "Q=85,interlace"}) { // baseline and progressive
    CAPTURE(std::string(options));
    const auto jpeg = jpeg_of(rgb, w, h, options);
    int shown = 0;
    for (size_t n = 3; n + 2 < jpeg.size(); n += 29)
      for (const bool end_marker : {false, true}) {
        CAPTURE(n);
        const Decoded d = decode(prefix(jpeg, n, end_marker), "t.jpg");
        CHECK((!d.error.empty() || !d.info.incomplete.empty()));
        if (!d.error.empty()) CHECK(d.error.find("t.jpg: ") == 0);
        shown += d.error.empty();
      }
    CHECK(shown > 0); // the longer prefixes of at least one kind are shown
  }
}

TEST_CASE("a PNG cut short keeps its whole rows, grey below, and more than half missing is refused") {
  const int w = 64, h = 48;
  const auto rgb = textured_rgb(w, h);
  const StoredPng png = stored_png(rgb, w, h);
  const Decoded whole = decode(png.bytes, "whole.png");
  REQUIRE(whole.error.empty());
  CHECK(whole.info.incomplete.empty());
  for (size_t i = 0; i < rgb.size(); ++i)
    REQUIRE(std::abs(whole.img.pixels[i] - float(rgb[i]) / 255.0f) < 1e-6f); // the writer above is sound
  const Decoded cut = decode(prefix(png.bytes, png.rows_start(30)), "draw.png");
  REQUIRE(cut.error.empty());
  CHECK(cut.info.incomplete == "the file ends early; rows 31-48 of 48 (38%) are missing and shown grey");
  CHECK(same_rows(cut.img, whole.img, 0, 30));
  CHECK(grey_from(cut.img, 30));
  const Decoded most = decode(prefix(png.bytes, png.rows_start(20)), "draw.png");
  CHECK(most.error == "draw.png: corrupt or truncated image: the file ends before the image does; rows 21-48 of 48 "
                      "(58%) are missing, more than half of the picture");
  // Every row there, the end of the file (IEND) missing: shown, and said.
  const Decoded no_end = decode(prefix(png.bytes, png.bytes.size() - 12), "draw.png");
  REQUIRE(no_end.error.empty());
  CHECK(no_end.info.incomplete == "the file ends early, but every row of the picture was read");
  CHECK(same_rows(no_end.img, whole.img, 0, h));
}

TEST_CASE("a whole PNG with empty ancillary chunks opens whole: libpng's warnings about them are no missing rows") {
  // As libpng's own crasher test (empty_ancillary_chunks.png): every ancillary chunk it knows,
  // each of length 0, before a complete IDAT. libpng skips each with a warning ("iCCP: too short").
  const std::vector<const char*> empty = {"bKGD", "cHRM", "gAMA", "hIST", "iCCP", "iTXt", "oFFs", "pCAL", "pHYs",
                                          "sBIT", "sCAL", "sPLT", "sRGB", "sTER", "tEXt", "tIME", "tRNS", "zTXt"};
  for (const auto& size : {std::pair{1, 1}, std::pair{64, 48}}) {
    const int w = size.first, h = size.second; // named copies: clang's CAPTURE refuses structured bindings
    CAPTURE(w);
    const auto rgb = textured_rgb(w, h);
    const Decoded plain = decode(stored_png(rgb, w, h).bytes, "plain.png");
    REQUIRE(plain.error.empty());
    const Decoded d = decode(stored_png(rgb, w, h, empty).bytes, "chunks.png");
    CHECK(d.error.empty());
    CHECK(d.info.incomplete.empty());
    REQUIRE(d.img.pixels.size() == plain.img.pixels.size());
    CHECK(same_rows(d.img, plain.img, 0, h));
    // Cut in its image data, the same file still says which rows are missing.
    const StoredPng png = stored_png(rgb, w, h, empty);
    if (h > 8) {
      const Decoded cut = decode(prefix(png.bytes, png.rows_start(40)), "cut.png");
      REQUIRE(cut.error.empty());
      CHECK(cut.info.incomplete == "the file ends early; rows 41-48 of 48 (17%) are missing and shown grey");
      CHECK(same_rows(cut.img, plain.img, 0, 40));
    }
  }
}

TEST_CASE("a WebP cut short is refused as truncated, naming the file") {
  test::TempDir dir;
  const int w = 64, h = 48;
  const auto rgb = textured_rgb(w, h);
  load_image(test::sample("horse.png"));
  VipsImage* v = vips_image_new_from_memory_copy(rgb.data(), rgb.size(), w, h, 3, VIPS_FORMAT_UCHAR);
  REQUIRE(v);
  const std::string file = (dir.path / "a.webp").string();
  REQUIRE(vips_image_write_to_file(v, (file + "[lossless]").c_str(), nullptr) == 0);
  g_object_unref(v);
  const auto webp = test::read_bytes(file);
  const Decoded d = decode(prefix(webp, webp.size() * 2 / 3), "pic.webp");
  CHECK(d.error.find("pic.webp: corrupt or truncated image: the file ends before the image does") == 0);
}

TEST_CASE("open_run tells the app and train about an image that ends early, naming it") {
  test::TempDir dir;
  const int w = 64, h = 48;
  const StoredPng png = stored_png(textured_rgb(w, h), w, h);
  const auto file = dir.path / "cut.png";
  test::write_bytes(file, prefix(png.bytes, png.rows_start(40)));
  OpenRunOptions options;
  options.config = test::small_config(OptimizerKind::Adam, 0);
  options.backend = "cpu";
  const BackendFactory cpu = [](const std::string&, std::string*, const std::string&) {
    return std::unique_ptr<Backend>(std::make_unique<CpuBackend>());
  };
  const OpenedRun run = open_run({file.string(), ""}, cpu, options);
  REQUIRE(run.notices.size() == 1);
  CHECK(run.notices[0] == file.string() + ": the file ends early; rows 41-48 of 48 (17%) are missing and shown grey");
  CHECK(run.image_info.incomplete == "the file ends early; rows 41-48 of 48 (17%) are missing and shown grey");
}
