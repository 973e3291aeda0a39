// Image loading, colour modes, resizing, PNG writing, PSNR, and every kind of bad image file.
#include "test_support.h"

#include "engine/errors.h"
#include "engine/image.h"

#include <doctest/doctest.h>
#include <gif_lib.h>
#include <stb/stb_image_write.h>
#include <zlib.h>

#include <cmath>

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
} // namespace

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
  Image raw;
  raw.width = 2;
  raw.height = 1;
  raw.channels = 4;
  raw.pixels = {1, 0, 0, 0.5f, 0, 0, 1, 0};
  const Image rgb = convert_color(raw, ColorMode::Rgb, 0.5f, {0, 1, 0});
  CHECK(rgb.pixels == std::vector<float>{0.5f, 0.5f, 0.0f, 0.0f, 1.0f, 0.0f});
  const Image gray = convert_color(raw, ColorMode::Gray, 0.5f, {1, 1, 1});
  CHECK(gray.channels == 1);
  CHECK(gray.pixels[0] == doctest::Approx(0.299 * 1.0 + 0.587 * 0.5 + 0.114 * 0.5));
  CHECK(gray.pixels[1] == doctest::Approx(1.0));
  const Image bin = convert_color(raw, ColorMode::Binary, 0.7f, {1, 1, 1});
  CHECK(bin.pixels == std::vector<float>{0.0f, 1.0f});
  Image ga;
  ga.width = 1;
  ga.height = 1;
  ga.channels = 2;
  ga.pixels = {0.2f, 0.25f};
  CHECK(convert_color(ga, ColorMode::Gray, 0.5f, {1, 1, 1}).pixels[0] == doctest::Approx(0.2 * 0.25 + 0.75));
}

TEST_CASE("area resize averages blocks exactly; training size keeps the aspect") {
  Image img;
  img.width = 4;
  img.height = 2;
  img.channels = 1;
  img.pixels = {0, 1, 2, 3, 4, 5, 6, 7};
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
