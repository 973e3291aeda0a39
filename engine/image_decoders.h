#pragma once
/// The per-format decoders behind decode_image (image.h); engine-internal.
/// - PNG: libpng; JPEG: libjpeg-turbo; GIF: giflib (first frame). All three are fuzzed
///   continuously upstream. BMP, TGA and PNM go through stb_image in image_decode.cpp.
/// - Each reads the header, calls check_decode_size before allocating any pixels, and turns the
///   library's error (a longjmp or an error code) into ImageError naming the file.
#include "engine/image.h"

#include <cstdint>
#include <string>

namespace redraw::detail {

/// ImageError unless a w x h image with `channels` decoded samples of `sample_bytes` each (plus
/// the 4-byte floats of the returned Image) is within k_max_image_side, k_max_image_pixels and
/// limits.max_bytes. `what` names the part checked ("image", "GIF frame").
void check_decode_size(const std::string& name, uint64_t w, uint64_t h, int channels, int sample_bytes,
                       const DecodeLimits& limits, const char* what = "image");

Image decode_png(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits);
Image decode_jpeg(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits);
Image decode_gif(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits);

} // namespace redraw::detail
