// libFuzzer target: decode_image on arbitrary bytes, through every decoder Redraw enables: the
// libvips loaders left unblocked (PNG, JPEG, WebP, TIFF, HEIF/AVIF), OpenEXR, giflib and stb
// (BMP, TGA, PNM), and the PNG chunk walk before them. The seed corpus has one small file per format.
// A decode either returns a well-formed image or throws ImageError; anything else is a bug.
#include "engine/errors.h"
#include "engine/images/image.h"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  redraw::DecodeLimits limits;
  limits.max_bytes = uint64_t(64) << 20; // small pictures only: the budget check is under test too
  try {
    const redraw::Image img = redraw::decode_image(data, size, "fuzz", limits);
    if (img.width < 1 || img.height < 1 || img.channels < 1 || img.channels > 4 ||
        img.pixels.size() != size_t(img.width) * size_t(img.height) * size_t(img.channels))
      std::abort();
    for (float v : img.pixels)
      if (!(v >= 0.0f && v <= 1.0f)) std::abort();
  } catch (const redraw::ImageError&) {
  }
  return 0;
}
