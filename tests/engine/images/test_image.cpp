// Image loading, colour modes, resizing, PNG writing, PSNR, and every kind of bad image file.
#include "test_support.h"

#include "engine/errors.h"
#include "engine/images/image.h"

#include <doctest/doctest.h>
#include <gif_lib.h>
#include <stb/stb_image_write.h>
#include <zlib.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdio>

using namespace redraw;

namespace {
void check_image_error(const std::filesystem::path& p, const char* needle) {
  CAPTURE(p.string());
  CAPTURE(std::string(needle));
  try {
    load_image(p);
    FAIL("no error");
  } catch (const ImageError& e) {
    const std::string what = e.what();
    CHECK(what.find(p.string()) != std::string::npos);
    CHECK(what.find(needle) != std::string::npos);
  }
}

/// A PNG whose IHDR claims w x h (valid CRC) but holds no real image data.
std::vector<uint8_t> png_header_claiming(uint32_t w, uint32_t h) {
  std::vector<uint8_t> b = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'};
  auto be32 = [&](uint32_t v) {
    for (int s = 24; s >= 0; s -= 8)
      b.push_back(uint8_t(v >> s));
  };
  be32(w);
  be32(h);
  b.insert(b.end(), {8, 6, 0, 0, 0});
  const uLong crc = crc32(0, b.data() + 12, 17);
  be32(uint32_t(crc));
  return b;
}
/// w x h RGB bytes: noisy rows (raw packets when run-length coded) between flat rows (runs).
std::vector<uint8_t> test_pattern(int w, int h) {
  std::vector<uint8_t> rgb(size_t(w) * h * 3);
  uint32_t state = 12345;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w * 3; ++x) {
      state = state * 1664525u + 1013904223u;
      rgb[size_t(y) * w * 3 + size_t(x)] = y % 2 ? uint8_t(40 * y + x % 3) : uint8_t(state >> 24);
    }
  return rgb;
}

/// A TGA written by hand: top-left origin, `channels` 1 (grey, type 3 / 11) or 3 (BGR, type 2 /
/// 10), raw or run-length coded (runs of equal pixels, raw packets between them).
std::vector<uint8_t> tga_file(int w, int h, int channels, const std::vector<uint8_t>& px, bool rle) {
  const uint8_t type = uint8_t((channels == 1 ? 3 : 2) + (rle ? 8 : 0));
  std::vector<uint8_t> b = {0,
                            0,
                            type,
                            0,
                            0,
                            0,
                            0,
                            0,
                            0,
                            0,
                            0,
                            0,
                            uint8_t(w),
                            uint8_t(w >> 8),
                            uint8_t(h),
                            uint8_t(h >> 8),
                            uint8_t(8 * channels),
                            0x20};
  const size_t n = size_t(w) * h, c = size_t(channels);
  const auto put = [&](size_t i) {
    for (size_t k = c; k-- > 0;)
      b.push_back(px[i * c + k]); // TGA stores BGR
  };
  const auto same = [&](size_t i, size_t j) { return std::equal(&px[i * c], &px[i * c] + c, &px[j * c]); };
  for (size_t i = 0; i < n;) {
    size_t run = 1;
    while (rle && i + run < n && run < 128 && same(i, i + run))
      ++run;
    if (run > 1) {
      b.push_back(uint8_t(0x80 | (run - 1)));
      put(i);
      i += run;
      continue;
    }
    size_t raw = 1;
    while (i + raw < n && (!rle || (raw < 128 && !(i + raw + 1 < n && same(i + raw, i + raw + 1)))))
      ++raw;
    if (rle) b.push_back(uint8_t(raw - 1));
    for (size_t k = 0; k < raw; ++k)
      put(i + k);
    i += raw;
  }
  return b;
}

std::vector<uint8_t> bmp_file(int w, int h, const std::vector<uint8_t>& rgb) {
  std::vector<uint8_t> out;
  const auto append = [](void* ctx, void* data, int size) {
    auto* v = static_cast<std::vector<uint8_t>*>(ctx);
    v->insert(v->end(), static_cast<uint8_t*>(data), static_cast<uint8_t*>(data) + size);
  };
  REQUIRE(stbi_write_bmp_to_func(append, &out, w, h, 3, rgb.data()));
  return out;
}

/// A BITMAPINFOHEADER BMP header claiming w x h at `bpp`, with a 2-colour palette when bpp is 1,
/// followed by no pixel data at all.
std::vector<uint8_t> bmp_header_claiming(int32_t w, int32_t h, int bpp) {
  const uint32_t offset = 54 + (bpp == 1 ? 8 : 0);
  std::vector<uint8_t> b = {'B', 'M'};
  const auto le32 = [&](uint32_t v) {
    for (int s = 0; s < 32; s += 8)
      b.push_back(uint8_t(v >> s));
  };
  const auto le16 = [&](uint32_t v) { b.insert(b.end(), {uint8_t(v), uint8_t(v >> 8)}); };
  le32(offset); // file size (readers ignore it)
  le32(0);
  le32(offset);
  le32(40);
  le32(uint32_t(w));
  le32(uint32_t(h));
  le16(1);
  le16(uint32_t(bpp));
  for (int i = 0; i < 6; ++i)
    le32(0); // no compression, sizes and palette counts left to the reader
  if (bpp == 1) b.insert(b.end(), {0, 0, 0, 0, 255, 255, 255, 0});
  return b;
}

void check_pixels(const Image& img, int w, int h, int channels, const std::vector<uint8_t>& want) {
  REQUIRE(img.width == w);
  REQUIRE(img.height == h);
  REQUIRE(img.channels == channels);
  REQUIRE(img.pixels.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i)
    REQUIRE(img.pixels[i] == float(want[i]) / 255.0f);
}
} // namespace

TEST_CASE("auto colour mode: grey images train in grey, anything with colour in RGB") {
  // grey, half-transparent grey
  Image raw{2, 1, 4, {0.3f, 0.3f, 0.3f, 1.0f, 0.8f, 0.8f, 0.8f, 0.5f}};
  CHECK(resolve_color_mode(raw, ColorMode::Auto, {1, 1, 1}) == ColorMode::Gray);
  // A coloured background tints the transparent pixel: that is colour.
  CHECK(resolve_color_mode(raw, ColorMode::Auto, {1, 0, 0}) == ColorMode::Rgb);
  const Image g = convert_color(raw, ColorMode::Auto, 0.5f, {1, 1, 1});
  CHECK(g.channels == 1);
  CHECK(g.pixels[0] == doctest::Approx(0.3));
  CHECK(g.pixels[1] == doctest::Approx(0.9));
  raw.pixels[6] = 0.81f; // one channel off: colour
  CHECK(resolve_color_mode(raw, ColorMode::Auto, {1, 1, 1}) == ColorMode::Rgb);
  CHECK(convert_color(raw, ColorMode::Auto, 0.5f, {1, 1, 1}).channels == 3);
  // A fixed mode is never changed.
  CHECK(resolve_color_mode(raw, ColorMode::Gray, {1, 1, 1}) == ColorMode::Gray);
  // The shared samples: the horse drawing and the cameraman are grey, the cat is not.
  DataSpec spec;
  spec.max_side = 64;
  CHECK(spec.color_mode == ColorMode::Auto); // the default
  CHECK(prepare_training_image(test::sample("horse.png"), spec).channels == 1);
  CHECK(prepare_training_image(test::sample("camera.png"), spec).channels == 1);
  CHECK(prepare_training_image(test::sample("chelsea.png"), spec).channels == 3);
  spec.color_mode = ColorMode::Rgb;
  CHECK(prepare_training_image(test::sample("horse.png"), spec).channels == 3);
}

TEST_CASE("loads the shared samples with their native channels") {
  const Image horse = load_image(test::sample("horse.png"));
  CHECK(horse.width == 400);
  CHECK(horse.height == 328);
  const Image cat = load_image(test::sample("chelsea.png"));
  CHECK(cat.channels == 3);
  CHECK(cat.width == 451);
  for (float v : cat.pixels)
    REQUIRE((v >= 0.0f && v <= 1.0f));
}

TEST_CASE("PNG 16-bit round trip keeps 16-bit precision; 8-bit rounds to 1/255") {
  test::TempDir dir;
  Image img = test::gradient_image(33, 17, 3);
  write_png(dir.path / "a16.png", img, 16);
  write_png(dir.path / "a8.png", img, 8);
  const Image b16 = load_image(dir.path / "a16.png");
  const Image b8 = load_image(dir.path / "a8.png");
  REQUIRE(b16.pixels.size() == img.pixels.size());
  double e16 = 0, e8 = 0;
  for (size_t i = 0; i < img.pixels.size(); ++i) {
    e16 = std::max(e16, double(std::abs(b16.pixels[i] - img.pixels[i])));
    e8 = std::max(e8, double(std::abs(b8.pixels[i] - img.pixels[i])));
  }
  CHECK(e16 <= 0.5 / 65535 + 1e-7);
  CHECK(e8 <= 0.5 / 255 + 1e-7);
  CHECK(e8 > e16);
}

TEST_CASE("JPEG, BMP, TGA and GIF (first frame) load") {
  test::TempDir dir;
  std::vector<uint8_t> rgb(16 * 8 * 3);
  for (size_t i = 0; i < rgb.size(); ++i)
    rgb[i] = uint8_t(i * 7);
  const auto base = dir.path.string();
  REQUIRE(stbi_write_bmp((base + "/a.bmp").c_str(), 16, 8, 3, rgb.data()));
  REQUIRE(stbi_write_tga((base + "/a.tga").c_str(), 16, 8, 3, rgb.data()));
  REQUIRE(stbi_write_jpg((base + "/a.jpg").c_str(), 16, 8, 3, rgb.data(), 95));
  for (const char* name : {"a.bmp", "a.tga", "a.jpg"}) {
    CAPTURE(name);
    const Image img = load_image(dir.path / name);
    CHECK(img.width == 16);
    CHECK(img.height == 8);
    CHECK(img.channels == 3);
  }
  // A two-frame GIF: the first frame is black, the second white.
  int err = 0;
  const std::string gif = base + "/a.gif";
  GifFileType* g = EGifOpenFileName(gif.c_str(), false, &err);
  REQUIRE(g);
  GifColorType colors[2] = {{0, 0, 0}, {255, 255, 255}};
  ColorMapObject* map = GifMakeMapObject(2, colors);
  REQUIRE(EGifPutScreenDesc(g, 4, 3, 1, 0, map) == GIF_OK);
  for (int frame = 0; frame < 2; ++frame) {
    REQUIRE(EGifPutImageDesc(g, 0, 0, 4, 3, false, nullptr) == GIF_OK);
    GifPixelType row[4] = {GifPixelType(frame), GifPixelType(frame), GifPixelType(frame), GifPixelType(frame)};
    for (int y = 0; y < 3; ++y)
      REQUIRE(EGifPutLine(g, row, 4) == GIF_OK);
  }
  GifFreeMapObject(map);
  REQUIRE(EGifCloseFile(g, &err) == GIF_OK);
  const Image first = load_image(gif);
  CHECK(first.width == 4);
  CHECK(first.height == 3);
  CHECK(first.pixels[0] == 0.0f);
}

TEST_CASE("alpha is composited onto the background; colour modes convert") {
  Image raw{2, 1, 4, {1, 0, 0, 0.5f, 0, 0, 1, 0}};
  const Image rgb = convert_color(raw, ColorMode::Rgb, 0.5f, {0, 1, 0});
  CHECK(rgb.pixels == std::vector<float>{0.5f, 0.5f, 0.0f, 0.0f, 1.0f, 0.0f});
  const Image gray = convert_color(raw, ColorMode::Gray, 0.5f, {1, 1, 1});
  CHECK(gray.channels == 1);
  CHECK(gray.pixels[0] == doctest::Approx(0.299 * 1.0 + 0.587 * 0.5 + 0.114 * 0.5));
  CHECK(gray.pixels[1] == doctest::Approx(1.0));
  const Image bin = convert_color(raw, ColorMode::Binary, 0.7f, {1, 1, 1});
  CHECK(bin.pixels == std::vector<float>{0.0f, 1.0f});
  Image ga{1, 1, 2, {0.2f, 0.25f}};
  CHECK(convert_color(ga, ColorMode::Gray, 0.5f, {1, 1, 1}).pixels[0] == doctest::Approx(0.2 * 0.25 + 0.75));
}

TEST_CASE("a conversion in the image's own buffer gives the copying conversion's pixels, for every channel count") {
  // Pixels with varied colour and alpha: each output pixel is written over the raw ones already read.
  for (int32_t channels = 1; channels <= 4; ++channels) {
    Image raw{37, 11, channels, {}};
    raw.pixels.resize(size_t(37 * 11 * channels));
    for (size_t e = 0; e < raw.pixels.size(); ++e) raw.pixels[e] = float((e * 7919) % 1000) / 999.0f;
    for (ColorMode mode : {ColorMode::Auto, ColorMode::Rgb, ColorMode::Gray, ColorMode::Binary}) {
      CAPTURE(channels);
      CAPTURE(int(mode));
      const Image copied = convert_color(raw, mode, 0.4f, {0.1f, 0.9f, 0.3f});
      Image moved_from = raw;
      const float* buffer = moved_from.pixels.data();
      const Image in_place = convert_color(std::move(moved_from), mode, 0.4f, {0.1f, 0.9f, 0.3f});
      CHECK(in_place.width == copied.width);
      CHECK(in_place.height == copied.height);
      CHECK(in_place.channels == copied.channels);
      CHECK(in_place.pixels == copied.pixels);
      // RGB from RGB or RGBA stays in the photo's buffer (no second copy of a photo's floats).
      if (copied.channels == 3 && channels >= 3) CHECK(in_place.pixels.data() == buffer);
    }
  }
  // At its own size an area resize hands the image over; at another size it resamples a copy.
  Image img = test::gradient_image(20, 10, 3);
  const Image expected = img;
  const float* buffer = img.pixels.data();
  const Image same = resize_area(std::move(img), 20, 10);
  CHECK(same.pixels.data() == buffer);
  CHECK(same.pixels == expected.pixels);
  CHECK(resize_area(Image(expected), 10, 5).pixels == resize_area(expected, 10, 5).pixels);
}

TEST_CASE("area resize averages blocks exactly; training size keeps the aspect") {
  Image img{4, 2, 1, {0, 1, 2, 3, 4, 5, 6, 7}};
  for (float& v : img.pixels)
    v /= 8.0f;
  const Image half = resize_area(img, 2, 1);
  CHECK(half.pixels[0] == doctest::Approx((0 + 1 + 4 + 5) / 32.0));
  CHECK(half.pixels[1] == doctest::Approx((2 + 3 + 6 + 7) / 32.0));
  DataSpec spec;
  spec.max_side = 200;
  int32_t w = 0, h = 0;
  training_size(spec, 400, 328, w, h);
  CHECK(w == 200);
  CHECK(h == 164);
  training_size(spec, 100, 50, w, h);
  CHECK(w == 100);
  spec.width = 20000;
  spec.height = 20000;
  CHECK_THROWS_AS(training_size(spec, 100, 50, w, h), ConfigError);
}

TEST_CASE("binary mode thresholds the drawing") {
  DataSpec spec;
  spec.color_mode = ColorMode::Binary;
  spec.width = 200;
  spec.height = 200;
  const Image img = prepare_training_image(test::sample("horse.png"), spec);
  CHECK(img.channels == 1);
  int black = 0;
  for (float v : img.pixels) {
    REQUIRE((v == 0.0f || v == 1.0f));
    black += v == 0.0f;
  }
  CHECK(black > 200);   // the horse's strokes
  CHECK(black < 20000); // on a white page
}

TEST_CASE("bad image files give a clear error naming the file") {
  test::TempDir dir;
  check_image_error(dir.path / "missing.png", "no such file");
  check_image_error(dir.path, "directory");
  test::write_bytes(dir.path / "empty.png", {});
  check_image_error(dir.path / "empty.png", "empty");
  test::write_bytes(dir.path / "garbage.png", std::vector<uint8_t>(300, 0x5a));
  check_image_error(dir.path / "garbage.png", "not a readable");
  auto horse = test::read_bytes(test::sample("horse.png"));
  test::write_bytes(dir.path / "truncated.png",
                    std::vector<uint8_t>(horse.begin(), horse.begin() + long(horse.size() / 3)));
  check_image_error(dir.path / "truncated.png", "corrupt or truncated");
  check_image_error(dir.path / "truncated.png", "the file ends before the image does");
  test::write_bytes(dir.path / "huge.png", png_header_claiming(100000, 100000));
  check_image_error(dir.path / "huge.png", "over the limit");
  test::write_bytes(dir.path / "wide.png", png_header_claiming(60000, 60000));
  check_image_error(dir.path / "wide.png", "over the limit");
}

TEST_CASE("PSNR: closed form") {
  CHECK(psnr_db(0.01) == doctest::Approx(20.0));
  CHECK(psnr_db(1e-4) == doctest::Approx(40.0));
  CHECK(std::isinf(psnr_db(0.0)));
}

TEST_CASE("write_png refuses a bad destination and leaves nothing behind") {
  test::TempDir dir;
  const Image img = test::gradient_image(8, 8, 1);
  CHECK_THROWS_AS(write_png(dir.path / "nope" / "x.png", img), IoError);
  CHECK_THROWS_AS(write_png(dir.path, img), IoError);
  CHECK_THROWS_AS(write_png("/dev/full/x.png", img), IoError);
  CHECK(test::files_in(dir.path) == 0);
}

TEST_CASE("truncated BMP and TGA files are refused, not read as black") {
  test::TempDir dir;
  const int w = 40, h = 30; // 120-byte BMP rows: no padding, so every byte holds pixel data
  const auto rgb = test_pattern(w, h);
  const std::vector<std::pair<const char*, std::vector<uint8_t>>> files = {{"a.bmp", bmp_file(w, h, rgb)},
                                                                           {"raw.tga", tga_file(w, h, 3, rgb, false)},
                                                                           {"rle.tga", tga_file(w, h, 3, rgb, true)}};
  REQUIRE(files[2].second.size() < files[1].second.size()); // the runs were coded
  for (const auto& file : files) {
    const char* name = file.first; // (not a structured binding: clang 14 cannot capture one in CAPTURE)
    const std::vector<uint8_t>& bytes = file.second;
    CAPTURE(std::string(name));
    test::write_bytes(dir.path / name, bytes);
    check_pixels(load_image(dir.path / name), w, h, 3, rgb); // whole, it loads exactly
    for (size_t keep : {bytes.size() - 1, bytes.size() * 2 / 3, size_t(60)}) {
      CAPTURE(keep);
      const auto cut = dir.path / ("cut-" + std::string(name));
      test::write_bytes(cut, std::vector<uint8_t>(bytes.begin(), bytes.begin() + long(keep)));
      check_image_error(cut, "truncated");
    }
  }
}

TEST_CASE("a top-down BMP (negative height) decodes the right way up, as its bottom-up twin does") {
  test::TempDir dir;
  const int w = 40, h = 30; // 120-byte rows: no padding
  const auto rgb = test_pattern(w, h);
  const std::vector<uint8_t> bottom_up = bmp_file(w, h, rgb);
  // The same picture stored top row first: the rows in the file reversed, the height negated.
  std::vector<uint8_t> top_down = bottom_up;
  const size_t offset = size_t(bottom_up[10]) | size_t(bottom_up[11]) << 8, row = size_t(w) * 3;
  for (int y = 0; y < h; ++y)
    std::copy_n(bottom_up.begin() + long(offset + size_t(h - 1 - y) * row), row,
                top_down.begin() + long(offset + size_t(y) * row));
  const uint32_t negative = uint32_t(-h);
  for (int i = 0; i < 4; ++i)
    top_down[22 + i] = uint8_t(negative >> (8 * i));
  test::write_bytes(dir.path / "up.bmp", bottom_up);
  test::write_bytes(dir.path / "down.bmp", top_down);
  check_pixels(load_image(dir.path / "up.bmp"), w, h, 3, rgb);
  check_pixels(load_image(dir.path / "down.bmp"), w, h, 3, rgb);
  const ImageInfo info = probe_image_file(dir.path / "down.bmp");
  CHECK(info.width == w);
  CHECK(info.height == h);
  // Cut short, the top-down file is refused as truncated too.
  test::write_bytes(dir.path / "cut.bmp", std::vector<uint8_t>(top_down.begin(), top_down.end() - 200));
  check_image_error(dir.path / "cut.bmp", "truncated");
  // A negative width, or the most negative height, is no size at all: refused by the probe too.
  std::vector<uint8_t> bad = top_down;
  for (int i = 0; i < 4; ++i)
    bad[18 + i] = uint8_t(negative >> (8 * i));
  test::write_bytes(dir.path / "bad.bmp", bad);
  check_image_error(dir.path / "bad.bmp", "corrupt");
  CHECK_THROWS_AS(probe_image_file(dir.path / "bad.bmp"), ImageError);
  bad = top_down;
  bad[22] = bad[23] = bad[24] = 0;
  bad[25] = 0x80;
  test::write_bytes(dir.path / "min.bmp", bad);
  CHECK_THROWS_AS(probe_image_file(dir.path / "min.bmp"), ImageError);
  check_image_error(dir.path / "min.bmp", "corrupt");
}

TEST_CASE("a header claiming more pixels than the file can hold is refused before decoding") {
  test::TempDir dir;
  // 54 bytes claiming 16384 x 16384 (268 Mpixel, 0.8 GB to decode as black), and at 1 bit per pixel.
  test::write_bytes(dir.path / "absurd.bmp", bmp_header_claiming(16384, 16384, 24));
  check_image_error(dir.path / "absurd.bmp", "more than a 54-byte BMP file can hold");
  test::write_bytes(dir.path / "absurd1.bmp", bmp_header_claiming(16384, 16384, 1));
  check_image_error(dir.path / "absurd1.bmp", "more than a 62-byte BMP file can hold");
  // A run-length TGA header with a few runs, claiming 16384 x 16384.
  std::vector<uint8_t> tga = tga_file(2, 2, 1, {7, 7, 7, 7}, true);
  tga[12] = tga[14] = 0;
  tga[13] = tga[15] = 0x40;
  test::write_bytes(dir.path / "absurd.tga", tga);
  check_image_error(dir.path / "absurd.tga", "-byte TGA file can hold");

  // Files that really are that dense still load: 1 bit per pixel, and the densest RLE (a
  // two-byte packet for 128 grey pixels).
  std::vector<uint8_t> bmp1 = bmp_header_claiming(256, 4, 1);
  std::vector<uint8_t> want1;
  for (int row = 0; row < 4; ++row)
    for (int i = 0; i < 32; ++i)
      bmp1.push_back(uint8_t(0xf0 >> row));
  for (int y = 3; y >= 0; --y) // BMP rows are stored bottom-up
    for (int x = 0; x < 256; ++x)
      want1.push_back(((0xf0 >> y) >> (7 - x % 8)) & 1 ? 255 : 0);
  test::write_bytes(dir.path / "dense.bmp", bmp1);
  const Image dense = load_image(dir.path / "dense.bmp");
  REQUIRE(dense.channels == 3); // stb expands a palette to RGB
  for (size_t p = 0; p < want1.size(); ++p)
    REQUIRE(dense.pixels[3 * p] == float(want1[p]) / 255.0f);
  const std::vector<uint8_t> flat(256 * 64, 200);
  const auto rle = tga_file(256, 64, 1, flat, true);
  CHECK(rle.size() == 18 + 2 * 128);
  test::write_bytes(dir.path / "dense.tga", rle);
  check_pixels(load_image(dir.path / "dense.tga"), 256, 64, 1, flat);
  // The smallest TGA there is, which stb's format probes could mistake for a short file.
  test::write_bytes(dir.path / "one.tga", tga_file(1, 1, 3, {10, 20, 30}, false));
  check_pixels(load_image(dir.path / "one.tga"), 1, 1, 3, {10, 20, 30});
}

TEST_CASE("a PNG write that fails part-way throws IoError naming the file and prints nothing") {
  test::TempDir dir;
  Image img;
  img.width = img.height = 256;
  img.channels = 3;
  uint32_t state = 1;
  for (int i = 0; i < 256 * 256 * 3; ++i) { // incompressible: about 196 KB of PNG
    state = state * 1664525u + 1013904223u;
    img.pixels.push_back(float(state >> 24) / 255.0f);
  }
  // A file size limit stands in for a full disk: writes past 32 KiB fail with EFBIG.
  rlimit old_limit{};
  REQUIRE(getrlimit(RLIMIT_FSIZE, &old_limit) == 0);
  rlimit small = old_limit;
  small.rlim_cur = std::min<rlim_t>(old_limit.rlim_max, 32 << 10);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  const auto log = dir.path / "stderr.txt";
  std::fflush(stderr);
  const int saved_stderr = dup(2);
  const int log_fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  REQUIRE(log_fd >= 0);
  dup2(log_fd, 2);
  close(log_fd);
  REQUIRE(setrlimit(RLIMIT_FSIZE, &small) == 0);
  std::string what;
  try {
    PngStreamWriter writer(dir.path / "big.png", img.width, img.height, img.channels, 8);
    writer.write_rows(img.pixels.data(), img.height);
    writer.commit();
  } catch (const IoError& e) {
    what = e.what();
  }
  setrlimit(RLIMIT_FSIZE, &old_limit);
  std::fflush(stderr);
  dup2(saved_stderr, 2);
  close(saved_stderr);
  std::signal(SIGXFSZ, old_handler);
  CAPTURE(what);
  CHECK(what.find((dir.path / "big.png").string()) != std::string::npos);
  CHECK(what.find("write failed") != std::string::npos);
  const auto printed = test::read_bytes(log);
  CHECK(std::string(printed.begin(), printed.end()) == "");
  CHECK(!std::filesystem::exists(dir.path / "big.png"));
}
