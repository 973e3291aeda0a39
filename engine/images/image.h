#pragma once
/// Images in memory and on disk.
/// - Image (engine/image_buffer.h) holds float pixels in [0, 1], row-major, interleaved channels
///   (1 or 3, or 4 when raw).
/// - load_image reads, through libvips 8.14, PNG (8/16-bit), JPEG (CMYK included), WebP, TIFF
///   (8/16-bit, 32-bit float; 16- and 64-bit float through libtiff), HEIC and AVIF (libheif);
///   OpenEXR through the OpenEXR library; GIF (first frame) through giflib; BMP (bottom-up and
///   top-down), TGA and binary PNM through stb_image. Only those libvips loaders are enabled
///   (image_decoders.h): untrusted ones and the ImageMagick catch-all stay blocked.
/// - What a viewer shows is what is decoded: the EXIF orientation is applied, an embedded ICC
///   profile (or CMYK) is converted to sRGB, HDR values are clamped to [0, 1] after the sRGB curve,
///   and the first page or frame of a multi-page file is taken. ImageInfo::notes says so.
/// - Every decoder checks the header's size against k_max_image_side / k_max_image_pixels and the
///   memory budget (DecodeLimits) *before* allocating pixels, and throws ImageError("<file>: <what
///   is wrong>") for a missing, corrupt or absurd file. A file that ends early opens as browsers
///   show it, the missing rows grey, and ImageInfo::incomplete says how much is missing; with more
///   than half of the picture missing it is refused. A PNG whose chunk CRCs are wrong opens (as in
///   browsers), with a note.
/// - prepare_training_image composites alpha onto a background, converts to the colour mode
///   (rgb, gray, binary with a threshold, or auto: gray for a grey image), and resizes with an
///   area (box) filter. A JPEG larger than the training size is shrunk on load (1/2, 1/4, 1/8 in
///   the DCT) to no less than that size first.
/// - write_png writes 8- or 16-bit PNG atomically (temp file, fsync, rename); IoError on failure,
///   and no partial file is left behind.
#include "engine/image_buffer.h"
#include "engine/run_config.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace redraw {

constexpr int32_t k_max_image_side = 65536;              ///< refused above this, before decoding
constexpr int64_t k_max_image_pixels = int64_t(1) << 28; ///< 268 Mpixel
constexpr int32_t k_max_train_side = 16384;              ///< training size limit per side
constexpr int64_t k_max_train_pixels = int64_t(1) << 27; ///< 134 Mpixel training images (a 100 MP photo at full size)

/// Default memory budget for decoding one image: 1 GiB (a 8192 x 8192 RGB photo fits; a 16384 x
/// 16384 RGBA one does not). The CLI's --max-image-memory raises it.
constexpr uint64_t k_default_image_memory_bytes = uint64_t(1) << 30;

/// What one decode may cost. `max_bytes` bounds the decoder's own pixel buffers plus the float
/// Image it returns (width * height * channels * (bytes per decoded sample + 4)), computed from
/// the header before anything is allocated. GIF: the logical screen and every frame looked at.
struct DecodeLimits {
  uint64_t max_bytes = k_default_image_memory_bytes;
};

/// What a decoder read from a file's header, and what it did to the pixels.
struct ImageInfo {
  std::string format;            ///< "PNG", "JPEG", "WebP", "TIFF", "HEIF", "AVIF", "OpenEXR", "GIF", "BMP", "TGA", "PNM"
  int32_t width = 0, height = 0; ///< as shown: after the EXIF orientation, before any shrink-on-load
  int32_t orientation = 1;       ///< EXIF orientation, 1..8 (1: as stored)
  int32_t channels = 0;          ///< in the file, alpha included
  int32_t bits = 8;              ///< per sample in the file: 8, 16, 32 or 64
  bool floats = false;           ///< the samples are floating point (HDR: OpenEXR, float TIFF)
  std::string colour = "sRGB";   ///< "sRGB", "ICC profile: <description>", "CMYK", "linear (HDR)", ...
  int32_t pages = 1;             ///< pages or frames in the file; only the first is decoded
  int32_t shrink = 1;            ///< shrink-on-load factor used (JPEG: 1, 2, 4 or 8)
  std::vector<std::string> notes; ///< what a user should be told: "first of 3 pages", "HDR clamped", ...
  /// "" for a whole picture; for a file that ends early, what is missing: "the file ends early;
  /// rows 61-96 of 96 (38%) are missing and shown grey". Apart from `notes` because every caller
  /// must show it (open_run makes it a notice); more than half missing is refused instead.
  std::string incomplete;
};

/// The smallest picture the caller needs (as shown, after orientation): a JPEG larger than this is
/// shrunk on load by the largest power of two (up to 8) that keeps it at least this big. 0: full size.
struct DecodeOptions {
  int32_t min_width = 0, min_height = 0;
};

/// Decodes a file with its native channel count (1 grey, 2 grey+alpha, 3 RGB, 4 RGBA), 16-bit kept;
/// `info`, when given, receives the header and the notes.
Image load_image(const std::filesystem::path& file, const DecodeLimits& limits = {}, const DecodeOptions& options = {},
                 ImageInfo* info = nullptr);
/// Same, from memory; `name` is used in error messages.
Image decode_image(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits = {},
                   const DecodeOptions& options = {}, ImageInfo* info = nullptr);
/// The header only (format, size, orientation, colour profile, pages); no pixels are decoded.
ImageInfo probe_image(const uint8_t* data, size_t size, const std::string& name);
/// Same, for a file (ImageError for a missing or unreadable one).
ImageInfo probe_image_file(const std::filesystem::path& file);
/// The file name extensions load_image reads, lower case with the dot (".png", ".jpg", ...).
const std::vector<std::string>& image_extensions();
/// The MIME types of those formats ("image/png", ...), for the desktop entry and the drop target.
const std::vector<std::string>& image_mime_types();

/// The mode an image trains in: `mode` itself, except Auto, which becomes Gray when the image has
/// no colour channels or every pixel has R = G = B after compositing onto `background`, else Rgb.
ColorMode resolve_color_mode(const Image& raw, ColorMode mode, const std::array<float, 3>& background);
/// Composites alpha onto `background` and converts to the colour mode (1 or 3 channels out; Auto
/// is resolved first).
Image convert_color(const Image& raw, ColorMode mode, float threshold, const std::array<float, 3>& background);
/// The same, in raw's own buffer when the mode has no more channels than raw (else a new one).
Image convert_color(Image&& raw, ColorMode mode, float threshold, const std::array<float, 3>& background);
/// Area (box) filter resize; for upscaling it falls back to a smooth filter.
Image resize_area(const Image& src, int32_t width, int32_t height);
/// The same; at src's own size, src itself (moved, not copied).
Image resize_area(Image&& src, int32_t width, int32_t height);
/// Bicubic (Catmull-Rom) resize, for the side-by-side "original upscaled" comparison.
Image resize_bicubic(const Image& src, int32_t width, int32_t height);

/// The training size for an image of w x h under the data spec (explicit size, or max_side keeping
/// the aspect ratio). Throws ConfigError when the result is over the training limits.
void training_size(const DataSpec& spec, int32_t w, int32_t h, int32_t& out_w, int32_t& out_h);
/// load_image + convert_color + resize to training_size. native_w/native_h, when given, receive
/// the file's own size (what another data spec would be resized from).
/// `info`, when given, receives what load_image would (its notes are worth showing to the user).
Image prepare_training_image(const std::filesystem::path& file, const DataSpec& spec, const DecodeLimits& limits = {},
                             int32_t* native_w = nullptr, int32_t* native_h = nullptr, ImageInfo* info = nullptr);

/// Writes an 8- or 16-bit PNG (1 or 3 channels; values clamped to [0, 1]) atomically.
void write_png(const std::filesystem::path& file, const Image& img, int bit_depth = 8);
/// Encodes to PNG in memory (8 or 16 bit).
std::vector<uint8_t> encode_png(const Image& img, int bit_depth = 8);
/// Encodes a w x h PNG in memory from rows made band by band, so the picture is never whole as
/// floats: `produce(write)` calls write(values, rows) for consecutive bands of width * channels
/// floats per row (clamped to [0, 1]) until the height is covered. The same bytes as encode_png.
using PngRowSource = std::function<void(const std::function<void(const float*, int32_t)>&)>;
using ByteSink = std::function<void(const uint8_t*, size_t)>;
std::vector<uint8_t> encode_png_rows(int32_t w, int32_t h, int32_t channels, int bit_depth, const PngRowSource& produce);
/// The same, the PNG's bytes handed to `sink` as they come (never held whole).
void encode_png_rows(const ByteSink& sink, int32_t w, int32_t h, int32_t channels, int bit_depth,
                     const PngRowSource& produce);

/// Writes a PNG row band by row band, so a 16384 x 16384 export never holds the whole image.
/// The file appears atomically at commit(); if the writer is destroyed first (error, cancel), no
/// file is left behind and an earlier file at the target is untouched.
class PngStreamWriter {
public:
  /// Opens the temp file next to `file`; IoError when the folder is missing or not writable.
  PngStreamWriter(const std::filesystem::path& file, int32_t width, int32_t height, int32_t channels, int bit_depth);
  ~PngStreamWriter();
  PngStreamWriter(const PngStreamWriter&) = delete;
  PngStreamWriter& operator=(const PngStreamWriter&) = delete;
  /// Appends `rows` rows of width * channels floats (clamped to [0, 1]). IoError on a write failure.
  void write_rows(const float* values, int32_t rows);
  /// Finishes the PNG and renames it onto the target; every row must have been written.
  void commit();

private:
  struct Impl;
  Impl* m_impl;
};

/// PSNR in dB of two same-sized images in [0, 1]: 10 log10(1 / mse); +inf for an exact fit
/// (mse 0), NaN for a NaN mse (a diverged network), so the two are never confused.
double psnr_db(double mse);

} // namespace redraw
