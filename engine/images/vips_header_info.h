#pragma once
/// The facts of a libvips header, before any pixel is decoded (the decoder's `info` and notes).
/// - format_of: "JPEG", "PNG", "WebP", "TIFF", "HEIF" or "AVIF" from the loader's class name ("" if
///   none of those); a HEIF header tells AVIF by its compression.
/// - fill_info: format, width and height as shown (EXIF orientation applied), channels (an 8-bit
///   CIELab TIFF, packed by libvips into four bytes, is 3), bits, floats, pages, and the colour
///   description (an ICC profile by its 'desc' tag, CMYK, scRGB, CIELab, grey, or plain sRGB).
#include "engine/images/image_decoders.h"

#include <vips/vips.h>

#include <string>

namespace redraw::detail {

std::string format_of(const char* loader, VipsImage* header);
/// The ICC profile's description tag (a v2 textDescriptionType or the first v4 record), at most 80
/// characters; "" without a profile or a readable tag.
std::string icc_description(VipsImage* image);
void fill_info(VipsImage* h, const char* loader, ImageInfo& info);

} // namespace redraw::detail
