#pragma once
/// Exporting the training timelapse: every snapshot rendered at a chosen size and written as an
/// animated GIF (giflib), an MP4 (ffmpeg, when installed) or a folder of PNG frames.
/// - The destination is checked before anything is rendered (check_timelapse_destination).
/// - Nothing partial is ever left behind: the GIF and MP4 appear atomically at the end, and PNG
///   frames are written into a temp folder that becomes the target folder at the end. A cancel
///   (progress returning false -> CancelledError), a full disk or any error removes what was written.
/// - Memory: one frame (width * height * channels floats) plus one render band; frames are
///   rendered one at a time, never all at once.
/// - Threading: blocking; call it from a worker thread in the GUI and cancel through progress.
#include "engine/backend.h"
#include "engine/model_files/checkpoint.h"
#include "engine/export/ffmpeg_writer.h" // ffmpeg_available(): MP4 needs ffmpeg on PATH
#include "engine/export/gif_writer.h"
#include "engine/images/image.h"
#include "engine/frames/renderer.h"

#include <filesystem>
#include <set>
#include <functional>
#include <optional>
#include <span>

namespace redraw {

enum class TimelapseFormat : int32_t { Gif = 0, Mp4, PngFrames };

/// "gif", "mp4" or "png frames".
const char* timelapse_format_name(TimelapseFormat format);
/// The format a destination asks for: ".gif", ".mp4", or a folder (a trailing '/', an existing
/// folder, or a name without extension) for PNG frames. ConfigError for anything else.
TimelapseFormat timelapse_format_for(const std::filesystem::path& out);

/// How long an exported GIF or MP4 shows its last frame by default.
constexpr double k_timelapse_hold_last_seconds = 2.0;

struct TimelapseOptions {
  int32_t width = 0, height = 0;              ///< frame size in pixels (required; GIF allows up to 65535 per side)
  double fps = 12;                            ///< frames per second (> 0; GIF plays at most 50)
  bool overlay = false;                       ///< draw "step N  PSNR x dB" on each frame
  /// GIF and MP4 hold the last frame this long (a GIF as its delay, an MP4 by repeating it), so a
  /// looping animation shows the finished picture before it starts again. 0: no hold.
  double hold_last_seconds = k_timelapse_hold_last_seconds;
  int bit_depth = 8;                          ///< PNG frames only: 8 or 16
  std::optional<TimelapseFormat> format;      ///< empty = timelapse_format_for(out)
  int64_t max_tile_pixels = int64_t(1) << 18; ///< render band size, as RenderOptions
  /// Called with the fraction done in [0, 1] (frames and bands); returning false cancels
  /// (CancelledError). May be empty.
  std::function<bool(double)> progress;
};

/// Throws IoError naming `out` when the export could not be written: a missing or read-only
/// folder, a folder where a file is expected (or the reverse), or no ffmpeg for MP4. Cheap:
/// creates and removes a temp file or folder, renders nothing.
void check_timelapse_destination(const std::filesystem::path& out, TimelapseFormat format);

/// One timelapse frame as exported: `frame`'s network rendered at w x h (values in [0, 1]), with the
/// label drawn when `overlay` is set.
Image render_timelapse_frame(Backend& backend, const ModelSpec& model, std::span<const float> fourier_b,
                             const Snapshot& frame, int32_t w, int32_t h, bool overlay, const RenderOptions& opts = {});

/// Renders every frame (oldest first) and writes the timelapse to `out`. ConfigError for bad
/// options or no frames, IoError for the destination, CancelledError when cancelled.
void export_timelapse(Backend& backend, const ModelSpec& model, std::span<const float> fourier_b,
                      std::span<const Snapshot> frames, const std::filesystem::path& out, const TimelapseOptions& opts);

/// Writes frames into a folder as frame_00000.png, frame_00001.png, ... atomically: they go to a
/// temp folder first, which becomes `dir` at commit() (or, when `dir` already exists, whose frames
/// replace `dir`'s). The folder's ".redraw-frames" lists the frames an export wrote; a later export
/// into it replaces and removes only those, and refuses a folder that holds any other frame_*.png.
/// Destroyed without commit(), it removes everything it wrote.
class PngFramesWriter {
public:
  /// IoError naming `dir` when its parent folder is missing or not writable, `dir` is a file, or
  /// it holds frame_*.png files that no earlier export wrote there (naming one).
  PngFramesWriter(const std::filesystem::path& dir, int bit_depth = 8);
  ~PngFramesWriter();
  PngFramesWriter(const PngFramesWriter&) = delete;
  PngFramesWriter& operator=(const PngFramesWriter&) = delete;
  void add_frame(const Image& frame); ///< IoError on a write failure
  void commit();
  const std::filesystem::path& folder() const { return m_dir; }

private:
  void write_manifest(const std::filesystem::path& folder) const;
  std::filesystem::path m_dir, m_temp;
  std::set<std::string> m_earlier; ///< the frames an earlier export wrote into an existing `dir`
  int m_bit_depth;
  bool m_dir_existed = false, m_committed = false;
  int64_t m_frames = 0;
};

/// "frame_00042.png"
std::string frame_file_name(int64_t index);

} // namespace redraw
