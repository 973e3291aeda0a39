#pragma once
/// Animated GIF output through giflib, written atomically through an AtomicFileWriter.
/// - RGB frames are quantised to a fixed 6x7x6 colour cube (252 colours) with a 4x4 ordered
///   dither: the palette is the same for every frame, so still areas do not flicker. Grey frames
///   use a 256-level grey palette.
/// - Per-frame delays follow the frame rate in GIF's 1/100 s units, spread so the average rate is
///   exact (a delay is at least 2/100 s, as browsers slow down anything shorter: GIF tops out at 50 fps).
/// - The animation loops forever (NETSCAPE2.0 extension).
/// - Memory: one frame's 8-bit index row at a time besides the caller's frame.
#include "engine/images/image.h"

#include <filesystem>

namespace redraw {

class GifWriter {
public:
  /// Opens the temp file beside `file`; IoError naming `file` when it cannot be created.
  /// channels is 1 (grey) or 3 (RGB); each side is 1..65535; fps > 0.
  GifWriter(const std::filesystem::path& file, int32_t width, int32_t height, int32_t channels, double fps);
  ~GifWriter(); ///< without commit(), removes the temp file; never throws
  GifWriter(const GifWriter&) = delete;
  GifWriter& operator=(const GifWriter&) = delete;

  /// Appends one frame (width x height x channels, values clamped to [0, 1]). IoError on failure.
  /// hold_seconds > 0 shows it at least that long (up to 655.35 s): the last frame's hold.
  void add_frame(const Image& frame, double hold_seconds = 0);
  /// Writes the trailer and renames the file onto the target. IoError on failure.
  void commit();
  int64_t frame_count() const { return m_frames; }

private:
  struct Impl;
  Impl* m_impl;
  int64_t m_frames = 0;
};

} // namespace redraw
