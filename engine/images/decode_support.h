#pragma once
/// What every decoder behind decode_image shares (engine-internal; image_decoders.h lists the
/// decoders, image_decode.cpp picks one):
/// - the header's size checked against the limits and the memory budget before any pixel exists;
/// - the sRGB curve for linear (HDR) samples and the walk that applies an EXIF orientation;
/// - one policy for a file that ends early: the rows that are there are kept, the missing ones are
///   shown mid grey and ImageInfo::incomplete says which; more than half missing is refused.
#include "engine/images/image.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace redraw::detail {

/// ImageError unless a w x h image with `channels` decoded samples of `sample_bytes` each (plus
/// the 4-byte floats of the returned Image) is within k_max_image_side, k_max_image_pixels and
/// limits.max_bytes. `what` names the part checked ("image", "GIF frame").
void check_decode_size(const std::string& name, uint64_t w, uint64_t h, int channels, int sample_bytes,
                       const DecodeLimits& limits, const char* what = "image");

/// ImageError naming the file unless a header's sides are both at least 1: a probe never reports
/// an empty or negative size.
void check_header_sides(const std::string& name, int64_t w, int64_t h);

/// ImageError naming the file: not a format Redraw reads (and the list of those it does).
[[noreturn]] void refuse_unknown_format(const std::string& name);

/// True when the bytes begin with `magic`.
bool starts_with(const uint8_t* data, size_t size, std::string_view magic);

/// sRGB transfer function of a linear value, clamped to [0, 1] first.
float linear_to_srgb(float v);

/// A 90-degree turn or mirror of interleaved samples, for EXIF orientation o (1..8): for output
/// pixel (x, y), the source pixel is origin + x * step_x + y * step_y (in pixels).
struct OrientationWalk {
  int64_t origin = 0, step_x = 1, step_y = 0;
  int32_t out_w = 0, out_h = 0;
};
OrientationWalk orientation_walk(int32_t o, int32_t w, int32_t h);

/// A decode whose file ended early, in the rows of the picture as stored (before any EXIF turn):
/// rows [first_missing, rows) could not be read. `scale` > 1 when the rows are those of a picture
/// shrunk on load (JPEG 1/scale): the figures are then given in the file's own rows, of which
/// there are `file_rows`.
struct MissingRows {
  int32_t first_missing = 0, rows = 0;
  int32_t scale = 1, file_rows = 0;
  bool turned = false; ///< an EXIF orientation other than 1 shows the stored rows turned or mirrored
};

/// The policy for a file that ends early: ImageError naming the file when more than half of the
/// rows are missing ("corrupt or truncated image: the file ends before the image does; rows
/// 40-96 of 96 (59%) are missing, more than half of the picture"); otherwise what to tell the
/// user, for ImageInfo::incomplete ("the file ends early; rows 61-96 of 96 (38%) are missing and
/// shown grey", or that every row was read when none is missing).
std::string missing_rows_text(const std::string& name, const MissingRows& missing);

/// Where the rows a loader filled begin. libjpeg and libpng fill what they could not read with one
/// flat colour (mid grey, black), so the picture's last pixel is that colour, and so is the end of
/// every row the data did not reach in full: a JPEG is decoded left to right in bands of 8 or 16
/// rows, and where its data runs out inside a band every row of the band stops at the same column.
/// A row counts as missing, from the last one up, while its last pixels (8, or the width) are the
/// fill colour, or most of its pixels are (the row where the data ran out holds some real pixels
/// and, for a JPEG, one block decoded from the zero bits past the end). `row_block` > 1 (a JPEG's
/// 8-row blocks) rounds the first missing row down to a block's first: the top row of a cut band
/// blends its colour with the band above and is no longer exactly the fill colour. `rows` when the
/// last pixels are not flat.
int32_t trailing_fill_start(const uint8_t* samples, int32_t w, int32_t rows, size_t pixel_bytes, int32_t row_block);

/// Paints the pixels of `img` whose stored row (through `walk`, stored width `stored_w`) is at or
/// past `first_missing` mid grey (0.5), with an opaque alpha: what a missing part is shown as.
void paint_missing_rows(Image& img, const OrientationWalk& walk, int32_t stored_w, int32_t first_missing);

} // namespace redraw::detail
