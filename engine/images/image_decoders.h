#pragma once
/// The per-format decoders behind decode_image (image.h); engine-internal. image_decode.cpp only
/// picks one by the file's first bytes; what they share is in decode_support.h.
/// - libvips (vips_decoder.cpp): PNG, JPEG, WebP, TIFF, HEIF/AVIF, and nothing else: every other
///   libvips loader is blocked (the untrusted ones, ImageMagick's catch-all, PDF, SVG, ...).
///   vips_input_checks.cpp looks at a PNG's, JPEG's or WebP's bytes before libvips does.
/// - libtiff (tiff_decoder.cpp): the float TIFFs libvips 8.14 cannot read (16-bit half and 64-bit
///   samples), and the reason a TIFF libvips cannot open is refused.
/// - OpenEXR (exr_decoder.cpp) from memory; GIF: giflib (first frame); BMP, TGA and PNM go
///   through stb_image (stb_decoder.cpp; built in stb_image_build.cpp, its asserts made errors).
///   All of these are fuzzed continuously upstream.
/// - Each reads the header, calls check_decode_size before allocating any pixels, and turns the
///   library's error into ImageError naming the file. A file that ends early keeps the rows it
///   has, by the policy in decode_support.h.
#include "engine/images/image.h"

#include <cstdint>
#include <string>
#include <vector>

namespace redraw::detail {

/// A file's bytes as libvips is to read them, after Redraw's own checks (check_vips_input).
struct VipsInput {
  const uint8_t* original = nullptr;
  size_t original_size = 0;
  std::vector<uint8_t> fixed; ///< a PNG with its wrong chunk CRCs put right; empty when none was wrong
  int bad_crcs = 0;           ///< PNG chunks whose CRC was wrong
  bool cut = false;           ///< the file ends before its own structure does (PNG chunks, WebP RIFF size)
  bool jpeg_progressive = false; ///< a progressive JPEG (SOF2, 6, 10 or 14)
  int jpeg_scans = 0;            ///< the JPEG's scans that begin in the bytes (their SOS markers)
  const uint8_t* data() const { return fixed.empty() ? original : fixed.data(); }
  size_t size() const { return fixed.empty() ? original_size : fixed.size(); }
};

bool is_png(const uint8_t* data, size_t size);
/// A PNG's IHDR against the limits (ImageError), its chunk CRCs put right, a JPEG's scans counted
/// (ImageError past 500), and whether a PNG or WebP is cut short.
VipsInput check_vips_input(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits);

/// True when one of the enabled libvips loaders recognises the bytes.
bool vips_recognises(const uint8_t* data, size_t size);
Image decode_vips(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits,
                  const DecodeOptions& options, ImageInfo& info);
ImageInfo probe_vips(const uint8_t* data, size_t size, const std::string& name);

/// A TIFF's magic (classic or BigTIFF, either byte order).
bool is_tiff(const uint8_t* data, size_t size);
/// True for a TIFF whose samples libvips 8.14 cannot read and tiff_decoder.cpp can: IEEE floats
/// of 16 or 64 bits.
bool tiff_needs_libtiff(const uint8_t* data, size_t size);
Image decode_tiff_libtiff(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits,
                          ImageInfo& info);
ImageInfo probe_tiff_libtiff(const uint8_t* data, size_t size, const std::string& name);
/// ImageError naming the file for a TIFF that libvips does not open: cut before its directory,
/// or damaged (libtiff's reason).
[[noreturn]] void refuse_unreadable_tiff(const uint8_t* data, size_t size, const std::string& name);

bool is_exr(const uint8_t* data, size_t size);
Image decode_exr(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits,
                 ImageInfo& info);
ImageInfo probe_exr(const uint8_t* data, size_t size, const std::string& name);

/// The first frame; `frames` receives how many the file holds (counted without decoding the rest).
Image decode_gif(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits,
                 int32_t& frames);

/// BMP, binary PNM and TGA, recognised without stb (stb also reads formats Redraw does not offer,
/// which are never handed to it).
bool is_stb_format(const uint8_t* data, size_t size);
Image decode_stb(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits);
ImageInfo probe_stb(const uint8_t* data, size_t size, const std::string& name);

/// stb_image's internal checks (STBI_ASSERT in stb_image_build.cpp) land here: throws ImageError
/// saying which check failed, never aborts.
[[noreturn]] void stb_internal_check_failed(const char* check);

} // namespace redraw::detail
