#pragma once
/// The per-format decoders behind decode_image (image.h); engine-internal.
/// - libvips (vips_decoder.cpp): PNG, JPEG, WebP, TIFF, HEIF/AVIF, and nothing else: every other
///   libvips loader is blocked (the untrusted ones, ImageMagick's catch-all, PDF, SVG, ...).
/// - OpenEXR (exr_decoder.cpp) from memory; GIF: giflib (first frame); BMP, TGA and PNM go
///   through stb_image in image_decode.cpp (built in stb_image_build.cpp, its asserts made
///   errors). All of these are fuzzed continuously upstream.
/// - Each reads the header, calls check_decode_size before allocating any pixels, and turns the
///   library's error into ImageError naming the file.
#include "engine/image.h"

#include <cstdint>
#include <string>

namespace redraw::detail {

/// ImageError unless a w x h image with `channels` decoded samples of `sample_bytes` each (plus
/// the 4-byte floats of the returned Image) is within k_max_image_side, k_max_image_pixels and
/// limits.max_bytes. `what` names the part checked ("image", "GIF frame").
void check_decode_size(const std::string& name, uint64_t w, uint64_t h, int channels, int sample_bytes,
                       const DecodeLimits& limits, const char* what = "image");

/// True when one of the enabled libvips loaders recognises the bytes.
bool vips_recognises(const uint8_t* data, size_t size);
Image decode_vips(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits,
                  const DecodeOptions& options, ImageInfo& info);
ImageInfo probe_vips(const uint8_t* data, size_t size, const std::string& name);

bool is_exr(const uint8_t* data, size_t size);
Image decode_exr(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits,
                 ImageInfo& info);
ImageInfo probe_exr(const uint8_t* data, size_t size, const std::string& name);

/// The first frame; `frames` receives how many the file holds (counted without decoding the rest).
Image decode_gif(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits,
                 int32_t& frames);

/// stb_image's internal checks (STBI_ASSERT in stb_image_build.cpp) land here: throws ImageError
/// saying which check failed, never aborts.
[[noreturn]] void stb_internal_check_failed(const char* check);

/// sRGB transfer function of a linear value, clamped to [0, 1] first.
float linear_to_srgb(float v);

/// A 90-degree turn or mirror of interleaved samples, for EXIF orientation o (1..8): for output
/// pixel (x, y), the source pixel is origin + x * step_x + y * step_y (in pixels).
struct OrientationWalk {
  int64_t origin = 0, step_x = 1, step_y = 0;
  int32_t out_w = 0, out_h = 0;
};
OrientationWalk orientation_walk(int32_t o, int32_t w, int32_t h);

} // namespace redraw::detail
