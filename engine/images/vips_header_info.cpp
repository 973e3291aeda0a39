// What a libvips header says about an image before any pixel is decoded: the format, the size as
// shown (EXIF orientation applied), channels, bit depth and the colour description (vips_header_info.h).
#include "engine/images/vips_header_info.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace redraw::detail {

/// The ICC profile's description tag ('desc', a v2 textDescriptionType or a v4 multiLocalizedUnicode).
std::string icc_description(VipsImage* image) {
  const void* data = nullptr;
  size_t size = 0;
  if (vips_image_get_blob(image, VIPS_META_ICC_NAME, &data, &size) != 0 || !data || size < 132) {
    vips_error_clear();
    return "";
  }
  const auto* p = static_cast<const uint8_t*>(data);
  const auto be32 = [&](size_t o) {
    return o + 4 <= size ? (uint32_t(p[o]) << 24) | (uint32_t(p[o + 1]) << 16) | (uint32_t(p[o + 2]) << 8) | p[o + 3]
                         : 0u;
  };
  const uint32_t tags = be32(128);
  for (uint32_t t = 0; t < tags && t < 256; ++t) {
    const size_t e = 132 + size_t(t) * 12;
    if (e + 12 > size) break;
    if (std::memcmp(p + e, "desc", 4) != 0) continue;
    const size_t off = be32(e + 4), len = be32(e + 8);
    if (off + len > size || len < 12) break;
    std::string out;
    if (std::memcmp(p + off, "desc", 4) == 0) { // ASCII count then text
      const size_t n = std::min<size_t>(be32(off + 8), len - 12);
      for (size_t i = 0; i < n && p[off + 12 + i]; ++i)
        out += char(p[off + 12 + i]);
    } else if (std::memcmp(p + off, "mluc", 4) == 0 && len >= 28) { // first record, UTF-16BE
      const size_t n = be32(off + 20), o = be32(off + 24);
      for (size_t i = 0; i + 1 < n && off + o + i + 1 < size && off + o + i + 1 < off + len; i += 2)
        if (p[off + o + i] == 0 && p[off + o + i + 1] >= 32 && p[off + o + i + 1] < 127)
          out += char(p[off + o + i + 1]);
    }
    return out.substr(0, 80);
  }
  return "";
}

std::string format_of(const char* loader, VipsImage* header) {
  const std::string l = loader;
  if (l.find("Jpeg") != std::string::npos) return "JPEG";
  if (l.find("Png") != std::string::npos) return "PNG";
  if (l.find("Webp") != std::string::npos) return "WebP";
  if (l.find("Tiff") != std::string::npos) return "TIFF";
  if (l.find("Heif") != std::string::npos) {
    const char* compression = nullptr;
    if (header && vips_image_get_typeof(header, "heif-compression") &&
        vips_image_get_string(header, "heif-compression", &compression) == 0 && compression &&
        std::strcmp(compression, "av1") == 0)
      return "AVIF";
    return "HEIF";
  }
  return "";
}

void fill_info(VipsImage* h, const char* loader, ImageInfo& info) {
  info.format = format_of(loader, h);
  int orientation = 1;
  if (vips_image_get_typeof(h, VIPS_META_ORIENTATION) &&
      vips_image_get_int(h, VIPS_META_ORIENTATION, &orientation) == 0 && orientation >= 1 && orientation <= 8)
    info.orientation = orientation;
  vips_error_clear();
  const int w = vips_image_get_width(h), hh = vips_image_get_height(h);
  info.width = info.orientation >= 5 ? hh : w;
  info.height = info.orientation >= 5 ? w : hh;
  // An 8-bit CIELab TIFF (three samples) loads as libvips' packed LabQ coding: four bytes a pixel.
  const bool labq = vips_image_get_coding(h) == VIPS_CODING_LABQ;
  info.channels = labq ? 3 : vips_image_get_bands(h);
  const VipsBandFormat f = vips_image_get_format(h);
  info.floats = f == VIPS_FORMAT_FLOAT || f == VIPS_FORMAT_DOUBLE;
  info.bits = f == VIPS_FORMAT_USHORT || f == VIPS_FORMAT_SHORT                         ? 16
              : f == VIPS_FORMAT_FLOAT || f == VIPS_FORMAT_UINT || f == VIPS_FORMAT_INT ? 32
              : f == VIPS_FORMAT_DOUBLE                                                 ? 64
                                                                                        : 8;
  const VipsInterpretation in = vips_image_get_interpretation(h);
  const bool icc = vips_image_get_typeof(h, VIPS_META_ICC_NAME) != 0;
  if (in == VIPS_INTERPRETATION_CMYK)
    info.colour = icc ? "CMYK, ICC profile: " + icc_description(h) : "CMYK (no profile: a generic CMYK one is assumed)";
  else if (icc)
    info.colour = "ICC profile: " + icc_description(h);
  else if (in == VIPS_INTERPRETATION_scRGB)
    info.colour = "linear (scRGB)";
  else if (labq || in == VIPS_INTERPRETATION_LAB || in == VIPS_INTERPRETATION_LABS)
    info.colour = "CIELab (converted to sRGB)";
  else if (in == VIPS_INTERPRETATION_B_W || in == VIPS_INTERPRETATION_GREY16)
    info.colour = "grey (sRGB assumed)";
  else
    info.colour = "sRGB (no profile)";
  info.pages = std::max(1, vips_image_get_n_pages(h));
}


} // namespace redraw::detail
