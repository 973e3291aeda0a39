// An interlaced PNG read pass by pass (png_passes.h). libpng reports errors by longjmp: the
// functions that call it hold no object with a destructor, and what they learn goes through
// pointers to memory owned by the caller, so a jump loses nothing.
#include "engine/images/png_passes.h"

#include <png.h>

#include <cstring>

namespace redraw::detail {

namespace {

// Adam7: where each pass's grid starts and its spacing, in pixels.
constexpr int32_t k_x0[7] = {0, 4, 0, 2, 0, 1, 0};
constexpr int32_t k_y0[7] = {0, 0, 4, 0, 2, 0, 1};
constexpr int32_t k_dx[7] = {8, 8, 4, 4, 2, 2, 1};
constexpr int32_t k_dy[7] = {8, 8, 8, 4, 4, 2, 2};

struct Reader {
  const uint8_t* data = nullptr;
  size_t size = 0, at = 0;
};

void read_bytes(png_structp png, png_bytep out, size_t n) {
  auto* r = static_cast<Reader*>(png_get_io_ptr(png));
  if (n > r->size - r->at) png_error(png, "the file ends early");
  std::memcpy(out, r->data + r->at, n);
  r->at += n;
}
void on_error(png_structp png, png_const_charp) { png_longjmp(png, 1); }
void on_warning(png_structp, png_const_charp) {}

/// The header and libvips' layout (png_passes.h); false when libpng gave up on the header.
bool read_header(png_structp png, png_infop info, PngPasses* out) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_crc_action(png, PNG_CRC_QUIET_USE, PNG_CRC_QUIET_USE); // as decode_vips reads them: anyway
  png_read_info(png, info);
  const int colour = png_get_color_type(png, info), depth = png_get_bit_depth(png, info);
  if (colour == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (colour == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
  const uint16_t one = 1;
  uint8_t first_byte = 0;
  std::memcpy(&first_byte, &one, 1);
  if (depth == 16 && first_byte == 1) png_set_swap(png); // PNG is big-endian; libvips hands out native order
  if (png_set_interlace_handling(png) != 7) return false;
  png_read_update_info(png, info);
  out->width = int32_t(png_get_image_width(png, info));
  out->height = int32_t(png_get_image_height(png, info));
  out->bands = png_get_channels(png, info);
  out->sample_bytes = png_get_bit_depth(png, info) / 8;
  return out->width > 0 && out->height > 0 && out->sample_bytes >= 1 &&
         png_get_rowbytes(png, info) == size_t(out->width) * size_t(out->bands) * size_t(out->sample_bytes);
}

/// Where the rows stopped, in memory that outlives the jump.
struct Position {
  int pass = 0;
  int32_t row = 0;
};

/// Every row of every pass in order, each into `samples` (libpng writes only the pass's pixels of a
/// row), marking in `known` the pixels each delivered row holds; stops where libpng gives up.
void read_all_rows(png_structp png, PngPasses* out, uint8_t* known, Position* at) {
  if (setjmp(png_jmpbuf(png))) return;
  const size_t row_bytes = size_t(out->width) * size_t(out->bands) * size_t(out->sample_bytes);
  for (at->pass = 0; at->pass < 7; ++at->pass)
    for (at->row = 0; at->row < out->height; ++at->row) {
      png_read_row(png, out->samples.data() + size_t(at->row) * row_bytes, nullptr);
      const int p = at->pass;
      const int32_t y = at->row;
      if (y < k_y0[p] || (y - k_y0[p]) % k_dy[p] != 0) continue;
      for (int32_t x = k_x0[p]; x < out->width; x += k_dx[p]) {
        known[size_t(y) * size_t(out->width) + size_t(x)] = 1;
        ++out->pixels_read;
      }
    }
}

/// Each pixel no pass reached takes the nearest read pixel above and to its left on the grid of an
/// earlier pass, finest first (passes 1-6 cover the even rows, 1-5 the even rows and columns, ...).
void fill_from_earlier_passes(PngPasses& out, const std::vector<uint8_t>& known) {
  const size_t w = size_t(out.width), pixel = size_t(out.bands) * size_t(out.sample_bytes);
  constexpr int32_t k_masks[6][2] = {{~0, ~1}, {~1, ~1}, {~1, ~3}, {~3, ~3}, {~3, ~7}, {~7, ~7}}; // x, y
  for (int32_t y = 0; y < out.height; ++y)
    for (int32_t x = 0; x < out.width; ++x) {
      if (known[size_t(y) * w + size_t(x)]) continue;
      for (const auto& m : k_masks) {
        const size_t from = size_t(y & m[1]) * w + size_t(x & m[0]);
        if (!known[from]) continue;
        std::memcpy(out.samples.data() + (size_t(y) * w + size_t(x)) * pixel, out.samples.data() + from * pixel,
                    pixel);
        break;
      }
    }
  out.first_missing_row = out.height;
  for (int32_t y = 0; y < out.height; y += 8)
    if (!known[size_t(y) * w]) { // the first pass never reached this row: nothing below it was read
      out.first_missing_row = y;
      break;
    }
}

} // namespace

bool is_interlaced_png(const uint8_t* data, size_t size) {
  static const uint8_t k_magic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  return size > 28 && std::memcmp(data, k_magic, 8) == 0 && std::memcmp(data + 12, "IHDR", 4) == 0 && data[28] == 1;
}

PngPasses read_png_passes(const uint8_t* data, size_t size) {
  PngPasses out;
  if (!is_interlaced_png(data, size)) return out;
  struct LibPng { // both structs destroyed together, whatever happened
    png_structp png = nullptr;
    png_infop info = nullptr;
    ~LibPng() { png_destroy_read_struct(&png, info ? &info : nullptr, nullptr); }
  } lib;
  lib.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, on_error, on_warning);
  if (!lib.png || !(lib.info = png_create_info_struct(lib.png))) return out;
  Reader reader{data, size, 0};
  png_set_read_fn(lib.png, &reader, read_bytes);
  if (!read_header(lib.png, lib.info, &out)) return out;
  out.samples.assign(size_t(out.width) * size_t(out.height) * size_t(out.bands) * size_t(out.sample_bytes), 0);
  std::vector<uint8_t> known(size_t(out.width) * size_t(out.height), 0);
  Position at;
  read_all_rows(lib.png, &out, known.data(), &at);
  out.pass_cut = at.pass < 7 ? at.pass + 1 : 0;
  fill_from_earlier_passes(out, known);
  out.ok = true;
  return out;
}

} // namespace redraw::detail
