// TIFFs read with libtiff itself: the float samples libvips 8.14 refuses (16-bit half floats and
// 64-bit doubles: "samples out of range", "unsupported tiff image type"), decoded as libvips decodes
// 32-bit float TIFFs, so the same picture at any float precision gives the same pixels: RGB is
// linear (scRGB: the sRGB curve applied), grey is taken as it is, both clamped to [0, 1] with a
// note. And the reason a TIFF libvips cannot open is refused (a file cut before its directory).
#include "engine/images/decode_support.h"
#include "engine/errors.h"
#include "engine/half_float.h"
#include "engine/images/image_decoders.h"

#include <tiffio.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

namespace redraw::detail {

namespace {

/// The file in memory as libtiff's client I/O, with libtiff's first error kept for the message.
struct TiffMemory {
  TiffMemory(const uint8_t* bytes, size_t n) : data(bytes), size(n) {}
  const uint8_t* data;
  uint64_t size, pos = 0;
  std::string error;

  static tmsize_t read(thandle_t h, void* out, tmsize_t n) {
    auto* m = static_cast<TiffMemory*>(h);
    const uint64_t left = m->pos < m->size ? m->size - m->pos : 0;
    const uint64_t got = std::min<uint64_t>(left, uint64_t(std::max<tmsize_t>(n, 0)));
    if (got) std::memcpy(out, m->data + m->pos, size_t(got));
    m->pos += got;
    return tmsize_t(got);
  }
  static tmsize_t write(thandle_t, void*, tmsize_t) { return 0; }
  static toff_t seek(thandle_t h, toff_t off, int whence) {
    auto* m = static_cast<TiffMemory*>(h);
    const uint64_t base = whence == SEEK_CUR ? m->pos : whence == SEEK_END ? m->size : 0;
    m->pos = base + off; // past the end is noticed by the next read
    return m->pos;
  }
  static int close(thandle_t) { return 0; }
  static toff_t file_size(thandle_t h) { return static_cast<TiffMemory*>(h)->size; }
  static int map(thandle_t h, void** base, toff_t* size) {
    auto* m = static_cast<TiffMemory*>(h);
    *base = const_cast<uint8_t*>(m->data);
    *size = m->size;
    return 1;
  }
  static void unmap(thandle_t, void*, toff_t) {}
#if TIFFLIB_VERSION >= 20221213 // libtiff 4.5: messages per file, never on stderr
  static int on_error(TIFF*, void* user, const char* module, const char* fmt, va_list ap) {
    auto* m = static_cast<TiffMemory*>(user);
    if (m->error.empty()) {
      char text[300];
      std::vsnprintf(text, sizeof text, fmt, ap);
      m->error = std::string(module ? module : "libtiff") + ": " + text;
    }
    return 1;
  }
  static int on_warning(TIFF*, void*, const char*, const char*, va_list) { return 1; }
#endif
};

struct TiffCloser {
  void operator()(TIFF* t) const { TIFFClose(t); }
};
using TiffHandle = std::unique_ptr<TIFF, TiffCloser>;

TiffHandle open_tiff(TiffMemory& m) {
#if TIFFLIB_VERSION >= 20221213
  const std::unique_ptr<TIFFOpenOptions, void (*)(TIFFOpenOptions*)> options(TIFFOpenOptionsAlloc(),
                                                                             &TIFFOpenOptionsFree);
  TIFFOpenOptionsSetErrorHandlerExtR(options.get(), &TiffMemory::on_error, &m);
  TIFFOpenOptionsSetWarningHandlerExtR(options.get(), &TiffMemory::on_warning, &m);
  return TiffHandle(TIFFClientOpenExt("memory", "r", &m, &TiffMemory::read, &TiffMemory::write, &TiffMemory::seek,
                                      &TiffMemory::close, &TiffMemory::file_size, &TiffMemory::map, &TiffMemory::unmap,
                                      options.get()));
#else
  return TiffHandle(TIFFClientOpen("memory", "r", &m, &TiffMemory::read, &TiffMemory::write, &TiffMemory::seek,
                                   &TiffMemory::close, &TiffMemory::file_size, &TiffMemory::map, &TiffMemory::unmap));
#endif
}

/// The first directory's facts that decide how it is read.
struct TiffFacts {
  uint32_t width = 0, height = 0;
  uint16_t samples = 1, bits = 1, format = SAMPLEFORMAT_UINT, photometric = PHOTOMETRIC_MINISBLACK;
  uint16_t planar = PLANARCONFIG_CONTIG, orientation = ORIENTATION_TOPLEFT;
};

TiffFacts facts_of(TIFF* t) {
  TiffFacts f;
  TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &f.width);
  TIFFGetField(t, TIFFTAG_IMAGELENGTH, &f.height);
  TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLESPERPIXEL, &f.samples);
  TIFFGetFieldDefaulted(t, TIFFTAG_BITSPERSAMPLE, &f.bits);
  TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLEFORMAT, &f.format);
  TIFFGetFieldDefaulted(t, TIFFTAG_PLANARCONFIG, &f.planar);
  TIFFGetFieldDefaulted(t, TIFFTAG_ORIENTATION, &f.orientation);
  if (!TIFFGetField(t, TIFFTAG_PHOTOMETRIC, &f.photometric))
    f.photometric = f.samples >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
  return f;
}

bool float_for_libtiff(const TiffFacts& f) { return f.format == SAMPLEFORMAT_IEEEFP && (f.bits == 16 || f.bits == 64); }

/// The file opened, or ImageError naming the file with libtiff's reason.
TiffHandle open_or_refuse(TiffMemory& m, const std::string& name) {
  TiffHandle t = open_tiff(m);
  if (!t) refuse_unreadable_tiff(m.data, size_t(m.size), name);
  return t;
}

ImageInfo info_of(TIFF* t, const TiffFacts& f) {
  ImageInfo info;
  info.format = "TIFF";
  info.orientation = f.orientation >= 1 && f.orientation <= 8 ? f.orientation : 1;
  info.width = int32_t(info.orientation >= 5 ? f.height : f.width);
  info.height = int32_t(info.orientation >= 5 ? f.width : f.height);
  info.channels = f.samples;
  info.bits = f.bits;
  info.floats = f.format == SAMPLEFORMAT_IEEEFP;
  info.colour = f.photometric == PHOTOMETRIC_RGB ? "linear (scRGB)" : "grey (sRGB assumed)";
  info.pages = std::max(1, int(TIFFNumberOfDirectories(t)));
  return info;
}

/// One sample of a 16- or 64-bit float TIFF (already in this machine's byte order).
float sample_at(const uint8_t* block, size_t index, int bits) {
  if (bits == 16) {
    uint16_t h = 0;
    std::memcpy(&h, block + index * 2, 2);
    return half_to_float(h);
  }
  double d = 0;
  std::memcpy(&d, block + index * 8, 8);
  return float(d);
}

/// Reads the first directory's samples (strips or tiles, interleaved or in planes) into `stored`
/// (w x h x bands floats as stored); returns the rows read: all of them, or those above the first
/// strip or tile that libtiff could not read (a file that ends early). ImageError naming the file
/// for strips or tiles that do not fit the picture.
int32_t read_samples(TIFF* t, const TiffFacts& f, int bands, std::vector<float>& stored, const std::string& name) {
  const uint32_t w = f.width, h = f.height;
  const bool tiled = TIFFIsTiled(t) != 0;
  uint32_t bw = w, bh = 0;
  if (tiled) {
    TIFFGetField(t, TIFFTAG_TILEWIDTH, &bw);
    TIFFGetField(t, TIFFTAG_TILELENGTH, &bh);
  } else {
    TIFFGetFieldDefaulted(t, TIFFTAG_ROWSPERSTRIP, &bh);
    bh = std::min(bh, h);
  }
  const auto misfit = [&] {
    throw ImageError(name + ": corrupt image: the TIFF's strips or tiles do not fit its size");
  };
  if (bw == 0 || bh == 0) misfit();
  const bool planes = f.planar == PLANARCONFIG_SEPARATE;
  const int per_block = planes ? 1 : f.samples; // samples per pixel within one block
  const tmsize_t block_bytes = tiled ? TIFFTileSize(t) : TIFFStripSize(t);
  const size_t want = size_t(bw) * bh * size_t(per_block) * size_t(f.bits / 8);
  if (block_bytes <= 0 || size_t(block_bytes) < want) misfit();
  // A strip or tile is never much larger than the picture (whose cost the budget checked): a
  // crafted directory could otherwise ask for gigabytes here.
  const uint64_t picture_bytes = uint64_t(w) * h * f.samples * uint64_t(f.bits / 8);
  if (uint64_t(block_bytes) > picture_bytes + (uint64_t(64) << 20)) misfit();
  std::vector<uint8_t> block(static_cast<size_t>(block_bytes));
  int32_t rows = int32_t(h);
  for (uint32_t y0 = 0; y0 < h && uint32_t(rows) == h; y0 += bh) {
    const uint32_t block_rows = std::min(bh, h - y0);
    for (int plane = 0; plane < (planes ? bands : 1) && uint32_t(rows) == h; ++plane)
      for (uint32_t x0 = 0; x0 < w; x0 += bw) {
        const uint32_t index =
            tiled ? TIFFComputeTile(t, x0, y0, 0, uint16_t(plane)) : TIFFComputeStrip(t, y0, uint16_t(plane));
        const tmsize_t got = tiled ? TIFFReadEncodedTile(t, index, block.data(), block_bytes)
                                   : TIFFReadEncodedStrip(t, index, block.data(), block_bytes);
        const size_t row_bytes = size_t(bw) * size_t(per_block) * size_t(f.bits / 8);
        const uint32_t whole = got < 0 ? 0 : uint32_t(std::min<uint64_t>(uint64_t(got) / row_bytes, block_rows));
        if (whole < block_rows) { // the rest of this block and everything below it is missing
          rows = int32_t(y0 + (tiled ? 0 : whole));
          break;
        }
        const uint32_t cols = std::min(bw, w - x0);
        for (uint32_t y = 0; y < block_rows; ++y)
          for (uint32_t x = 0; x < cols; ++x) {
            float* o = stored.data() + ((size_t(y0) + y) * w + x0 + x) * size_t(bands);
            const size_t at = (size_t(y) * bw + x) * size_t(per_block);
            if (planes)
              o[plane] = sample_at(block.data(), at, f.bits);
            else
              for (int c = 0; c < bands; ++c)
                o[c] = sample_at(block.data(), at + size_t(c), f.bits);
          }
      }
  }
  return rows;
}

} // namespace

bool is_tiff(const uint8_t* data, size_t size) {
  return starts_with(data, size, std::string_view("II*\0", 4)) ||
         starts_with(data, size, std::string_view("MM\0*", 4)) ||
         starts_with(data, size, std::string_view("II+\0", 4)) || starts_with(data, size, std::string_view("MM\0+", 4));
}

bool tiff_needs_libtiff(const uint8_t* data, size_t size) {
  TiffMemory m(data, size);
  const TiffHandle t = open_tiff(m);
  return t && float_for_libtiff(facts_of(t.get()));
}

ImageInfo probe_tiff_libtiff(const uint8_t* data, size_t size, const std::string& name) {
  TiffMemory m(data, size);
  const TiffHandle t = open_or_refuse(m, name);
  return info_of(t.get(), facts_of(t.get()));
}

Image decode_tiff_libtiff(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits,
                          ImageInfo& info) {
  TiffMemory m(data, size);
  const TiffHandle t = open_or_refuse(m, name);
  const TiffFacts f = facts_of(t.get());
  info = info_of(t.get(), f);
  if (!float_for_libtiff(f))
    throw ImageError(name + ": unsupported sample format in this TIFF (" + std::to_string(f.bits) + "-bit)");
  if (f.photometric != PHOTOMETRIC_MINISBLACK && f.photometric != PHOTOMETRIC_RGB)
    throw ImageError(name + ": unsupported TIFF: float samples in photometric interpretation " +
                     std::to_string(f.photometric) + " (Redraw reads grey and RGB floats)");
  if (f.samples < (f.photometric == PHOTOMETRIC_RGB ? 3 : 1))
    throw ImageError(name + ": corrupt image: an RGB TIFF with " + std::to_string(f.samples) + " samples per pixel");
  // The whole block buffer and the floats: what the samples in the file and the result cost.
  check_decode_size(name, f.width, f.height, f.samples, f.bits / 8, limits);
  const int bands = std::min<int>(f.samples, 4);
  const int32_t w = int32_t(f.width), h = int32_t(f.height);
  std::vector<float> stored(size_t(w) * size_t(h) * size_t(bands), 0.0f);
  const int32_t rows = read_samples(t.get(), f, bands, stored, name);
  if (rows < h) info.incomplete = missing_rows_text(name, MissingRows{rows, h, 1, h, info.orientation != 1});

  const bool linear = f.photometric == PHOTOMETRIC_RGB;
  const int colour_bands = bands == 2 || bands == 4 ? bands - 1 : bands;
  bool clamped = false;
  const OrientationWalk walk = orientation_walk(info.orientation, w, h);
  Image img;
  img.width = walk.out_w;
  img.height = walk.out_h;
  img.channels = bands;
  img.pixels.resize(stored.size());
  for (int32_t y = 0; y < walk.out_h; ++y) {
    float* o = img.pixels.data() + size_t(y) * size_t(walk.out_w) * size_t(bands);
    int64_t src = walk.origin + int64_t(y) * walk.step_y;
    for (int32_t x = 0; x < walk.out_w; ++x, src += walk.step_x, o += bands) {
      const float* p = stored.data() + size_t(src) * size_t(bands);
      for (int c = 0; c < bands; ++c) {
        const float v = std::isfinite(p[c]) ? p[c] : 0.0f;
        if (v > 1.0f || v < 0.0f) clamped = true;
        o[c] = linear && c < colour_bands ? linear_to_srgb(v) : std::clamp(v, 0.0f, 1.0f);
      }
    }
  }
  if (rows < h) paint_missing_rows(img, walk, w, rows);
  if (f.samples > 4) info.notes.push_back("only the first four channels are used");
  info.notes.push_back(clamped ? "HDR: values outside [0, 1] were clamped" : "HDR: float samples, none clamped");
  if (info.orientation != 1) info.notes.push_back("EXIF orientation " + std::to_string(info.orientation) + " applied");
  if (info.pages > 1) info.notes.push_back("first of " + std::to_string(info.pages) + " pages or frames");
  return img;
}

void refuse_unreadable_tiff(const uint8_t* data, size_t size, const std::string& name) {
  const std::string cut = name + ": corrupt or truncated image: the file ends before the image does (";
  const bool big = size >= 4 && data[2] + data[3] == '+'; // BigTIFF: 43, in either byte order
  const size_t header = big ? 16 : 8;
  if (size < header) throw ImageError(cut + "inside the TIFF header)");
  const bool little = data[0] == 'I';
  uint64_t first_directory = 0;
  for (size_t i = 0; i < (big ? 8u : 4u); ++i) {
    const size_t at = (big ? 8 : 4) + (little ? i : (big ? 7 : 3) - i);
    first_directory |= uint64_t(data[at]) << (8 * i);
  }
  if (first_directory >= size)
    throw ImageError(cut + "the TIFF's directory would start at byte " + std::to_string(first_directory) + " of a " +
                     std::to_string(size) + "-byte file)");
  TiffMemory m(data, size);
  const TiffHandle t = open_tiff(m);
  if (!t) {
    const std::string why = m.error.empty() ? "libtiff could not read its directory" : m.error;
    throw ImageError(name + ": corrupt or truncated image: the TIFF is damaged (" + why.substr(0, 200) + ")");
  }
  const TiffFacts f = facts_of(t.get());
  throw ImageError(name + ": unsupported TIFF (" + std::to_string(f.samples) + " samples of " + std::to_string(f.bits) +
                   " bits, sample format " + std::to_string(f.format) + ", photometric interpretation " +
                   std::to_string(f.photometric) + ")");
}

} // namespace redraw::detail
