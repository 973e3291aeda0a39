#pragma once
/// An interlaced (Adam7) PNG that ends early, read pass by pass with libpng (engine-internal,
/// used by vips_decoder.cpp for the policy in decode_support.h):
/// - an Adam7 file stores seven passes, each a sparser grid of the whole picture, one after the
///   other: a file cut in its fifth pass holds every pixel of the first four;
/// - every pixel of a row libpng delivered is the file's own; a pixel no pass reached is copied from
///   the nearest pixel of an earlier pass above and to the left of it (the block a browser shows
///   while the file loads);
/// - a row that no pixel of the first pass covers has nothing to show (first_missing_row).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace redraw::detail {

/// True when the bytes are a PNG whose IHDR says Adam7 interlacing.
bool is_interlaced_png(const uint8_t* data, size_t size);

/// What the passes that were read hold, laid out as libvips' PNG loader lays it out: palette and
/// low bit depths expanded to 8 bits, tRNS to an alpha band, 16-bit samples in native byte order.
struct PngPasses {
  int32_t width = 0, height = 0, bands = 0, sample_bytes = 0;
  std::vector<uint8_t> samples;   ///< width x height x bands samples of sample_bytes each
  int pass_cut = 0;               ///< 1..7: the pass in which the data ended; 0 when every pass was read
  uint64_t pixels_read = 0;       ///< pixels the file itself gave (the rest are copied or missing)
  int32_t first_missing_row = 0;  ///< rows from here down have no pixel of any pass (the height when none)
  bool ok = false;                ///< false when libpng could not read even the header
};

/// Reads every row of every pass that the bytes hold, stopping quietly where they end or break.
/// Never throws for a damaged file (ok = false when the header cannot be read).
PngPasses read_png_passes(const uint8_t* data, size_t size);

} // namespace redraw::detail
