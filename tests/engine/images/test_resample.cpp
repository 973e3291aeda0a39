// engine/images/resample: our bounded resampler against stb_image_resize (which it replaced) on ordinary
// sizes, exact on what has one answer, and bounded on extreme aspect ratios.
#include "test_support.h"

#include "engine/images/resample.h"

#include <doctest/doctest.h>
#include <stb/stb_image_resize.h>

#include <cmath>

using namespace redraw;

namespace {
Image stb_resized(const Image& src, int32_t w, int32_t h, stbir_filter filter) {
  Image out;
  out.width = w, out.height = h, out.channels = src.channels;
  out.pixels.resize(size_t(w) * size_t(h) * size_t(src.channels));
  const int alpha = src.channels == 2 || src.channels == 4 ? src.channels - 1 : STBIR_ALPHA_CHANNEL_NONE;
  REQUIRE(stbir_resize_float_generic(src.pixels.data(), src.width, src.height, 0, out.pixels.data(), w, h, 0,
                                     src.channels, alpha, 0, STBIR_EDGE_CLAMP, filter, STBIR_COLORSPACE_LINEAR,
                                     nullptr) == 1);
  for (float& v : out.pixels) v = std::clamp(v, 0.0f, 1.0f);
  return out;
}

float max_difference(const Image& a, const Image& b) {
  REQUIRE(a.pixels.size() == b.pixels.size());
  float d = 0;
  for (size_t i = 0; i < a.pixels.size(); ++i) d = std::max(d, std::abs(a.pixels[i] - b.pixels[i]));
  return d;
}

double mean(const Image& a) {
  double s = 0;
  for (float v : a.pixels) s += v;
  return s / double(a.pixels.size());
}

Image smooth_image(int32_t w, int32_t h, int32_t c) {
  Image img;
  img.width = w, img.height = h, img.channels = c;
  img.pixels.resize(size_t(w) * size_t(h) * size_t(c));
  for (int32_t y = 0; y < h; ++y)
    for (int32_t x = 0; x < w; ++x)
      for (int32_t k = 0; k < c; ++k)
        img.at(x, y, k) = 0.5f + 0.4f * std::sin(0.3f * float(x) + 0.2f * float(y) + float(k));
  return img;
}
} // namespace

TEST_CASE("resample agrees with stb_image_resize on ordinary sizes") {
  const Image src = smooth_image(37, 23, 3);
  CHECK(max_difference(resample(src, 80, 51, ResampleFilter::CatmullRom), stb_resized(src, 80, 51, STBIR_FILTER_CATMULLROM)) < 0.02f);
  CHECK(max_difference(resample(src, 90, 60, ResampleFilter::Mitchell), stb_resized(src, 90, 60, STBIR_FILTER_MITCHELL)) < 0.02f);
  CHECK(max_difference(resample(src, 12, 7, ResampleFilter::Box), stb_resized(src, 12, 7, STBIR_FILTER_BOX)) < 0.02f);
  const Image rgba = smooth_image(20, 16, 4);
  CHECK(max_difference(resample(rgba, 10, 8, ResampleFilter::Box), stb_resized(rgba, 10, 8, STBIR_FILTER_BOX)) < 0.02f);
}

TEST_CASE("resample: exact answers (box average, constants, identity)") {
  Image src;
  src.width = 4, src.height = 2, src.channels = 1;
  src.pixels = {0.0f, 0.2f, 0.4f, 0.6f, 0.1f, 0.3f, 0.5f, 0.7f};
  const Image half = resample(src, 2, 1, ResampleFilter::Box);
  CHECK(half.pixels[0] == doctest::Approx(0.15f));
  CHECK(half.pixels[1] == doctest::Approx(0.55f));
  Image flat = smooth_image(7, 5, 3);
  for (float& v : flat.pixels) v = 0.25f;
  for (auto f : {ResampleFilter::Box, ResampleFilter::CatmullRom, ResampleFilter::Mitchell})
    for (const auto& [w, h] : {std::pair{1, 1}, {50, 1}, {1, 50}, {3, 2}, {200, 150}})
      for (float v : resample(flat, w, h, f).pixels) CHECK(v == doctest::Approx(0.25f));
  const Image same = resample(src, 4, 2, ResampleFilter::CatmullRom);
  CHECK(max_difference(same, src) < 1e-6f);
}

TEST_CASE("resample: extreme aspect ratios (1x5000, 5000x1, 1x1) to and from extreme sizes") {
  const Image tall = smooth_image(1, 5000, 1), wide = smooth_image(5000, 1, 3), dot = smooth_image(1, 1, 3);
  const Image a = resample(tall, 16384, 1, ResampleFilter::CatmullRom); // the compare upscale that aborted
  CHECK(a.width == 16384);
  CHECK(std::abs(mean(a) - mean(tall)) < 0.05);
  const Image b = resample(wide, 1, 16384, ResampleFilter::CatmullRom);
  CHECK(std::abs(mean(b) - mean(wide)) < 0.05);
  const Image c = resample(dot, 65536, 1, ResampleFilter::Mitchell);
  CHECK(max_difference(c, resample(dot, 65536, 1, ResampleFilter::Box)) < 1e-6f);
  const Image d = resample(tall, 1, 1, ResampleFilter::Box);
  CHECK(d.pixels[0] == doctest::Approx(float(mean(tall))).epsilon(1e-4));
  const Image e = resample(wide, 5000, 5000 / 5000, ResampleFilter::CatmullRom);
  CHECK(max_difference(e, wide) < 1e-6f);
  for (float v : resample(smooth_image(3, 1, 2), 1, 3000, ResampleFilter::CatmullRom).pixels) CHECK((v >= 0 && v <= 1));
  CHECK_THROWS(resample(tall, 0, 5, ResampleFilter::Box));
}
