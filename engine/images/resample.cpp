#include "engine/images/resample.h"

#include "engine/errors.h"

#include <algorithm>
#include <cmath>

namespace redraw {

namespace {

float cubic(float x, float b, float c) {
  x = std::abs(x);
  if (x < 1)
    return ((12 - 9 * b - 6 * c) * x * x * x + (-18 + 12 * b + 6 * c) * x * x + (6 - 2 * b)) / 6;
  if (x < 2)
    return ((-b - 6 * c) * x * x * x + (6 * b + 30 * c) * x * x + (-12 * b - 48 * c) * x + (8 * b + 24 * c)) / 6;
  return 0;
}

/// For each output index, the source indices it reads and their weights (summing to 1).
struct Taps {
  std::vector<int32_t> first;   ///< first source index of output i
  std::vector<uint32_t> offset; ///< where output i's weights start in `weight` (size n + 1)
  std::vector<float> weight;
};

Taps make_taps(int32_t src_len, int32_t dst_len, ResampleFilter filter) {
  Taps t;
  t.first.resize(size_t(dst_len));
  t.offset.resize(size_t(dst_len) + 1);
  const double scale = double(src_len) / double(dst_len);
  std::vector<double> w;
  for (int32_t i = 0; i < dst_len; ++i) {
    int64_t j0 = 0, j1 = 0; // source range [j0, j1), before clamping
    w.clear();
    if (filter == ResampleFilter::Box) {
      const double x0 = double(i) * scale, x1 = double(i + 1) * scale;
      if (scale >= 1) {
        j0 = int64_t(std::floor(x0));
        j1 = std::max(j0 + 1, int64_t(std::ceil(x1)));
        for (int64_t j = j0; j < j1; ++j) w.push_back(std::max(0.0, std::min(double(j + 1), x1) - std::max(double(j), x0)));
      } else {
        j0 = int64_t(std::floor((x0 + x1) / 2));
        j1 = j0 + 1;
        w.push_back(1);
      }
    } else {
      const float b = filter == ResampleFilter::Mitchell ? 1.0f / 3 : 0.0f;
      const float c = filter == ResampleFilter::Mitchell ? 1.0f / 3 : 0.5f;
      const double widen = std::max(1.0, scale); // a shrinking filter covers `scale` source pixels per tap
      const double centre = (double(i) + 0.5) * scale - 0.5;
      j0 = int64_t(std::floor(centre - 2 * widen)) + 1;
      j1 = int64_t(std::ceil(centre + 2 * widen));
      for (int64_t j = j0; j < j1; ++j) w.push_back(cubic(float((double(j) - centre) / widen), b, c));
    }
    // Clamp to the edges: weights beyond them fold onto the first and last pixel.
    const int64_t lo = std::clamp<int64_t>(j0, 0, src_len - 1), hi = std::clamp<int64_t>(j1 - 1, 0, src_len - 1);
    std::vector<double> folded(size_t(hi - lo + 1), 0.0);
    for (int64_t j = j0; j < j1; ++j) folded[size_t(std::clamp<int64_t>(j, lo, hi) - lo)] += w[size_t(j - j0)];
    double sum = 0;
    for (double v : folded) sum += v;
    t.first[size_t(i)] = int32_t(lo);
    t.offset[size_t(i)] = uint32_t(t.weight.size());
    for (double v : folded) t.weight.push_back(float(sum != 0 ? v / sum : 1.0 / double(folded.size())));
  }
  t.offset[size_t(dst_len)] = uint32_t(t.weight.size());
  return t;
}

/// Resamples along x: `in` is w_in x h x c, the result w_out x h x c.
std::vector<float> pass_x(const std::vector<float>& in, int32_t w_in, int32_t h, int32_t c, int32_t w_out,
                          const Taps& t) {
  std::vector<float> out(size_t(w_out) * size_t(h) * size_t(c));
#pragma omp parallel for schedule(static)
  for (int64_t y = 0; y < h; ++y) {
    const float* row = in.data() + size_t(y) * size_t(w_in) * size_t(c);
    float* dst = out.data() + size_t(y) * size_t(w_out) * size_t(c);
    for (int32_t x = 0; x < w_out; ++x)
      for (int32_t k = 0; k < c; ++k) {
        float s = 0;
        const size_t n = t.offset[size_t(x) + 1] - t.offset[size_t(x)];
        const float* wt = t.weight.data() + t.offset[size_t(x)];
        const float* p = row + size_t(t.first[size_t(x)]) * size_t(c) + size_t(k);
        for (size_t j = 0; j < n; ++j) s += wt[j] * p[j * size_t(c)];
        dst[size_t(x) * size_t(c) + size_t(k)] = s;
      }
  }
  return out;
}

/// Resamples along y: `in` is w x h_in x c, the result w x h_out x c.
std::vector<float> pass_y(const std::vector<float>& in, int32_t w, int32_t c, int32_t h_out, const Taps& t) {
  const size_t stride = size_t(w) * size_t(c);
  std::vector<float> out(stride * size_t(h_out));
#pragma omp parallel for schedule(static)
  for (int64_t y = 0; y < h_out; ++y) {
    float* dst = out.data() + size_t(y) * stride;
    const size_t n = t.offset[size_t(y) + 1] - t.offset[size_t(y)];
    const float* wt = t.weight.data() + t.offset[size_t(y)];
    const float* src = in.data() + size_t(t.first[size_t(y)]) * stride;
    for (size_t j = 0; j < n; ++j)
      for (size_t i = 0; i < stride; ++i) dst[i] += wt[j] * src[j * stride + i];
  }
  return out;
}
} // namespace

Image resample(const Image& src, int32_t width, int32_t height, ResampleFilter filter) {
  if (width < 1 || height < 1) throw ImageError("resample: " + std::to_string(width) + "x" + std::to_string(height) + " is empty");
  if (src.width < 1 || src.height < 1 || src.channels < 1 ||
      src.pixels.size() != size_t(src.width) * size_t(src.height) * size_t(src.channels))
    throw ImageError("resample: the source image is empty or malformed");
  const int32_t c = src.channels;
  const bool alpha = c == 2 || c == 4;
  // Premultiplied alpha needs a copy to scale; without alpha the first pass reads the source where
  // it is (a 24 MP photo's 288 MB of floats are not copied to make a 512 px view).
  std::vector<float> premultiplied;
  if (alpha) {
    premultiplied = src.pixels;
    for (size_t i = 0; i < premultiplied.size(); i += size_t(c))
      for (int32_t k = 0; k < c - 1; ++k) premultiplied[i + size_t(k)] *= premultiplied[i + size_t(c - 1)];
  }
  const std::vector<float>& in = alpha ? premultiplied : src.pixels;
  const Taps tx = make_taps(src.width, width, filter), ty = make_taps(src.height, height, filter);
  std::vector<float> px;
  if (int64_t(width) * src.height <= int64_t(src.width) * height) {
    px = pass_x(in, src.width, src.height, c, width, tx);
    px = pass_y(px, width, c, height, ty);
  } else {
    px = pass_y(in, src.width, c, height, ty);
    px = pass_x(px, src.width, height, c, width, tx);
  }
  premultiplied = {};
  const auto unit = [](float v) { return v > 0 ? (v < 1 ? v : 1.0f) : 0.0f; };
  if (alpha)
    for (size_t i = 0; i < px.size(); i += size_t(c)) {
      const float a = unit(px[i + size_t(c - 1)]);
      for (int32_t k = 0; k < c - 1; ++k) px[i + size_t(k)] = a > 0 ? px[i + size_t(k)] / a : 0.0f;
    }
  for (float& v : px) v = unit(v);
  Image out;
  out.width = width;
  out.height = height;
  out.channels = c;
  out.pixels = std::move(px);
  return out;
}

Image load_thumbnail(const std::filesystem::path& file, int32_t side) {
  DecodeOptions shrink; // a large JPEG is shrunk while it is decoded
  shrink.min_width = shrink.min_height = side;
  Image im = load_image(file, {}, shrink);
  if (im.channels == 2 || im.channels == 4) im = convert_color(im, ColorMode::Rgb, 0.5f, {1, 1, 1});
  const int32_t longer = std::max(im.width, im.height);
  if (longer <= side) return im;
  const double k = double(side) / longer;
  return resample(im, std::max(1, int32_t(std::lround(im.width * k))), std::max(1, int32_t(std::lround(im.height * k))),
                  ResampleFilter::Box);
}

} // namespace redraw
