// GIF decoding with giflib: the first frame, composited onto a transparent logical screen.
// Every size is checked before its buffer exists: the logical screen as soon as the header is
// read, and each frame's descriptor before any of its rows are decoded.
#include "engine/images/decode_support.h"
#include "engine/errors.h"
#include "engine/images/image_decoders.h"

#include <gif_lib.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

namespace redraw::detail {

namespace {

struct GifSource {
  const uint8_t* data = nullptr;
  size_t size = 0, pos = 0;
  bool truncated = false;
};

int on_read(GifFileType* gif, GifByteType* out, int n) {
  auto* src = static_cast<GifSource*>(gif->UserData);
  const size_t want = size_t(std::max(n, 0));
  const size_t got = std::min(want, src->size - src->pos);
  if (got < want) src->truncated = true;
  if (got) std::memcpy(out, src->data + src->pos, got);
  src->pos += got;
  return int(got);
}

struct GifCloser {
  void operator()(GifFileType* g) const {
    int err = 0;
    DGifCloseFile(g, &err);
  }
};

/// The frames after the one just decoded, their pixel data skipped undecoded; counting stops at
/// the end or at the first damage (the first frame stands either way).
int32_t count_more_frames(GifFileType* gif) {
  int32_t more = 0;
  for (;;) {
    GifRecordType type = UNDEFINED_RECORD_TYPE;
    if (DGifGetRecordType(gif, &type) == GIF_ERROR || type == TERMINATE_RECORD_TYPE) return more;
    int code = 0;
    GifByteType* block = nullptr;
    if (type == EXTENSION_RECORD_TYPE) {
      if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) return more;
      while (block)
        if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) return more;
    } else if (type == IMAGE_DESC_RECORD_TYPE) {
      if (DGifGetImageDesc(gif) == GIF_ERROR || DGifGetCode(gif, &code, &block) == GIF_ERROR) return more;
      while (block)
        if (DGifGetCodeNext(gif, &block) == GIF_ERROR) return more;
      ++more;
    } else {
      return more;
    }
  }
}

} // namespace

Image decode_gif(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits,
                 int32_t& frames) {
  GifSource src{data, size};
  const auto fail = [&](int code) -> ImageError {
    if (src.truncated || code == D_GIF_ERR_READ_FAILED)
      return ImageError(name + ": corrupt or truncated image: the file ends before the image does");
    const char* why = GifErrorString(code);
    return ImageError(name + ": corrupt or truncated image: the GIF is damaged (" + (why ? why : "unknown error") +
                      ")");
  };
  int err = 0;
  std::unique_ptr<GifFileType, GifCloser> gif(DGifOpen(&src, on_read, &err)); // reads the screen descriptor
  if (!gif) throw fail(err);
  const int sw = gif->SWidth, sh = gif->SHeight;
  check_decode_size(name, uint64_t(std::max(sw, 0)), uint64_t(std::max(sh, 0)), 4, 1, limits, "GIF screen");
  int transparent = -1; // from the Graphics Control Extension before the frame
  for (;;) {
    GifRecordType type = UNDEFINED_RECORD_TYPE;
    if (DGifGetRecordType(gif.get(), &type) == GIF_ERROR) throw fail(gif->Error);
    if (type == TERMINATE_RECORD_TYPE) throw ImageError(name + ": corrupt image: the GIF holds no frame");
    if (type == EXTENSION_RECORD_TYPE) {
      int code = 0;
      GifByteType* block = nullptr;
      if (DGifGetExtension(gif.get(), &code, &block) == GIF_ERROR) throw fail(gif->Error);
      if (code == GRAPHICS_EXT_FUNC_CODE && block && block[0] >= 4) transparent = (block[1] & 1) ? int(block[4]) : -1;
      while (block) // the rest of the extension's sub-blocks
        if (DGifGetExtensionNext(gif.get(), &block) == GIF_ERROR) throw fail(gif->Error);
      continue;
    }
    if (type != IMAGE_DESC_RECORD_TYPE) throw ImageError(name + ": corrupt image: unknown GIF record");
    if (DGifGetImageDesc(gif.get()) == GIF_ERROR) throw fail(gif->Error);
    const GifImageDesc& d = gif->Image;
    check_decode_size(name, uint64_t(std::max(d.Width, 0)), uint64_t(std::max(d.Height, 0)), 4, 1, limits, "GIF frame");
    if (d.Left < 0 || d.Top < 0 || int64_t(d.Left) + d.Width > sw || int64_t(d.Top) + d.Height > sh)
      throw ImageError(name + ": corrupt image: a GIF frame lies outside the picture");
    const ColorMapObject* map = d.ColorMap ? d.ColorMap : gif->SColorMap;
    if (!map || !map->Colors || map->ColorCount < 1) throw ImageError(name + ": corrupt image: the GIF has no colours");
    std::vector<GifPixelType> indices(size_t(d.Width) * size_t(d.Height));
    if (d.Interlace) { // rows arrive in four passes
      static constexpr int k_start[4] = {0, 4, 2, 1}, k_step[4] = {8, 8, 4, 2};
      for (int pass = 0; pass < 4; ++pass)
        for (int y = k_start[pass]; y < d.Height; y += k_step[pass])
          if (DGifGetLine(gif.get(), indices.data() + size_t(y) * size_t(d.Width), d.Width) == GIF_ERROR)
            throw fail(gif->Error);
    } else if (DGifGetLine(gif.get(), indices.data(), d.Width * d.Height) == GIF_ERROR) {
      throw fail(gif->Error);
    }
    // Compose onto the screen: uncovered and transparent pixels have alpha 0.
    Image img;
    img.width = sw;
    img.height = sh;
    img.channels = 4;
    img.pixels.assign(size_t(sw) * size_t(sh) * 4, 0.0f);
    for (int y = 0; y < d.Height; ++y)
      for (int x = 0; x < d.Width; ++x) {
        const int k = indices[size_t(y) * size_t(d.Width) + size_t(x)];
        if (k == transparent) continue;
        const GifColorType c = map->Colors[std::min(k, map->ColorCount - 1)];
        float* o = img.pixels.data() + (size_t(d.Top + y) * size_t(sw) + size_t(d.Left + x)) * 4;
        o[0] = c.Red / 255.0f, o[1] = c.Green / 255.0f, o[2] = c.Blue / 255.0f, o[3] = 1.0f;
      }
    frames = 1 + count_more_frames(gif.get());
    return img;
  }
}

} // namespace redraw::detail
