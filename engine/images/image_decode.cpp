// decode_image / load_image / probe_image: read the file, and pick the decoder by its first bytes
// (image_decoders.h). Nothing here decodes; what the decoders share is in decode_support.h.
#include "engine/images/decode_support.h"
#include "engine/errors.h"
#include "engine/images/image.h"
#include "engine/images/image_decoders.h"
#include "engine/path_problem.h"

#include <limits>
#include <string_view>

namespace redraw {

namespace {

using detail::starts_with;

/// Files larger than this are refused before reading (a 65536^2 RGBA PNG compresses far below it).
constexpr std::uintmax_t k_max_image_file_bytes = std::uintmax_t(2) << 30;

uint16_t le16(const uint8_t* p) { return uint16_t(p[0] | (p[1] << 8)); }

bool is_gif(const uint8_t* data, size_t size) { return starts_with(data, size, "GIF87a") || starts_with(data, size, "GIF89a"); }

/// What libvips reads: a PNG (whose CRCs may need putting right before libvips recognises it) or
/// anything an enabled loader recognises.
bool for_vips(const uint8_t* data, size_t size) {
  return detail::is_png(data, size) || detail::vips_recognises(data, size);
}

void check_file_size(size_t size, const std::string& name) {
  if (size == 0) throw ImageError(name + ": the file is empty");
  if (size > size_t(std::numeric_limits<int>::max())) throw ImageError(name + ": the file is too large to decode");
}

ImageInfo gif_info(int32_t w, int32_t h, int32_t channels, int32_t frames) {
  ImageInfo info;
  info.format = "GIF";
  info.width = w;
  info.height = h;
  info.channels = channels;
  info.colour = "sRGB (palette)";
  info.pages = frames;
  return info;
}

} // namespace

Image decode_image(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits,
                   const DecodeOptions& options, ImageInfo* info_out) {
  check_file_size(size, name);
  ImageInfo info;
  Image img;
  if (is_gif(data, size)) {
    int32_t frames = 1;
    img = detail::decode_gif(data, size, name, limits, frames);
    info = gif_info(img.width, img.height, img.channels, frames);
    if (frames > 1) info.notes.push_back("first of " + std::to_string(frames) + " frames");
  } else if (detail::is_exr(data, size)) {
    img = detail::decode_exr(data, size, name, limits, info);
  } else if (detail::is_tiff(data, size) && detail::tiff_needs_libtiff(data, size)) {
    img = detail::decode_tiff_libtiff(data, size, name, limits, info);
  } else if (for_vips(data, size)) {
    img = detail::decode_vips(data, size, name, limits, options, info);
  } else if (detail::is_tiff(data, size)) {
    detail::refuse_unreadable_tiff(data, size, name);
  } else if (detail::is_stb_format(data, size)) {
    img = detail::decode_stb(data, size, name, limits);
    info = detail::probe_stb(data, size, name);
  } else {
    detail::refuse_unknown_format(name);
  }
  if (info_out) *info_out = std::move(info);
  return img;
}

ImageInfo probe_image(const uint8_t* data, size_t size, const std::string& name) {
  check_file_size(size, name);
  ImageInfo info;
  if (is_gif(data, size)) {
    if (size < 13) throw ImageError(name + ": corrupt or truncated image: the GIF header is cut short");
    info = gif_info(le16(data + 6), le16(data + 8), 3, 1);
  } else if (detail::is_exr(data, size)) {
    info = detail::probe_exr(data, size, name);
  } else if (detail::is_tiff(data, size) && detail::tiff_needs_libtiff(data, size)) {
    info = detail::probe_tiff_libtiff(data, size, name);
  } else if (for_vips(data, size)) {
    info = detail::probe_vips(data, size, name);
  } else if (detail::is_tiff(data, size)) {
    detail::refuse_unreadable_tiff(data, size, name);
  } else if (detail::is_stb_format(data, size)) {
    info = detail::probe_stb(data, size, name);
  } else {
    detail::refuse_unknown_format(name);
  }
  detail::check_header_sides(name, info.width, info.height);
  return info;
}

const std::vector<std::string>& image_extensions() {
  static const std::vector<std::string> k = {".png", ".jpg",  ".jpeg", ".jpe", ".webp", ".tif", ".tiff", ".heic",
                                             ".heif", ".avif", ".exr", ".gif", ".bmp",  ".tga", ".pnm",  ".pgm",
                                             ".ppm"};
  return k;
}

const std::vector<std::string>& image_mime_types() {
  static const std::vector<std::string> k = {
      "image/png",  "image/jpeg", "image/webp", "image/tiff",    "image/heic", "image/heif",    "image/avif",
      "image/x-exr", "image/gif", "image/bmp",  "image/x-tga",   "image/x-portable-anymap", "image/x-portable-graymap",
      "image/x-portable-pixmap"};
  return k;
}

namespace {
std::vector<uint8_t> read_image_file(const std::filesystem::path& file) {
  std::vector<uint8_t> bytes;
  if (const std::string why = read_user_file(file, k_max_image_file_bytes, "an image", "2 GiB", bytes); !why.empty())
    throw ImageError(why);
  return bytes;
}
} // namespace

Image load_image(const std::filesystem::path& file, const DecodeLimits& limits, const DecodeOptions& options,
                 ImageInfo* info) {
  const std::vector<uint8_t> bytes = read_image_file(file);
  return decode_image(bytes.data(), bytes.size(), file.string(), limits, options, info);
}

ImageInfo probe_image_file(const std::filesystem::path& file) {
  const std::vector<uint8_t> bytes = read_image_file(file);
  return probe_image(bytes.data(), bytes.size(), file.string());
}

} // namespace redraw
