#pragma once
/// MP4 (H.264) output by piping raw RGB frames into an `ffmpeg` process found on PATH.
/// - ffmpeg writes a temp file created exclusively beside the target (atomic_file.h), through the
///   descriptor it inherits; commit() waits for it, fsyncs and renames it onto the target. An error, a cancel or a destroyed writer kills ffmpeg and
///   removes the temp file, so no partial video is ever left behind.
/// - Odd sizes are padded by one black row/column (yuv420p needs even sides).
/// - Memory: one frame's 8-bit RGB buffer.
#include "engine/images/image.h"

#include <filesystem>
#include <string>

namespace redraw {

/// True when an executable named `ffmpeg` is on PATH (the GUI greys MP4 out otherwise).
bool ffmpeg_available();

class Mp4Writer {
public:
  /// Starts ffmpeg; IoError naming `file` when ffmpeg is missing or the folder cannot be written.
  Mp4Writer(const std::filesystem::path& file, int32_t width, int32_t height, double fps);
  ~Mp4Writer(); ///< without commit(), stops ffmpeg and removes the temp file; never throws
  Mp4Writer(const Mp4Writer&) = delete;
  Mp4Writer& operator=(const Mp4Writer&) = delete;

  /// Appends one frame (width x height, 1 or 3 channels; grey is sent as RGB). IoError when
  /// ffmpeg has stopped (its message is included).
  void add_frame(const Image& frame);
  /// Closes the pipe, waits for ffmpeg and renames the video onto the target. IoError on failure.
  void commit();

private:
  [[noreturn]] void fail(const std::string& what);
  void stop();
  std::string ffmpeg_messages();
  std::filesystem::path m_target, m_temp;
  int32_t m_width, m_height;
  int m_pipe = -1; ///< ffmpeg's stdin
  int m_pid = -1;
  int m_temp_fd = -1; ///< the temp file, which ffmpeg writes as its fd 3
  std::FILE* m_log = nullptr; ///< ffmpeg's stderr
  bool m_committed = false;
};

} // namespace redraw
