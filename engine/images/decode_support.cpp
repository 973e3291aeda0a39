// The helpers every decoder shares (decode_support.h): size and budget checks from the header,
// the sRGB curve, EXIF orientation walks, and the policy for a file that ends early.
#include "engine/images/decode_support.h"

#include "engine/errors.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace redraw::detail {

void check_decode_size(const std::string& name, uint64_t w, uint64_t h, int channels, int sample_bytes,
                       const DecodeLimits& limits, const char* what) {
  if (w < 1 || h < 1)
    throw ImageError(name + ": the " + what + " is empty (" + std::to_string(w) + "x" + std::to_string(h) + ")");
  if (w > uint64_t(k_max_image_side) || h > uint64_t(k_max_image_side) || w * h > uint64_t(k_max_image_pixels))
    throw ImageError(name + ": the header claims " + std::to_string(w) + "x" + std::to_string(h) + " pixels for the " +
                     what + ", over the limit of " + std::to_string(k_max_image_side) + " per side and " +
                     std::to_string(k_max_image_pixels) + " pixels in all");
  const uint64_t need = w * h * uint64_t(channels) * uint64_t(sample_bytes + int(sizeof(float)));
  if (need > limits.max_bytes)
    throw ImageBudgetError(name + ": decoding the " + std::to_string(w) + "x" + std::to_string(h) + " " + what +
                               " needs " + std::to_string((need + (1 << 20) - 1) >> 20) +
                               " MiB, over the image memory budget of " + std::to_string(limits.max_bytes >> 20) +
                               " MiB (--max-image-memory raises it; in the app, Machine > Image memory)",
                           need, limits.max_bytes);
}

float linear_to_srgb(float v) {
  if (!(v > 0.0f)) return 0.0f;
  if (v >= 1.0f) return 1.0f; // exactly: 1.055 - 0.055 rounds below 1 in float
  return v <= 0.0031308f ? 12.92f * v : 1.055f * std::pow(v, 1.0f / 2.4f) - 0.055f;
}

OrientationWalk orientation_walk(int32_t o, int32_t w, int32_t h) {
  const int64_t W = w, H = h, last_row = (H - 1) * W;
  OrientationWalk k;
  k.out_w = o >= 5 ? h : w;
  k.out_h = o >= 5 ? w : h;
  switch (o) {
  case 2: k = {W - 1, -1, W, k.out_w, k.out_h}; break;                 // mirrored left-right
  case 3: k = {last_row + W - 1, -1, -W, k.out_w, k.out_h}; break;     // turned 180
  case 4: k = {last_row, 1, -W, k.out_w, k.out_h}; break;              // mirrored top-bottom
  case 5: k = {0, W, 1, k.out_w, k.out_h}; break;                      // transposed
  case 6: k = {last_row, -W, 1, k.out_w, k.out_h}; break;              // turned 90 clockwise to show
  case 7: k = {last_row + W - 1, -W, -1, k.out_w, k.out_h}; break;     // transversed
  case 8: k = {W - 1, W, -1, k.out_w, k.out_h}; break;                 // turned 90 anticlockwise to show
  default: k = {0, 1, W, k.out_w, k.out_h}; break;
  }
  return k;
}

void check_header_sides(const std::string& name, int64_t w, int64_t h) {
  if (w < 1 || h < 1)
    throw ImageError(name + ": corrupt image: the header gives an impossible size (" + std::to_string(w) + "x" +
                     std::to_string(h) + ")");
}

void refuse_unknown_format(const std::string& name) {
  throw ImageError(name + ": not a readable image (unknown format; Redraw reads PNG, JPEG, WebP, TIFF, HEIC, AVIF, "
                          "OpenEXR, GIF, BMP, TGA and PNM)");
}

bool starts_with(const uint8_t* data, size_t size, std::string_view magic) {
  return size >= magic.size() &&
         std::equal(magic.begin(), magic.end(), data, [](char a, uint8_t b) { return uint8_t(a) == b; });
}

std::string missing_rows_text(const std::string& name, const MissingRows& m) {
  const int64_t scale = std::max(m.scale, 1);
  const int64_t rows = m.file_rows > 0 ? m.file_rows : int64_t(m.rows) * scale;
  const int64_t first = std::clamp<int64_t>(int64_t(m.first_missing) * scale, 0, rows); // 0-based, file rows
  const int64_t missing = rows - first;
  if (missing <= 0) return "the file ends early, but every row of the picture was read";
  // Rounded, but never to 0% or to 100% while a row is there.
  const int64_t percent = std::clamp<int64_t>((missing * 100 + rows / 2) / rows, 1, missing < rows ? 99 : 100);
  const std::string span = (missing == 1 ? "row " + std::to_string(rows)
                                         : "rows " + std::to_string(first + 1) + "-" + std::to_string(rows)) +
                           " of " + std::to_string(rows) + (m.turned ? " as stored" : "") + " (" +
                           std::to_string(percent) + "%)";
  const char* verb = missing == 1 ? " is" : " are";
  if (missing * 2 > rows)
    throw ImageError(name + ": corrupt or truncated image: the file ends before the image does; " + span + verb +
                     " missing, more than half of the picture");
  return "the file ends early; " + span + verb + " missing and shown grey";
}

int32_t trailing_fill_start(const uint8_t* samples, int32_t w, int32_t rows, size_t pixel_bytes, int32_t row_block) {
  if (rows < 1) return 0;
  const size_t row_bytes = size_t(w) * pixel_bytes;
  const int32_t tail = std::min(w, 8);
  const uint8_t* fill = samples + size_t(rows) * row_bytes - pixel_bytes;
  const auto is_fill = [&](int32_t x, int32_t y) {
    return std::memcmp(samples + size_t(y) * row_bytes + size_t(x) * pixel_bytes, fill, pixel_bytes) == 0;
  };
  const auto missing = [&](int32_t y) {
    int32_t filled_tail = 0, filled = 0;
    for (int32_t x = w - 1; x >= w - tail && is_fill(x, y); --x)
      ++filled_tail;
    if (filled_tail == tail) return true;
    for (int32_t x = 0; x < w; ++x)
      filled += is_fill(x, y);
    return 2 * filled > w;
  };
  int32_t first = rows;
  for (int32_t x = w - tail; x < w; ++x)
    if (!is_fill(x, rows - 1)) return rows;
  while (first > 0 && missing(first - 1))
    --first;
  if (row_block > 1) first -= first % row_block;
  return first;
}

void paint_missing_rows(Image& img, const OrientationWalk& walk, int32_t stored_w, int32_t first_missing) {
  const int c = img.channels;
  const int colour = c == 2 || c == 4 ? c - 1 : c;
  for (int32_t y = 0; y < walk.out_h; ++y) {
    int64_t src = walk.origin + int64_t(y) * walk.step_y;
    float* o = img.pixels.data() + size_t(y) * size_t(walk.out_w) * size_t(c);
    for (int32_t x = 0; x < walk.out_w; ++x, src += walk.step_x, o += c) {
      if (src / stored_w < first_missing) continue;
      for (int k = 0; k < c; ++k)
        o[k] = k < colour ? 0.5f : 1.0f;
    }
  }
}

} // namespace redraw::detail
