// PNG decoding with libpng. libpng reports errors by longjmp, so every libpng call happens inside
// read_png(), which owns the setjmp and holds no C++ object with a destructor; everything it
// fills lives in a PngRead that the caller owns.
#include "engine/errors.h"
#include "engine/image_decoders.h"

#include <png.h>

#include <algorithm>
#include <csetjmp>
#include <cstring>
#include <exception>
#include <vector>

namespace redraw::detail {

namespace {

/// libpng may allocate this much for one ancillary chunk (iCCP, zTXt, ...): a compressed text
/// chunk cannot expand past it.
constexpr png_alloc_size_t k_max_chunk_bytes = png_alloc_size_t(8) << 20;

struct PngRead {
  const uint8_t* data = nullptr;
  size_t size = 0, pos = 0;
  const std::string* name = nullptr;
  const DecodeLimits* limits = nullptr;
  png_structp png = nullptr;
  png_infop info = nullptr;
  std::string message; ///< libpng's error, or ours from the read callback
  bool truncated = false;
  std::exception_ptr size_error; ///< check_decode_size's ImageError, rethrown after libpng returns
  uint32_t width = 0, height = 0;
  int channels = 0, bit_depth = 8;
  std::vector<uint8_t> rows; ///< height * rowbytes
  std::vector<png_bytep> row_pointers;

  ~PngRead() {
    if (png) png_destroy_read_struct(&png, info ? &info : nullptr, nullptr);
  }
};

[[noreturn]] void on_error(png_structp png, png_const_charp message) {
  auto* r = static_cast<PngRead*>(png_get_error_ptr(png));
  if (r && r->message.empty()) r->message = message ? message : "unknown error";
  png_longjmp(png, 1);
}
void on_warning(png_structp, png_const_charp) {}

void on_read(png_structp png, png_bytep out, png_size_t n) {
  auto* r = static_cast<PngRead*>(png_get_io_ptr(png));
  if (n > r->size - r->pos) {
    r->truncated = true;
    png_error(png, "the file ends before the image does");
  }
  std::memcpy(out, r->data + r->pos, n);
  r->pos += n;
}

/// All libpng calls. Returns false after a libpng error (r.message says which) or a size refused
/// by check_decode_size (r.size_error).
bool read_png(PngRead& r) {
  if (setjmp(png_jmpbuf(r.png))) return false;
  png_set_read_fn(r.png, &r, on_read);
  png_set_user_limits(r.png, uint32_t(k_max_image_side), uint32_t(k_max_image_side));
  png_set_chunk_malloc_max(r.png, k_max_chunk_bytes);
  png_read_info(r.png, r.info);
  png_uint_32 w = 0, h = 0;
  int depth = 0, color = 0, interlace = 0;
  png_get_IHDR(r.png, r.info, &w, &h, &depth, &color, &interlace, nullptr, nullptr);
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(r.png);
  if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(r.png);
  if (png_get_valid(r.png, r.info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(r.png);
  if (interlace != PNG_INTERLACE_NONE) png_set_interlace_handling(r.png);
  png_read_update_info(r.png, r.info);
  r.channels = png_get_channels(r.png, r.info);
  r.bit_depth = png_get_bit_depth(r.png, r.info);
  r.width = w;
  r.height = h;
  const size_t rowbytes = png_get_rowbytes(r.png, r.info);
  if (r.channels < 1 || r.channels > 4 || (r.bit_depth != 8 && r.bit_depth != 16) ||
      rowbytes != size_t(w) * size_t(r.channels) * size_t(r.bit_depth / 8)) {
    r.message = "unsupported PNG pixel format";
    return false;
  }
  try {
    check_decode_size(*r.name, w, h, r.channels, r.bit_depth / 8, *r.limits);
    r.rows.resize(rowbytes * h);
    r.row_pointers.resize(h);
  } catch (...) { // no exception may cross libpng: hand it to the caller
    r.size_error = std::current_exception();
    return false;
  }
  for (uint32_t y = 0; y < h; ++y)
    r.row_pointers[y] = r.rows.data() + size_t(y) * rowbytes;
  png_read_image(r.png, r.row_pointers.data());
  return true;
}

} // namespace

Image decode_png(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits) {
  // The IHDR's size first, so an absurd header is refused in words rather than by libpng's limit.
  if (size >= 24 && std::memcmp(data + 12, "IHDR", 4) == 0) {
    const auto be32 = [&](size_t o) {
      return (uint32_t(data[o]) << 24) | (uint32_t(data[o + 1]) << 16) | (uint32_t(data[o + 2]) << 8) | data[o + 3];
    };
    check_decode_size(name, be32(16), be32(20), 1, 1, limits); // the fewest bytes any PNG of that size needs
  }
  PngRead r;
  r.data = data;
  r.size = size;
  r.name = &name;
  r.limits = &limits;
  r.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &r, on_error, on_warning);
  if (!r.png) throw ImageError(name + ": out of memory starting the PNG decoder");
  r.info = png_create_info_struct(r.png);
  if (!r.info) throw ImageError(name + ": out of memory starting the PNG decoder");
  if (!read_png(r)) {
    if (r.size_error) std::rethrow_exception(r.size_error);
    if (r.truncated) throw ImageError(name + ": corrupt or truncated image: the file ends before the image does");
    throw ImageError(name + ": corrupt or truncated image: the PNG is damaged (" + r.message + ")");
  }
  Image img;
  img.width = int32_t(r.width);
  img.height = int32_t(r.height);
  img.channels = r.channels;
  img.pixels.resize(size_t(r.width) * r.height * size_t(r.channels));
  if (r.bit_depth == 16) { // big-endian samples
    for (size_t i = 0; i < img.pixels.size(); ++i)
      img.pixels[i] = float((uint32_t(r.rows[2 * i]) << 8) | r.rows[2 * i + 1]) / 65535.0f;
  } else {
    for (size_t i = 0; i < img.pixels.size(); ++i)
      img.pixels[i] = float(r.rows[i]) / 255.0f;
  }
  return img;
}

} // namespace redraw::detail
