// Every format load_image offers, from fixtures written here by libvips' savers and the OpenEXR
// library, checked against the picture they were written from (and the orientations against
// turns written out below, not libvips' own autorotate).
#include "test_support.h"

#include "engine/errors.h"
#include "engine/export/export_writers.h"
#include "engine/export/gif_writer.h"
#include "engine/images/image.h"

#include <doctest/doctest.h>
#include <ImfRgbaFile.h>
#include <vips/vips.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

using namespace redraw;

namespace {

/// The picture as 8-bit samples for libvips (a VipsImage the caller unrefs).
VipsImage* to_vips(const Image& img, bool sixteen = false) {
  const size_t n = img.pixels.size();
  VipsImage* out = nullptr;
  if (sixteen) {
    std::vector<uint16_t> px(n);
    for (size_t i = 0; i < n; ++i)
      px[i] = uint16_t(std::lround(std::clamp(img.pixels[i], 0.0f, 1.0f) * 65535.0f));
    out = vips_image_new_from_memory_copy(px.data(), n * 2, img.width, img.height, img.channels, VIPS_FORMAT_USHORT);
    if (out) out->Type = img.channels >= 3 ? VIPS_INTERPRETATION_RGB16 : VIPS_INTERPRETATION_GREY16;
  } else {
    std::vector<uint8_t> px(n);
    for (size_t i = 0; i < n; ++i)
      px[i] = uint8_t(std::lround(std::clamp(img.pixels[i], 0.0f, 1.0f) * 255.0f));
    out = vips_image_new_from_memory_copy(px.data(), n, img.width, img.height, img.channels, VIPS_FORMAT_UCHAR);
    if (out) out->Type = img.channels >= 3 ? VIPS_INTERPRETATION_sRGB : VIPS_INTERPRETATION_B_W;
  }
  REQUIRE(out);
  return out;
}

/// Saves `img` with libvips to `file` (the saver and its options from the name, "x.jpg[Q=95]").
void vips_write(const Image& img, const std::string& file, bool sixteen = false,
                const std::function<void(VipsImage*)>& tweak = {}) {
  load_image(test::sample("horse.png")); // starts libvips the way Redraw does
  VipsImage* v = to_vips(img, sixteen);
  if (tweak) tweak(v);
  const int rc = vips_image_write_to_file(v, file.c_str(), nullptr);
  g_object_unref(v);
  if (rc != 0) FAIL("libvips could not write " << file << ": " << vips_error_buffer());
}

/// Saves `img` through libvips' own CMYK profile as a JPEG `file` ("x.jpg[Q=95]").
void write_cmyk_jpeg(const Image& img, const std::string& file) {
  VipsImage* rgb = to_vips(img);
  VipsImage* cmyk = nullptr;
  REQUIRE(vips_icc_export(rgb, &cmyk, "output_profile", "cmyk", nullptr) == 0);
  REQUIRE(vips_image_write_to_file(cmyk, file.c_str(), nullptr) == 0);
  g_object_unref(cmyk);
  g_object_unref(rgb);
}

/// The sample photo at a small size, so every codec gets real texture.
Image photo(int32_t w = 96, int32_t h = 64) { return resize_area(load_image(test::sample("chelsea.png")), w, h); }

double psnr(const Image& a, const Image& b) {
  REQUIRE(a.width == b.width);
  REQUIRE(a.height == b.height);
  REQUIRE(a.channels == b.channels);
  double se = 0;
  for (size_t i = 0; i < a.pixels.size(); ++i)
    se += double(a.pixels[i] - b.pixels[i]) * double(a.pixels[i] - b.pixels[i]);
  return psnr_db(se / double(a.pixels.size()));
}

/// EXIF orientation o as a viewer applies it, written as turns and mirrors of a stored picture.
Image shown(const Image& s, int o) {
  const bool swap = o >= 5;
  Image d;
  d.width = swap ? s.height : s.width;
  d.height = swap ? s.width : s.height;
  d.channels = s.channels;
  d.pixels.resize(s.pixels.size());
  const int W = s.width, H = s.height;
  for (int32_t y = 0; y < d.height; ++y)
    for (int32_t x = 0; x < d.width; ++x) {
      int sx = x, sy = y;
      switch (o) {
      case 2: sx = W - 1 - x; break;                  // mirror horizontal
      case 3: sx = W - 1 - x, sy = H - 1 - y; break;  // rotate 180
      case 4: sy = H - 1 - y; break;                  // mirror vertical
      case 5: sx = y, sy = x; break;                  // mirror horizontal, rotate 270 CW
      case 6: sx = y, sy = H - 1 - x; break;          // rotate 90 CW
      case 7: sx = W - 1 - y, sy = H - 1 - x; break;  // mirror horizontal, rotate 90 CW
      case 8: sx = W - 1 - y, sy = x; break;          // rotate 270 CW
      default: break;
      }
      for (int c = 0; c < s.channels; ++c)
        d.at(x, y, c) = s.at(sx, sy, c);
    }
  return d;
}

std::string image_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ImageError& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST_CASE("formats: WebP and TIFF 8 and 16 bit and HEIC and AVIF and CMYK JPEG load as the picture they were written from") {
  test::TempDir dir;
  const Image src = photo();
  const std::string d = dir.path.string();
  struct Case {
    std::string file, format;
    double min_psnr;
    bool sixteen = false;
  };
  const Case cases[] = {
      {d + "/a.webp[lossless]", "WebP", 99}, // lossless: exact
      {d + "/a.tif", "TIFF", 99},
      {d + "/a16.tif", "TIFF", 99, true},
      {d + "/a.heic[Q=90,compression=hevc]", "HEIF", 30},
      {d + "/a.avif[Q=90,compression=av1]", "AVIF", 30},
      {d + "/a.jpg[Q=95]", "JPEG", 30},
  };
  for (const Case& c : cases) {
    CAPTURE(c.file);
    vips_write(src, c.file, c.sixteen);
    const std::string path = c.file.substr(0, c.file.find('['));
    ImageInfo info;
    const Image back = load_image(path, {}, {}, &info);
    CHECK(info.format == c.format);
    CHECK(info.width == src.width);
    CHECK(info.height == src.height);
    CHECK(info.bits == (c.sixteen ? 16 : 8));
    REQUIRE(back.channels == 3);
    if (c.sixteen) {
      CHECK(test::max_abs_diff(back, src) <= 0.5 / 65535 + 1e-6); // 16 bits survive
    } else if (c.min_psnr > 90) {
      CHECK(test::max_abs_diff(back, src) <= 0.5 / 255 + 1e-6);
    } else {
      CHECK(psnr(back, src) > c.min_psnr);
    }
  }
  // CMYK: libvips' own CMYK profile out and back; the picture must come back in sRGB.
  write_cmyk_jpeg(src, d + "/cmyk.jpg[Q=98]");
  ImageInfo info;
  const Image back = load_image(d + "/cmyk.jpg", {}, {}, &info);
  CHECK(info.colour.find("CMYK") != std::string::npos);
  CHECK(info.channels == 4);
  REQUIRE(back.channels == 3);
  CHECK(psnr(back, src) > 22); // CMYK's gamut and the profile's round trip, not the JPEG, limit this
}

TEST_CASE("formats: OpenEXR gets the sRGB curve and HDR values are clamped and the notes say so") {
  test::TempDir dir;
  const Image src = photo(40, 30);
  const auto to_linear = [](float v) {
    return v <= 0.04045f ? v / 12.92f : std::pow((v + 0.055f) / 1.055f, 2.4f);
  };
  std::vector<Imf::Rgba> px(size_t(src.width) * size_t(src.height));
  for (size_t i = 0; i < px.size(); ++i)
    px[i] = Imf::Rgba(to_linear(src.pixels[3 * i]), to_linear(src.pixels[3 * i + 1]),
                      i == 0 ? 4.0f : to_linear(src.pixels[3 * i + 2]), 1.0f);
  const std::string file = (dir.path / "a.exr").string();
  {
    Imf::RgbaOutputFile out(file.c_str(), src.width, src.height, Imf::WRITE_RGB);
    out.setFrameBuffer(px.data(), 1, size_t(src.width));
    out.writePixels(src.height);
  }
  ImageInfo info;
  const Image back = load_image(file, {}, {}, &info);
  CHECK(info.format == "OpenEXR");
  CHECK(info.bits == 32);
  REQUIRE(back.channels == 3);
  CHECK(back.pixels[2] == 1.0f); // 4.0 clamped
  bool said = false;
  for (const std::string& n : info.notes)
    said = said || n.find("clamped") != std::string::npos;
  CHECK(said);
  Image expect = src;
  expect.pixels[2] = 1.0f;
  CHECK(test::max_abs_diff(back, expect) < 2e-3); // half precision
  // Truncated: refused, never read as black.
  auto bytes = test::read_bytes(file);
  bytes.resize(bytes.size() * 2 / 3);
  CHECK(image_error_of([&] { decode_image(bytes.data(), bytes.size(), "cut.exr"); }).find("cut.exr") == 0);
}

TEST_CASE("formats: every EXIF orientation is applied as a viewer applies it and info reports it") {
  test::TempDir dir;
  const Image stored = photo(48, 32);
  for (int o = 1; o <= 8; ++o) {
    CAPTURE(o);
    const std::string file = (dir.path / ("o" + std::to_string(o) + ".jpg")).string();
    vips_write(stored, file + "[Q=97]", false, [&](VipsImage* v) { vips_image_set_int(v, "orientation", o); });
    ImageInfo info;
    const Image back = load_image(file, {}, {}, &info);
    CHECK(info.orientation == o);
    const Image expect = shown(stored, o);
    CHECK(info.width == expect.width);
    CHECK(info.height == expect.height);
    CHECK(psnr(back, expect) > 30);
    if (o >= 2 && o <= 4) CHECK(psnr(back, stored) < psnr(back, expect) - 5); // not left as stored
    const ImageInfo probed = probe_image_file(file);
    CHECK(probed.width == expect.width);
    CHECK(probed.orientation == o);
  }
}

TEST_CASE("formats: a JPEG larger than the training size is shrunk on load to no less than that size") {
  test::TempDir dir;
  const Image big = resize_area(load_image(test::sample("chelsea.png")), 400, 264);
  const std::string file = (dir.path / "big.jpg").string();
  vips_write(big, file + "[Q=95]", false, [](VipsImage* v) { vips_image_set_int(v, "orientation", 6); });
  ImageInfo info;
  const Image shrunk = load_image(file, {}, DecodeOptions{60, 90}, &info); // shown 264 x 400
  CHECK(info.shrink == 4);
  CHECK(shrunk.width == 66);
  CHECK(shrunk.height == 100);
  CHECK(info.width == 264); // the file's own size, as shown
  // The same training image as a full decode, within the JPEG's own error.
  DataSpec spec;
  spec.max_side = 90;
  spec.color_mode = ColorMode::Rgb;
  int32_t nw = 0, nh = 0;
  ImageInfo used;
  const Image fast = prepare_training_image(file, spec, {}, &nw, &nh, &used);
  CHECK(used.shrink == 4);
  CHECK(nw == 264);
  CHECK(nh == 400);
  const Image full = resize_area(load_image(file), fast.width, fast.height);
  CHECK(fast.width == 59);
  CHECK(fast.height == 90);
  CHECK(psnr(fast, full) > 35);
}

TEST_CASE("formats: a PNG with wrong CRCs opens with a note and a truncated one is still refused") {
  const Image src = test::gradient_image(9, 9, 1);
  auto png = encode_png(src);
  const auto idat = std::search(png.begin(), png.end(), std::begin("IDAT"), std::end("IDAT") - 1) - png.begin();
  const size_t len = (size_t(png[size_t(idat) - 4]) << 24) | (size_t(png[size_t(idat) - 3]) << 16) |
                     (size_t(png[size_t(idat) - 2]) << 8) | png[size_t(idat) - 1];
  png[size_t(idat) + 4 + len] ^= 0x55;   // the IDAT chunk's CRC
  png[png.size() - 1] ^= 0x0f;           // IEND's
  ImageInfo info;
  const Image img = decode_image(png.data(), png.size(), "crc.png", {}, {}, &info);
  CHECK(test::max_abs_diff(img, src) <= 0.5 / 255 + 1e-6);
  REQUIRE(!info.notes.empty());
  CHECK(info.notes.back().find("2 PNG chunk(s) with a wrong CRC") != std::string::npos);
  // A wrong Adler-32 at the end of the zlib stream (its CRC put right): read too, as browsers do.
  auto adler = encode_png(src);
  adler[size_t(idat) + 4 + len - 1] ^= 0x01;
  const Image a = decode_image(adler.data(), adler.size(), "adler.png");
  CHECK(test::max_abs_diff(a, src) <= 0.5 / 255 + 1e-6);
  const std::vector<uint8_t> cut(png.begin(), png.begin() + long(png.size() / 2));
  CHECK(image_error_of([&] { decode_image(cut.data(), cut.size(), "cut.png"); }).find("cut.png: corrupt or truncated") == 0);
}

TEST_CASE("formats: loaders Redraw does not enable are refused") {
  const std::string svg = "<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"8\" height=\"8\">"
                          "<rect width=\"8\" height=\"8\" fill=\"red\"/></svg>";
  const std::string pdf = "%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n";
  for (const std::string& s : {svg, pdf}) {
    const std::string e = image_error_of([&] { decode_image(reinterpret_cast<const uint8_t*>(s.data()), s.size(), "x"); });
    CHECK(e.find("not a readable image") != std::string::npos);
  }
  // A Windows icon (a format no enabled loader knows): the error lists what Redraw reads instead
  // of a decoder's "unknown image type".
  const uint8_t ico[] = {0, 0, 1, 0, 1, 0, 16, 16, 0, 0, 1, 0, 32, 0, 0x68, 4, 0, 0, 22, 0, 0, 0};
  const std::string e = image_error_of([&] { decode_image(ico, sizeof ico, "app.ico"); });
  CHECK(e.find("app.ico: not a readable image (unknown format; Redraw reads PNG, JPEG") == 0);
}

TEST_CASE("formats: the memory budget refuses a WebP from its header before decoding") {
  test::TempDir dir;
  const std::string file = (dir.path / "a.webp").string();
  vips_write(photo(96, 64), file + "[Q=80]");
  DecodeLimits tight;
  tight.max_bytes = 96 * 64 * 3 * 6 - 1; // libwebp's copy, ours, and the floats
  CHECK(image_error_of([&] { load_image(file, tight); }).find("memory budget") != std::string::npos);
  tight.max_bytes += 1;
  CHECK(load_image(file, tight).width == 96);
}

TEST_CASE("formats: image_extensions and image_mime_types cover the new formats") {
  for (const char* e : {".png", ".jpg", ".webp", ".tif", ".tiff", ".heic", ".avif", ".exr"})
    CHECK(std::find(image_extensions().begin(), image_extensions().end(), e) != image_extensions().end());
  for (const char* m : {"image/webp", "image/tiff", "image/heic", "image/avif", "image/x-exr"})
    CHECK(std::find(image_mime_types().begin(), image_mime_types().end(), m) != image_mime_types().end());
}

TEST_CASE("formats: a short SIREN fit from each format is within 1 dB of the same fit from a PNG") {
  // PSNR of each fit against its own decoded picture, the target it trained on.
  test::TempDir dir;
  const Image src = photo(64, 40);
  const std::string d = dir.path.string();
  write_png(d + "/ref.png", src);
  vips_write(src, d + "/a.webp[Q=90]");
  vips_write(src, d + "/a.tif");
  vips_write(src, d + "/a16.tif", true);
  vips_write(src, d + "/a.heic[Q=90,compression=hevc]");
  vips_write(src, d + "/a.avif[Q=90,compression=av1]");
  // Stored turned anticlockwise with orientation 6: shown (and trained) as `src`.
  Image turned;
  turned.width = src.height, turned.height = src.width, turned.channels = 3;
  turned.pixels.resize(src.pixels.size());
  for (int32_t y = 0; y < turned.height; ++y)
    for (int32_t x = 0; x < turned.width; ++x)
      for (int c = 0; c < 3; ++c)
        turned.at(x, y, c) = src.at(src.width - 1 - y, x, c);
  vips_write(turned, d + "/o6.jpg[Q=95]", false, [](VipsImage* v) { vips_image_set_int(v, "orientation", 6); });
  write_cmyk_jpeg(src, d + "/cmyk.jpg[Q=95]");
  {
    std::vector<Imf::Rgba> px(size_t(src.width) * size_t(src.height));
    const auto lin = [](float v) { return v <= 0.04045f ? v / 12.92f : std::pow((v + 0.055f) / 1.055f, 2.4f); };
    for (size_t i = 0; i < px.size(); ++i)
      px[i] = Imf::Rgba(lin(src.pixels[3 * i]), lin(src.pixels[3 * i + 1]), lin(src.pixels[3 * i + 2]), 1.0f);
    Imf::RgbaOutputFile out((d + "/a.exr").c_str(), src.width, src.height, Imf::WRITE_RGB);
    out.setFrameBuffer(px.data(), 1, size_t(src.width));
    out.writePixels(src.height);
  }
  RunConfig cfg = test::siren_config(32);
  cfg.training.seed = 3;
  cfg.data.color_mode = ColorMode::Rgb;
  cfg.data.max_side = 64; // the size follows the picture as shown: a sideways decode would be 40 x 64
  const auto fit = [&](const std::string& file) {
    Image target = prepare_training_image(file, cfg.data);
    CHECK(target.width == 64);
    CHECK(target.height == 40);
    if (target.width == 64 && target.height == 40) CHECK(psnr(target, src) > 20); // the same picture, upright
    Trainer t(std::make_unique<CpuBackend>(), cfg, Dataset{std::move(target)});
    t.run(150);
    return t.measure().psnr_db;
  };
  const double reference = fit(d + "/ref.png");
  MESSAGE("PNG: " << reference << " dB after 150 steps");
  for (const std::string name : {"a.webp", "a.tif", "a16.tif", "a.heic", "a.avif", "o6.jpg", "cmyk.jpg", "a.exr"}) {
    CAPTURE(name);
    const double p = fit(d + "/" + name);
    MESSAGE(name << ": " << p << " dB");
    CHECK(std::abs(p - reference) <= 1.0);
  }
}

TEST_CASE("formats: 16-bit TIFF and float EXR exports read back as written and leave nothing when abandoned") {
  test::TempDir dir;
  const Image img = test::gradient_image(37, 21, 3);
  for (const std::string name : {"e.tif", "e.exr", "e.png"}) {
    CAPTURE(name);
    const auto path = dir.path / name;
    {
      const auto w = open_row_writer(path, img.width, img.height, img.channels, 16);
      w->write_rows(img.pixels.data(), 10); // two bands, as a render streams them
      w->write_rows(img.pixels.data() + size_t(10) * 37 * 3, 11);
      w->commit();
    }
    ImageInfo info;
    const Image back = load_image(path, {}, {}, &info);
    CHECK(info.bits == (name == "e.exr" ? 32 : 16));
    // The EXR decoder reads through OpenEXR's RGBA interface, in half precision (11 bits).
    CHECK(test::max_abs_diff(back, img) <= (name == "e.exr" ? 5e-4 : 0.5 / 65535 + 1e-6));
    {
      const auto w = open_row_writer(dir.path / ("x" + name), img.width, img.height, img.channels, 16);
      w->write_rows(img.pixels.data(), 5); // then dropped: an error or a cancel
    }
    CHECK(!std::filesystem::exists(dir.path / ("x" + name)));
  }
  CHECK(test::files_in(dir.path) == 3); // no temp file left
}

TEST_CASE("formats: the first page of a multi-page TIFF is decoded and the notes say so") {
  test::TempDir dir;
  Image pages = test::gradient_image(20, 24, 3); // two 20 x 12 pages, stacked
  for (int32_t y = 12; y < 24; ++y)
    for (int32_t x = 0; x < 20; ++x)
      for (int c = 0; c < 3; ++c)
        pages.at(x, y, c) = 1.0f; // the second page is white
  const std::string file = (dir.path / "two.tif").string();
  vips_write(pages, file, false, [](VipsImage* v) { vips_image_set_int(v, "page-height", 12); });
  ImageInfo info;
  const Image first = load_image(file, {}, {}, &info);
  CHECK(info.pages == 2);
  CHECK(first.height == 12);
  CHECK(first.pixels[0] < 0.99f); // the gradient, not the white page
  bool said = false;
  for (const std::string& n : info.notes)
    said = said || n.find("first of 2") != std::string::npos;
  CHECK(said);
}

TEST_CASE("formats: an animated GIF's first frame is decoded and the notes count the frames") {
  test::TempDir dir;
  const std::string file = (dir.path / "three.gif").string();
  {
    GifWriter gif(file, 8, 6, 1, 10.0);
    for (int k = 0; k < 3; ++k) {
      Image f = test::gradient_image(8, 6, 1);
      if (k > 0) std::fill(f.pixels.begin(), f.pixels.end(), 1.0f); // later frames white
      gif.add_frame(f);
    }
    gif.commit();
  }
  ImageInfo info;
  const Image first = load_image(file, {}, {}, &info);
  CHECK(info.pages == 3);
  CHECK(first.width == 8);
  CHECK(*std::min_element(first.pixels.begin(), first.pixels.end()) < 0.9f); // the gradient, not a white frame
  bool said = false;
  for (const std::string& n : info.notes)
    said = said || n.find("first of 3 frames") != std::string::npos;
  CHECK(said);
  // A single frame says nothing.
  const std::string one = (dir.path / "one.gif").string();
  {
    GifWriter gif(one, 4, 4, 1, 10.0);
    gif.add_frame(test::gradient_image(4, 4, 1));
    gif.commit();
  }
  ImageInfo single;
  (void)load_image(one, {}, {}, &single);
  CHECK(single.pages == 1);
  CHECK(single.notes.empty());
}

TEST_CASE("formats: an 8-bit CIELab TIFF (three samples) is three channels and comes back as its sRGB picture") {
  test::TempDir dir;
  const Image src = photo();
  load_image(test::sample("horse.png")); // starts libvips the way Redraw does
  VipsImage* rgb = to_vips(src);
  VipsImage *lab = nullptr, *labq = nullptr;
  REQUIRE(vips_colourspace(rgb, &lab, VIPS_INTERPRETATION_LAB, nullptr) == 0);
  REQUIRE(vips_Lab2LabQ(lab, &labq, nullptr) == 0); // what libvips' TIFF saver writes as 8-bit CIELab
  const std::string file = (dir.path / "lab.tif").string();
  REQUIRE(vips_image_write_to_file(labq, file.c_str(), nullptr) == 0);
  g_object_unref(labq);
  g_object_unref(lab);
  g_object_unref(rgb);
  // The file's own first IFD: photometric CIELab (tag 262 = 8), three samples (tag 277).
  const auto bytes = test::read_bytes(file);
  REQUIRE(bytes.size() > 8);
  const bool le = bytes[0] == 'I';
  const auto u16 = [&](size_t o) { return le ? bytes[o] | (bytes[o + 1] << 8) : (bytes[o] << 8) | bytes[o + 1]; };
  const auto u32 = [&](size_t o) { return le ? uint32_t(u16(o)) | (uint32_t(u16(o + 2)) << 16) : (uint32_t(u16(o)) << 16) | u16(o + 2); };
  const size_t ifd = u32(4);
  int photometric = -1, samples = -1;
  for (int e = 0; e < u16(ifd); ++e) {
    const size_t at = ifd + 2 + size_t(e) * 12;
    if (u16(at) == 262) photometric = u16(at + 8);
    if (u16(at) == 277) samples = u16(at + 8);
  }
  REQUIRE(photometric == 8);
  REQUIRE(samples == 3);
  const ImageInfo probed = probe_image(bytes.data(), bytes.size(), "lab.tif");
  CHECK(probed.format == "TIFF");
  CHECK(probed.channels == 3);
  CHECK(probed.bits == 8);
  CHECK(probed.colour.find("CIELab") != std::string::npos);
  ImageInfo info;
  const Image back = load_image(file, {}, {}, &info);
  CHECK(info.channels == 3);
  REQUIRE(back.channels == 3);
  CHECK(psnr(back, src) > 35); // 8-bit Lab quantisation only
}
