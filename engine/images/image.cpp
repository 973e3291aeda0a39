#include "engine/images/image.h"
#include "engine/images/training_pixels.h"

#include "engine/atomic_file.h"
#include "engine/errors.h"
#include "engine/images/resample.h"

#include <png.h>

#include <algorithm>
#include <cmath>
#include <csetjmp>
#include <cstring>
#include <exception>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <string_view>

namespace redraw {

namespace {

float luminance(float r, float g, float b) { return 0.299f * r + 0.587f * g + 0.114f * b; }

void check_output_size(int32_t w, int32_t h, const char* what) {
  if (w < 1 || h < 1 || w > k_max_image_side || h > k_max_image_side || int64_t(w) * h > k_max_image_pixels)
    throw ConfigError(std::string(what) + ": " + std::to_string(w) + "x" + std::to_string(h) +
                      " is outside the limit (each side 1.." + std::to_string(k_max_image_side) + ", at most " +
                      std::to_string(k_max_image_pixels) + " pixels)");
}

Image resize_with(const Image& src, int32_t width, int32_t height, ResampleFilter filter, const char* what) {
  check_output_size(width, height, what);
  if (src.width < 1 || src.height < 1) throw ImageError(std::string(what) + ": the source image is empty");
  return resample(src, width, height, filter);
}

void png_warning_ignore(png_structp, png_const_charp) {}

} // namespace

namespace {
/// Pixel i of a raw image (1 to 4 channels) as RGB, alpha composited onto `bg`.
void composited_rgb(const Image& raw, int64_t i, const std::array<float, 3>& bg, float rgb[3]) {
  const float* p = raw.pixels.data() + i * raw.channels;
  if (raw.channels >= 3) {
    rgb[0] = p[0], rgb[1] = p[1], rgb[2] = p[2];
  } else {
    rgb[0] = rgb[1] = rgb[2] = p[0];
  }
  if (raw.channels == 2 || raw.channels == 4) {
    const float a = p[raw.channels - 1];
    for (int c = 0; c < 3; ++c)
      rgb[c] = rgb[c] * a + bg[size_t(c)] * (1.0f - a);
  }
}
} // namespace

ColorMode resolve_color_mode(const Image& raw, ColorMode mode, const std::array<float, 3>& bg) {
  if (mode != ColorMode::Auto) return mode;
  const int64_t n = raw.pixel_count();
  for (int64_t i = 0; i < n; ++i) {
    float rgb[3];
    composited_rgb(raw, i, bg, rgb);
    if (rgb[0] != rgb[1] || rgb[1] != rgb[2]) return ColorMode::Rgb;
  }
  return ColorMode::Gray;
}

namespace {
/// raw's pixels in `mode` (resolved) into out, pixel by pixel in order. out may be raw's own
/// buffer when the mode has no more channels than raw: pixel i is read whole before it is
/// written at i * out_channels <= i * raw.channels, behind every pixel still to be read.
void convert_pixels(const Image& raw, ColorMode mode, float threshold, const std::array<float, 3>& bg,
                    int32_t out_channels, float* out) {
  const int64_t n = raw.pixel_count();
  for (int64_t i = 0; i < n; ++i) {
    float rgb[3];
    composited_rgb(raw, i, bg, rgb);
    float* o = out + i * out_channels;
    if (mode == ColorMode::Rgb) {
      o[0] = rgb[0], o[1] = rgb[1], o[2] = rgb[2];
    } else {
      const float g = raw.channels >= 3 ? luminance(rgb[0], rgb[1], rgb[2]) : rgb[0];
      o[0] = mode == ColorMode::Binary ? (g >= threshold ? 1.0f : 0.0f) : g;
    }
  }
}
} // namespace

Image convert_color(const Image& raw, ColorMode mode, float threshold, const std::array<float, 3>& bg) {
  if (raw.channels < 1 || raw.channels > 4) throw ImageError("convert: unsupported channel count");
  mode = resolve_color_mode(raw, mode, bg);
  Image out;
  out.width = raw.width;
  out.height = raw.height;
  out.channels = channels_of(mode);
  out.pixels.resize(size_t(raw.pixel_count()) * out.channels);
  convert_pixels(raw, mode, threshold, bg, out.channels, out.pixels.data());
  return out;
}

Image convert_color(Image&& raw, ColorMode mode, float threshold, const std::array<float, 3>& bg) {
  if (raw.channels < 1 || raw.channels > 4) throw ImageError("convert: unsupported channel count");
  mode = resolve_color_mode(raw, mode, bg);
  const int32_t channels = channels_of(mode);
  if (channels > raw.channels) return convert_color(static_cast<const Image&>(raw), mode, threshold, bg);
  // In place: a photo's floats are never held twice.
  convert_pixels(raw, mode, threshold, bg, channels, raw.pixels.data());
  raw.channels = channels;
  raw.pixels.resize(size_t(raw.pixel_count()) * size_t(channels));
  // Gray from colour gives two thirds back (a copy of the smaller buffer); RGB from RGBA keeps its
  // quarter, which a copy would briefly cost twice over.
  if (raw.pixels.size() <= raw.pixels.capacity() / 2) raw.pixels.shrink_to_fit();
  return std::move(raw);
}

Image resize_area(Image&& src, int32_t width, int32_t height) {
  if (src.width == width && src.height == height) return std::move(src); // full resolution: no copy
  return resize_area(static_cast<const Image&>(src), width, height);
}

Image resize_area(const Image& src, int32_t width, int32_t height) {
  if (src.width == width && src.height == height) return src;
  const bool down = width <= src.width && height <= src.height;
  // Box is an exact area average when shrinking; for enlarging, box would be nearest-neighbour.
  return resize_with(src, width, height, down ? ResampleFilter::Box : ResampleFilter::Mitchell, "resize");
}

Image resize_bicubic(const Image& src, int32_t width, int32_t height) {
  return resize_with(src, width, height, ResampleFilter::CatmullRom, "bicubic resize");
}

void training_size(const DataSpec& spec, int32_t w, int32_t h, int32_t& out_w, int32_t& out_h) {
  if (spec.width > 0 && spec.height > 0) {
    out_w = spec.width;
    out_h = spec.height;
  } else if (spec.max_side > 0 && std::max(w, h) > spec.max_side) {
    const double scale = double(spec.max_side) / double(std::max(w, h));
    out_w = w >= h ? spec.max_side : std::max(1, int32_t(std::lround(w * scale)));
    out_h = h > w ? spec.max_side : std::max(1, int32_t(std::lround(h * scale)));
  } else {
    out_w = w;
    out_h = h;
  }
  if (out_w < 1 || out_h < 1 || out_w > k_max_train_side || out_h > k_max_train_side ||
      int64_t(out_w) * out_h > k_max_train_pixels)
    throw ConfigError("training size " + std::to_string(out_w) + "x" + std::to_string(out_h) +
                      " is over the limit (each side 1.." + std::to_string(k_max_train_side) + ", at most " +
                      std::to_string(k_max_train_pixels) + " pixels); choose a smaller training size");
}

Image prepare_training_image(const std::filesystem::path& file, const DataSpec& spec, const DecodeLimits& limits,
                             int32_t* native_w, int32_t* native_h, ImageInfo* info) {
  // The header first: the training size decides how far a JPEG may be shrunk on load.
  const ImageInfo head = probe_image_file(file);
  int32_t w = 0, h = 0;
  training_size(spec, head.width, head.height, w, h);
  ImageInfo decoded;
  Image raw = load_image(file, limits, DecodeOptions{w, h}, &decoded);
  if (decoded.shrink == 1 && (raw.width != head.width || raw.height != head.height))
    training_size(spec, raw.width, raw.height, w, h); // the header and the pixels disagree: trust the pixels
  if (native_w) *native_w = decoded.width;
  if (native_h) *native_h = decoded.height;
  if (info) *info = decoded;
  return prepare_training_pixels(std::move(raw), spec, w, h);
}

/// Named, not anonymous: PngStreamWriter::Impl holds one, and a class with linkage may not hold a
/// member of an anonymous type (GCC warns where a unity batch includes this file).
namespace png_encoding {
/// libpng encoder with a byte sink. libpng reports errors by longjmp (C code cannot carry C++
/// exceptions), so every call into libpng sits behind setjmp in this class and errors are turned
/// into IoError here; the sink's own exceptions are caught in the callback and rethrown after.
class PngEncoder {
public:
  using Sink = std::function<void(const uint8_t*, size_t)>;
  PngEncoder(Sink sink, int32_t width, int32_t height, int32_t channels, int bit_depth)
      : m_sink(std::move(sink)), m_width(width), m_height(height), m_channels(channels), m_depth(bit_depth) {
    if (bit_depth != 8 && bit_depth != 16)
      throw ConfigError("bit depth must be 8 or 16, not " + std::to_string(bit_depth));
    if (channels != 1 && channels != 3 && channels != 4)
      throw IoError("PNG encoder: unsupported channel count " + std::to_string(channels));
    check_output_size(width, height, "PNG size");
    // Our error handler, not libpng's default one that prints "libpng error: ..." to stderr.
    m_png = png_create_write_struct(PNG_LIBPNG_VER_STRING, this, &PngEncoder::on_error, png_warning_ignore);
    if (!m_png) throw IoError("PNG encoder: out of memory");
    m_info = png_create_info_struct(m_png);
    m_row.resize(size_t(width) * channels * size_t(bit_depth / 8));
    if (setjmp(png_jmpbuf(m_png))) {
      png_destroy_write_struct(&m_png, &m_info); // the destructor does not run for a throwing constructor
      rethrow();
    }
    png_set_write_fn(m_png, this, &PngEncoder::on_write, &PngEncoder::on_flush);
    const int color = channels == 1 ? PNG_COLOR_TYPE_GRAY : channels == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGBA;
    png_set_IHDR(m_png, m_info, uint32_t(width), uint32_t(height), bit_depth, color, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    // zlib level 3: a 24 MP reconstruction encodes in 2 s instead of 10 at level 6, for 8% more
    // bytes (bench/README.md, "Saving at full resolution").
    png_set_compression_level(m_png, 3);
    png_write_info(m_png, m_info);
  }
  ~PngEncoder() { png_destroy_write_struct(&m_png, &m_info); }
  PngEncoder(const PngEncoder&) = delete;
  PngEncoder& operator=(const PngEncoder&) = delete;

  void write_rows(const float* values, int32_t rows) {
    if (m_written + rows > m_height) throw IoError("PNG encoder: more rows than the image height");
    const size_t row_values = size_t(m_width) * m_channels;
    if (setjmp(png_jmpbuf(m_png))) rethrow();
    for (int32_t r = 0; r < rows; ++r) {
      const float* src = values + size_t(r) * row_values;
      if (m_depth == 8) {
        for (size_t i = 0; i < row_values; ++i)
          m_row[i] = uint8_t(std::lround(std::clamp(src[i], 0.0f, 1.0f) * 255.0f));
      } else {
        for (size_t i = 0; i < row_values; ++i) { // PNG stores 16-bit samples big-endian
          const uint16_t v = uint16_t(std::lround(std::clamp(src[i], 0.0f, 1.0f) * 65535.0f));
          m_row[2 * i] = uint8_t(v >> 8);
          m_row[2 * i + 1] = uint8_t(v & 0xff);
        }
      }
      png_write_row(m_png, m_row.data());
    }
    m_written += rows;
  }

  void finish() {
    if (m_written != m_height)
      throw IoError("PNG encoder: " + std::to_string(m_written) + " of " + std::to_string(m_height) + " rows written");
    if (setjmp(png_jmpbuf(m_png))) rethrow();
    png_write_end(m_png, m_info);
  }

private:
  static void on_write(png_structp png, png_bytep data, png_size_t length) {
    auto* self = static_cast<PngEncoder*>(png_get_io_ptr(png));
    try {
      self->m_sink(data, length);
    } catch (...) {
      self->m_error = std::current_exception();
    }
    if (self->m_error) png_error(png, "write failed"); // outside the handler: the jump skips no live exception
  }
  /// libpng's error callback: keeps the message and jumps back to the setjmp of the method that
  /// called libpng, which throws. It prints nothing; the caller reports the error once.
  [[noreturn]] static void on_error(png_structp png, png_const_charp message) {
    auto* self = static_cast<PngEncoder*>(png_get_error_ptr(png));
    if (self && self->m_message.empty()) self->m_message = message ? message : "unknown error";
    png_longjmp(png, 1);
  }
  static void on_flush(png_structp) {}
  [[noreturn]] void rethrow() {
    if (m_error) std::rethrow_exception(m_error);
    throw IoError("PNG encoder: " + (m_message.empty() ? std::string("libpng failed (out of memory?)") : m_message));
  }

  Sink m_sink;
  int32_t m_width, m_height, m_channels;
  int m_depth;
  int32_t m_written = 0;
  png_structp m_png = nullptr;
  png_infop m_info = nullptr;
  std::vector<uint8_t> m_row;
  std::exception_ptr m_error; ///< the sink's exception, rethrown after libpng unwinds
  std::string m_message;      ///< libpng's own error message
};
} // namespace png_encoding
using png_encoding::PngEncoder;

std::vector<uint8_t> encode_png(const Image& img, int bit_depth) {
  std::vector<uint8_t> out;
  PngEncoder enc([&](const uint8_t* d, size_t n) { out.insert(out.end(), d, d + n); }, img.width, img.height,
                 img.channels, bit_depth);
  enc.write_rows(img.pixels.data(), img.height);
  enc.finish();
  return out;
}

void encode_png_rows(const ByteSink& sink, int32_t w, int32_t h, int32_t channels, int bit_depth,
                     const PngRowSource& produce) {
  PngEncoder enc(sink, w, h, channels, bit_depth);
  produce([&](const float* values, int32_t rows) { enc.write_rows(values, rows); });
  enc.finish();
}

std::vector<uint8_t> encode_png_rows(int32_t w, int32_t h, int32_t channels, int bit_depth, const PngRowSource& produce) {
  std::vector<uint8_t> out;
  encode_png_rows([&](const uint8_t* d, size_t n) { out.insert(out.end(), d, d + n); }, w, h, channels, bit_depth,
                  produce);
  return out;
}

struct PngStreamWriter::Impl {
  AtomicFileWriter file;
  PngEncoder encoder;
  Impl(const std::filesystem::path& f, int32_t w, int32_t h, int32_t c, int depth)
      : file(f), encoder([this](const uint8_t* d, size_t n) { file.write(d, n); }, w, h, c, depth) {}
};

PngStreamWriter::PngStreamWriter(const std::filesystem::path& file, int32_t width, int32_t height, int32_t channels,
                                 int bit_depth)
    : m_impl(new Impl(file, width, height, channels, bit_depth)) {}
PngStreamWriter::~PngStreamWriter() { delete m_impl; }
void PngStreamWriter::write_rows(const float* values, int32_t rows) { m_impl->encoder.write_rows(values, rows); }
void PngStreamWriter::commit() {
  m_impl->encoder.finish();
  m_impl->file.commit();
}

void write_png(const std::filesystem::path& file, const Image& img, int bit_depth) {
  const auto bytes = encode_png(img, bit_depth);
  write_file_atomic(file, bytes);
}

double psnr_db(double mse) {
  if (std::isnan(mse)) return std::numeric_limits<double>::quiet_NaN();
  if (mse <= 0) return std::numeric_limits<double>::infinity(); // an exact fit
  if (std::isinf(mse)) return -std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(1.0 / mse);
}

} // namespace redraw
