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

Decoded decode_partial(const std::vector<uint8_t>& bytes, const std::string& name, const DecodeOptions& options = {}) {
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
  const Decoded whole = decode_partial(jpeg, "whole.jpg");
  REQUIRE(whole.error.empty());
  CHECK(whole.info.incomplete.empty());
  for (const bool end_marker : {true, false}) { // ending with EOI (libjpeg only warns), or just cut
    CAPTURE(end_marker);
    // 7 of 12 MCU rows: rows 57-96 missing.
    const Decoded cut = decode_partial(prefix(jpeg, ends[6], end_marker), "photo.jpg");
    REQUIRE(cut.error.empty());
    CHECK(cut.info.incomplete == "the file ends early; rows 57-96 of 96 (42%) are missing and shown grey");
    CHECK(same_rows(cut.img, whole.img, 0, 56));
    CHECK(grey_from(cut.img, 56));
    // 5 of 12 is less than half: refused, naming the file and the rows.
    const Decoded most = decode_partial(prefix(jpeg, ends[4], end_marker), "photo.jpg");
    CHECK(most.error == "photo.jpg: corrupt or truncated image: the file ends before the image does; rows 41-96 of 96 "
                        "(58%) are missing, more than half of the picture");
    // Exactly half is still shown.
    const Decoded half = decode_partial(prefix(jpeg, ends[5], end_marker), "photo.jpg");
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
  const Decoded d = decode_partial(jpeg, "huge.jpg", small);
  CHECK(d.error.find("huge.jpg: corrupt or truncated image: the file ends before the image does; rows ") == 0);
  CHECK(d.error.find(" of 16384 (") != std::string::npos);
  CHECK(d.error.find("more than half of the picture") != std::string::npos);
  // At full size it is over the default memory budget, refused from the header.
  CHECK(decode_partial(jpeg, "huge.jpg").error.find("memory budget") != std::string::npos);
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
        const Decoded d = decode_partial(prefix(jpeg, n, end_marker), "t.jpg");
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
  const Decoded whole = decode_partial(png.bytes, "whole.png");
  REQUIRE(whole.error.empty());
  CHECK(whole.info.incomplete.empty());
  for (size_t i = 0; i < rgb.size(); ++i)
    REQUIRE(std::abs(whole.img.pixels[i] - float(rgb[i]) / 255.0f) < 1e-6f); // the writer above is sound
  const Decoded cut = decode_partial(prefix(png.bytes, png.rows_start(30)), "draw.png");
  REQUIRE(cut.error.empty());
  CHECK(cut.info.incomplete == "the file ends early; rows 31-48 of 48 (38%) are missing and shown grey");
  CHECK(same_rows(cut.img, whole.img, 0, 30));
  CHECK(grey_from(cut.img, 30));
  const Decoded most = decode_partial(prefix(png.bytes, png.rows_start(20)), "draw.png");
  CHECK(most.error == "draw.png: corrupt or truncated image: the file ends before the image does; rows 21-48 of 48 "
                      "(58%) are missing, more than half of the picture");
  // Every row there, the end of the file (IEND) missing: shown, and said.
  const Decoded no_end = decode_partial(prefix(png.bytes, png.bytes.size() - 12), "draw.png");
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
    const Decoded plain = decode_partial(stored_png(rgb, w, h).bytes, "plain.png");
    REQUIRE(plain.error.empty());
    const Decoded d = decode_partial(stored_png(rgb, w, h, empty).bytes, "chunks.png");
    CHECK(d.error.empty());
    CHECK(d.info.incomplete.empty());
    REQUIRE(d.img.pixels.size() == plain.img.pixels.size());
    CHECK(same_rows(d.img, plain.img, 0, h));
    // Cut in its image data, the same file still says which rows are missing.
    const StoredPng png = stored_png(rgb, w, h, empty);
    if (h > 8) {
      const Decoded cut = decode_partial(prefix(png.bytes, png.rows_start(40)), "cut.png");
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
  const Decoded d = decode_partial(prefix(webp, webp.size() * 2 / 3), "pic.webp");
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

namespace {

/// An 8-bit RGB Adam7 PNG whose zlib stream stores each row of each pass (filter byte and samples)
/// in its own uncompressed deflate block: `ends[k]` is the file length that holds the first k rows
/// of the passes, in the file's order, and `pass_of[k]` / `pixels[k]` that row's pass (1-7) and the
/// pixels (x, y) it holds. Written from the PNG specification's Adam7 table.
struct Adam7Png {
  std::vector<uint8_t> bytes;
  std::vector<size_t> ends;
  std::vector<int> pass_of;
  std::vector<std::vector<std::pair<int, int>>> pixels;
};

Adam7Png adam7_png(const std::vector<uint8_t>& rgb, int w, int h) {
  const int x0[7] = {0, 4, 0, 2, 0, 1, 0}, y0[7] = {0, 0, 4, 0, 2, 0, 1};
  const int dx[7] = {8, 8, 4, 4, 2, 2, 1}, dy[7] = {8, 8, 8, 4, 4, 2, 2};
  const auto be32 = [](std::vector<uint8_t>& b, uint32_t v) {
    for (int s = 24; s >= 0; s -= 8)
      b.push_back(uint8_t(v >> s));
  };
  Adam7Png png;
  std::vector<std::vector<uint8_t>> rows;
  for (int p = 0; p < 7; ++p) {
    if (x0[p] >= w) continue; // an empty pass has no rows at all
    for (int y = y0[p]; y < h; y += dy[p]) {
      std::vector<uint8_t> row = {0}; // filter: none
      std::vector<std::pair<int, int>> at;
      for (int x = x0[p]; x < w; x += dx[p]) {
        row.insert(row.end(), rgb.begin() + long((size_t(y) * w + x) * 3), rgb.begin() + long((size_t(y) * w + x) * 3 + 3));
        at.emplace_back(x, y);
      }
      rows.push_back(row);
      png.pass_of.push_back(p + 1);
      png.pixels.push_back(at);
    }
  }
  std::vector<uint8_t> z = {0x78, 0x01}, raw;
  std::vector<size_t> row_ends; // in z
  for (size_t i = 0; i < rows.size(); ++i) {
    const uint16_t len = uint16_t(rows[i].size());
    z.insert(z.end(), {uint8_t(i + 1 == rows.size()), uint8_t(len), uint8_t(len >> 8), uint8_t(~len),
                       uint8_t(~len >> 8)});
    z.insert(z.end(), rows[i].begin(), rows[i].end());
    raw.insert(raw.end(), rows[i].begin(), rows[i].end());
    row_ends.push_back(z.size());
  }
  be32(z, uint32_t(adler32(adler32(0, nullptr, 0), raw.data(), uInt(raw.size()))));
  png.bytes = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  const auto chunk = [&](const char* type, const std::vector<uint8_t>& data) {
    be32(png.bytes, uint32_t(data.size()));
    const size_t at = png.bytes.size();
    png.bytes.insert(png.bytes.end(), type, type + 4);
    png.bytes.insert(png.bytes.end(), data.begin(), data.end());
    be32(png.bytes, uint32_t(crc32(0, png.bytes.data() + at, uInt(data.size() + 4))));
  };
  std::vector<uint8_t> ihdr;
  be32(ihdr, uint32_t(w));
  be32(ihdr, uint32_t(h));
  ihdr.insert(ihdr.end(), {8, 2, 0, 0, 1}); // 8-bit RGB, interlaced
  chunk("IHDR", ihdr);
  const size_t idat_data = png.bytes.size() + 8;
  chunk("IDAT", z);
  chunk("IEND", {});
  for (const size_t e : row_ends)
    png.ends.push_back(idat_data + e);
  return png;
}

} // namespace

TEST_CASE("an interlaced PNG cut short shows the passes it holds: the pixels read are the file's, the note says how many") {
  const int w = 64, h = 48;
  const auto rgb = textured_rgb(w, h);
  const Adam7Png png = adam7_png(rgb, w, h);
  const Decoded whole = decode_partial(png.bytes, "whole.png");
  REQUIRE(whole.error.empty());
  CHECK(whole.info.incomplete.empty());
  for (size_t i = 0; i < rgb.size(); ++i)
    REQUIRE(std::abs(whole.img.pixels[i] - float(rgb[i]) / 255.0f) < 1e-6f); // the writer above is sound
  const size_t total_rows = png.ends.size();
  // Cut after most rows (in pass 7), and after half of them (in pass 6 or so), and in the first pass.
  for (const size_t kept : {total_rows * 99 / 100, total_rows / 2, size_t(2)}) {
    CAPTURE(kept);
    const size_t n = png.ends[kept - 1] + 3; // a few bytes of the next row too
    const Decoded cut = decode_partial(prefix(png.bytes, n), "inter.png");
    // The pixels of the rows kept, from the file's own layout: exactly the original.
    size_t read = 0;
    bool same = true;
    for (size_t r = 0; r < kept; ++r)
      for (const auto& xy : png.pixels[r]) {
        ++read;
        for (int c = 0; c < 3 && cut.error.empty(); ++c)
          same = same && std::abs(cut.img.at(xy.first, xy.second, c) -
                                  float(rgb[(size_t(xy.second) * w + xy.first) * 3 + c]) / 255.0f) < 1e-6f;
      }
    const int pass = png.pass_of[kept];
    const size_t tenths = read * 1000 / (size_t(w) * h);
    const std::string said = "ends in pass " + std::to_string(pass) + " of 7: " + std::to_string(tenths / 10) + "." +
                             std::to_string(tenths % 10) + "% of the pixels were read";
    CAPTURE(cut.info.incomplete);
    CAPTURE(cut.error);
    if (pass >= 2) {
      REQUIRE(cut.error.empty());
      CHECK(same);
      CHECK(cut.info.incomplete.find(said) != std::string::npos);
      CHECK(cut.info.incomplete.find("are missing") == std::string::npos); // the first pass is whole: no grey row
      // The pixels not read are filled in from earlier passes: far closer to the picture than grey.
      double se = 0;
      for (size_t i = 0; i < rgb.size(); ++i)
        se += std::pow(double(cut.img.pixels[i]) - double(whole.img.pixels[i]), 2);
      CHECK(psnr_db(se / double(rgb.size())) > (pass == 7 ? 25.0 : 20.0));
    } else {
      // Two rows of the first pass cover rows 1-16 of 48: the rest has nothing, refused naming the file.
      CHECK(cut.error == "inter.png: corrupt or truncated image: the file ends before the image does; rows 17-48 of "
                         "48 (67%) are missing, more than half of the picture");
    }
  }
}

TEST_CASE("a baseline JPEG cut inside a band of rows counts the whole band missing; a progressive one cut early says detail is missing") {
  const int w = 128, h = 96;
  const auto rgb = textured_rgb(w, h);
  // 4:2:0 (16-row MCU rows), a restart marker after every MCU row (8 MCUs across): 6 MCU rows.
  const auto jpeg = jpeg_of(rgb, w, h, "Q=90,subsample_mode=on,restart_interval=8");
  const auto ends = restart_ends(jpeg);
  REQUIRE(ends.size() == 5);
  const Decoded whole = decode_partial(jpeg, "whole.jpg");
  REQUIRE(whole.error.empty());
  // Cut half way through the last MCU row: its 16 rows are each partly grey.
  const size_t n = ends[4] + (jpeg.size() - 2 - ends[4]) / 2;
  const Decoded cut = decode_partial(prefix(jpeg, n), "photo.jpg");
  REQUIRE(cut.error.empty());
  CHECK(cut.info.incomplete == "the file ends early; rows 81-96 of 96 (17%) are missing and shown grey");
  CHECK(same_rows(cut.img, whole.img, 0, 79)); // the last row above the band blends with the band's colours
  CHECK(grey_from(cut.img, 80));
  // Progressive: the first scans (the DC, the coarse picture) whole, then cut.
  const auto prog = jpeg_of(rgb, w, h, "Q=90,interlace");
  std::vector<size_t> sos;
  for (size_t i = 0; i + 1 < prog.size(); ++i)
    if (prog[i] == 0xff && prog[i + 1] == 0xda) sos.push_back(i);
  REQUIRE(sos.size() > 3);
  const Decoded early = decode_partial(prefix(prog, sos[2] + 40), "prog.jpg");
  REQUIRE(early.error.empty());
  CHECK(early.info.incomplete == "the file ends in scan 3 of this progressive JPEG: every row was read, but the "
                                 "detail of its later scans is missing (the picture is blurred or blocky)");
}
