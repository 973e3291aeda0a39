#include "engine/export/gif_writer.h"

#include "engine/atomic_file.h"
#include "engine/errors.h"

#include <gif_lib.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <vector>

namespace redraw {

namespace {
constexpr int k_levels_r = 6, k_levels_g = 7, k_levels_b = 6;
constexpr uint8_t k_bayer4[4][4] = {{0, 8, 2, 10}, {12, 4, 14, 6}, {3, 11, 1, 9}, {15, 7, 13, 5}};

uint8_t level_value(int q, int levels) { return uint8_t(std::lround(double(q) * 255.0 / double(levels - 1))); }

int dither_level(float v, int levels, float threshold) {
  const float x = std::clamp(v, 0.0f, 1.0f) * float(levels - 1) + threshold;
  return std::clamp(int(x), 0, levels - 1);
}
} // namespace

struct GifWriter::Impl {
  AtomicFileWriter file;
  GifFileType* gif = nullptr;
  std::exception_ptr sink_error;
  int32_t width, height, channels;
  double fps;
  bool committed = false;

  Impl(const std::filesystem::path& f, int32_t w, int32_t h, int32_t c, double rate)
      : file(f), width(w), height(h), channels(c), fps(rate) {}

  [[noreturn]] void fail(const std::string& what, int code) {
    if (sink_error) std::rethrow_exception(sink_error); // the real cause, e.g. "disk full"
    throw IoError(file.target().string() + ": " + what + " (" +
                  (GifErrorString(code) ? GifErrorString(code) : "giflib error") + ")");
  }
  void check(int rc, const char* what) {
    if (rc != GIF_OK) fail(what, gif ? gif->Error : 0);
  }

  /// giflib is C: an exception must not cross it. Errors are kept and reported after the call.
  static int write_cb(GifFileType* g, const GifByteType* data, int len) {
    auto* self = static_cast<Impl*>(g->UserData);
    if (self->sink_error) return 0;
    try {
      self->file.write(data, size_t(len));
      return len;
    } catch (...) {
      self->sink_error = std::current_exception();
      return 0;
    }
  }
};

GifWriter::GifWriter(const std::filesystem::path& file, int32_t width, int32_t height, int32_t channels, double fps) {
  if (width < 1 || height < 1 || width > 65535 || height > 65535)
    throw ConfigError("GIF: " + std::to_string(width) + "x" + std::to_string(height) + " is outside 1..65535 per side");
  if (channels != 1 && channels != 3) throw ConfigError("GIF: frames must have 1 or 3 channels");
  if (!(fps > 0)) throw ConfigError("GIF: the frame rate must be positive");
  m_impl = new Impl(file, width, height, channels, fps);
  try {
    int err = 0;
    m_impl->gif = EGifOpen(m_impl, &Impl::write_cb, &err);
    if (!m_impl->gif) m_impl->fail("cannot start the GIF", err);
    EGifSetGifVersion(m_impl->gif, true);
    GifColorType colors[256] = {};
    if (channels == 3) {
      for (int r = 0; r < k_levels_r; ++r)
        for (int g = 0; g < k_levels_g; ++g)
          for (int b = 0; b < k_levels_b; ++b) {
            GifColorType& c = colors[(r * k_levels_g + g) * k_levels_b + b];
            c.Red = level_value(r, k_levels_r);
            c.Green = level_value(g, k_levels_g);
            c.Blue = level_value(b, k_levels_b);
          }
    } else {
      for (int i = 0; i < 256; ++i)
        colors[i].Red = colors[i].Green = colors[i].Blue = GifByteType(i);
    }
    ColorMapObject* map = GifMakeMapObject(256, colors);
    if (!map) throw std::bad_alloc();
    const int rc = EGifPutScreenDesc(m_impl->gif, width, height, 8, 0, map); // copies the map
    GifFreeMapObject(map);
    m_impl->check(rc, "cannot write the GIF header");
    // Loop forever: NETSCAPE2.0 application extension, loop count 0.
    static const GifByteType k_app[] = {'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0'};
    static const GifByteType k_loop[] = {1, 0, 0};
    m_impl->check(EGifPutExtensionLeader(m_impl->gif, APPLICATION_EXT_FUNC_CODE), "cannot write the loop extension");
    m_impl->check(EGifPutExtensionBlock(m_impl->gif, sizeof k_app, k_app), "cannot write the loop extension");
    m_impl->check(EGifPutExtensionBlock(m_impl->gif, sizeof k_loop, k_loop), "cannot write the loop extension");
    m_impl->check(EGifPutExtensionTrailer(m_impl->gif), "cannot write the loop extension");
  } catch (...) {
    delete m_impl; // the destructor below does not run for a throwing constructor
    m_impl = nullptr;
    throw;
  }
}

GifWriter::~GifWriter() {
  if (!m_impl) return;
  if (m_impl->gif) {
    int err = 0;
    EGifCloseFile(m_impl->gif, &err); // frees; the temp file is removed by the AtomicFileWriter
  }
  delete m_impl;
}

void GifWriter::add_frame(const Image& frame, double hold_seconds) {
  Impl& s = *m_impl;
  if (!s.gif) throw IoError(s.file.target().string() + ": GIF already finished");
  if (frame.width != s.width || frame.height != s.height || frame.channels != s.channels)
    throw ConfigError("GIF: frame of " + std::to_string(frame.width) + "x" + std::to_string(frame.height) + "x" +
                      std::to_string(frame.channels) + " does not match the animation's " + std::to_string(s.width) +
                      "x" + std::to_string(s.height) + "x" + std::to_string(s.channels));
  // Delay of frame k: the rounded end time minus the rounded start time, in 1/100 s.
  const auto at = [&](int64_t k) { return int64_t(std::llround(double(k) * 100.0 / s.fps)); };
  int64_t hundredths = at(m_frames + 1) - at(m_frames);
  if (hold_seconds > 0)
    hundredths = std::max(hundredths, int64_t(std::llround(std::min(hold_seconds, 655.35) * 100.0)));
  const int delay = int(std::clamp<int64_t>(hundredths, 2, 65535));
  GraphicsControlBlock gcb{};
  gcb.DisposalMode = DISPOSE_DO_NOT;
  gcb.UserInputFlag = false;
  gcb.DelayTime = delay;
  gcb.TransparentColor = NO_TRANSPARENT_COLOR;
  GifByteType ext[4];
  EGifGCBToExtension(&gcb, ext);
  s.check(EGifPutExtension(s.gif, GRAPHICS_EXT_FUNC_CODE, 4, ext), "cannot write a frame delay");
  s.check(EGifPutImageDesc(s.gif, 0, 0, s.width, s.height, false, nullptr), "cannot write a frame header");
  std::vector<GifPixelType> line(size_t(s.width));
  for (int32_t y = 0; y < s.height; ++y) {
    const float* p = frame.pixels.data() + size_t(y) * size_t(s.width) * size_t(s.channels);
    if (s.channels == 1) {
      for (int32_t x = 0; x < s.width; ++x)
        line[size_t(x)] = GifPixelType(std::lround(std::clamp(p[x], 0.0f, 1.0f) * 255.0f));
    } else {
      for (int32_t x = 0; x < s.width; ++x) {
        const float t = (float(k_bayer4[y & 3][x & 3]) + 0.5f) / 16.0f;
        const int r = dither_level(p[3 * x], k_levels_r, t);
        const int g = dither_level(p[3 * x + 1], k_levels_g, t);
        const int b = dither_level(p[3 * x + 2], k_levels_b, t);
        line[size_t(x)] = GifPixelType((r * k_levels_g + g) * k_levels_b + b);
      }
    }
    s.check(EGifPutLine(s.gif, line.data(), s.width), "cannot write a frame");
  }
  ++m_frames;
}

void GifWriter::commit() {
  Impl& s = *m_impl;
  if (!s.gif) throw IoError(s.file.target().string() + ": GIF already finished");
  if (m_frames == 0) throw ConfigError("GIF: no frames to write");
  int err = 0;
  const int rc = EGifCloseFile(s.gif, &err);
  s.gif = nullptr;
  if (rc != GIF_OK) s.fail("cannot finish the GIF", err);
  if (s.sink_error) std::rethrow_exception(s.sink_error);
  s.file.commit();
}

} // namespace redraw
