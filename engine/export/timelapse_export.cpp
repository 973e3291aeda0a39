#include "engine/export/timelapse_export.h"

#include "engine/images/resample.h"
#include "engine/frames/timelapse.h"

#include "engine/atomic_file.h"
#include "engine/path_problem.h"
#include "engine/errors.h"
#include "engine/export/overlay_text.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <set>
#include <memory>
#include <unistd.h>

namespace redraw {

namespace {

std::filesystem::path folder_path(const std::filesystem::path& out) {
  return out.has_filename() ? out : out.parent_path(); // "frames/" -> "frames"
}

void fsync_folder(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

/// Frame index of "frame_NNNNN.png", or -1.
int64_t frame_index_of(const std::string& name) {
  if (name.size() < 11 || name.rfind("frame_", 0) != 0 || name.substr(name.size() - 4) != ".png") return -1;
  const std::string digits = name.substr(6, name.size() - 10);
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); }))
    return -1;
  return std::stoll(digits);
}

/// The frames an earlier export wrote into a folder, as its manifest lists them (one name a line).
constexpr const char* k_frames_manifest = ".redraw-frames";

std::set<std::string> manifest_names(const std::filesystem::path& dir) {
  std::set<std::string> names;
  std::ifstream in(dir / k_frames_manifest);
  std::string line;
  while (std::getline(in, line))
    if (frame_index_of(line) >= 0) names.insert(line);
  return names;
}
} // namespace

const char* timelapse_format_name(TimelapseFormat format) {
  switch (format) {
  case TimelapseFormat::Gif:
    return "gif";
  case TimelapseFormat::Mp4:
    return "mp4";
  case TimelapseFormat::PngFrames:
    return "png frames";
  }
  return "?";
}

TimelapseFormat timelapse_format_for(const std::filesystem::path& out) {
  const std::string text = out.string();
  if (text.empty()) throw ConfigError("timelapse: no output given");
  if (text.back() == '/') return TimelapseFormat::PngFrames;
  std::string ext = out.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (ext == ".gif") return TimelapseFormat::Gif;
  if (ext == ".mp4") return TimelapseFormat::Mp4;
  std::error_code ec;
  if (ext.empty() || std::filesystem::is_directory(out, ec)) return TimelapseFormat::PngFrames;
  throw ConfigError(text + ": unknown timelapse format '" + ext +
                    "' (use OUT.gif, OUT.mp4 or a folder DIR/ for PNG frames)");
}

std::string frame_file_name(int64_t index) {
  char b[32];
  std::snprintf(b, sizeof b, "frame_%05lld.png", static_cast<long long>(index));
  return b;
}

// ---- PNG frames -----------------------------------------------------------------------------

PngFramesWriter::PngFramesWriter(const std::filesystem::path& dir, int bit_depth)
    : m_dir(folder_path(dir)), m_bit_depth(bit_depth) {
  if (bit_depth != 8 && bit_depth != 16) throw ConfigError("PNG frames: bit depth must be 8 or 16");
  if (m_dir.empty()) throw IoError("(empty path): no output folder given");
  std::error_code ec;
  const auto st = std::filesystem::status(m_dir, ec);
  if (std::filesystem::exists(st)) {
    if (!std::filesystem::is_directory(st)) throw IoError(m_dir.string() + ": exists and is not a folder");
    m_dir_existed = true;
    // Only frames an earlier export wrote here are ever replaced or removed: a folder holding a
    // frame file of anyone else's is refused before any work.
    m_earlier = manifest_names(m_dir);
    for (const auto& entry : std::filesystem::directory_iterator(m_dir, ec)) {
      const std::string name = entry.path().filename().string();
      if (frame_index_of(name) >= 0 && !m_earlier.count(name))
        throw IoError(m_dir.string() + ": holds " + name +
                      ", which no earlier redraw export wrote there; choose an empty or new folder, or move "
                      "the frame_*.png files out first");
    }
    clean_stale_temps(m_dir);
    m_temp = create_temp_folder(m_dir);
  } else {
    const std::filesystem::path parent = m_dir.has_parent_path() ? m_dir.parent_path() : ".";
    if (const std::string why = folder_problem(m_dir); !why.empty()) throw IoError(m_dir.string() + ": " + why);
    clean_stale_temps(parent);
    m_temp = create_temp_folder(parent);
  }
  if (m_temp.empty()) throw IoError(m_dir.string() + ": cannot create a folder there (" + std::strerror(errno) + ")");
}

PngFramesWriter::~PngFramesWriter() {
  if (m_committed || m_temp.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(m_temp, ec);
}

void PngFramesWriter::add_frame(const Image& frame) {
  if (m_committed) throw IoError(m_dir.string() + ": frames already committed");
  try {
    write_png(m_temp / frame_file_name(m_frames), frame, m_bit_depth);
  } catch (const IoError& e) {
    throw IoError(m_dir.string() + ": " + e.what());
  }
  ++m_frames;
}

void PngFramesWriter::write_manifest(const std::filesystem::path& folder) const {
  std::string names;
  for (int64_t i = 0; i < m_frames; ++i) names += frame_file_name(i) + "\n";
  write_text_atomic(folder / k_frames_manifest, names);
}

void PngFramesWriter::commit() {
  if (m_committed) return;
  std::error_code ec;
  if (!m_dir_existed) {
    write_manifest(m_temp);
    std::filesystem::rename(m_temp, m_dir, ec); // also replaces an empty folder made meanwhile
    if (ec) throw IoError(m_dir.string() + ": cannot move the frames into place (" + ec.message() + ")");
    m_committed = true;
    fsync_folder(m_dir.has_parent_path() ? m_dir.parent_path() : std::filesystem::path("."));
    return;
  }
  // The folder already existed: move the new frames in, then drop the earlier export's frames
  // beyond the new count (its manifest names them; no other file is touched), so the folder holds
  // exactly this sequence.
  for (int64_t i = 0; i < m_frames; ++i) {
    std::filesystem::rename(m_temp / frame_file_name(i), m_dir / frame_file_name(i), ec);
    if (ec)
      throw IoError(m_dir.string() + ": cannot move " + frame_file_name(i) + " into place (" + ec.message() + ")");
  }
  write_manifest(m_dir);
  for (const std::string& name : m_earlier)
    if (frame_index_of(name) >= m_frames) std::filesystem::remove(m_dir / name, ec);
  std::filesystem::remove_all(m_temp, ec);
  m_committed = true;
  fsync_folder(m_dir);
}

// ---- export ---------------------------------------------------------------------------------

void check_timelapse_destination(const std::filesystem::path& out, TimelapseFormat format) {
  switch (format) {
  case TimelapseFormat::Mp4:
    if (!ffmpeg_available())
      throw IoError(out.string() + ": MP4 export needs ffmpeg, which is not on PATH; install ffmpeg, or export a .gif "
                                   "or a folder of PNG frames");
    check_writable_destination(out);
    return;
  case TimelapseFormat::Gif:
    check_writable_destination(out);
    return;
  case TimelapseFormat::PngFrames: {
    PngFramesWriter probe(out); // creates and, on destruction, removes its temp folder
    return;
  }
  }
}

Image render_timelapse_frame(Backend& backend, const ModelSpec& model, std::span<const float> fourier_b,
                             const Snapshot& frame, int32_t w, int32_t h, bool overlay, const RenderOptions& opts) {
  Image img;
  if (has_weights(frame)) {
    const std::vector<float> weights = frame_weights(frame);
    img = render_image(backend, NetworkView{&model, weights, fourier_b}, w, h, opts);
  } else { // a picture only: resampled, in the network's channels
    img = resample(from_frame_picture(frame.picture), w, h, ResampleFilter::Mitchell);
  }
  if (overlay) draw_frame_label(img, frame.metrics);
  return img;
}

namespace {
/// The three writers behind one small interface, so export_timelapse has one loop.
struct FrameSink {
  virtual ~FrameSink() = default;
  virtual void add(const Image& frame) = 0;
  /// The last frame, shown for at least `hold` seconds where the format has time (PNG frames do not).
  virtual void add_last(const Image& frame, double hold) { add(frame); }
  virtual void commit() = 0;
};
struct GifSink final : FrameSink {
  GifWriter w;
  GifSink(const std::filesystem::path& f, int32_t width, int32_t height, int32_t c, double fps)
      : w(f, width, height, c, fps) {}
  void add(const Image& frame) override { w.add_frame(frame); }
  void add_last(const Image& frame, double hold) override { w.add_frame(frame, hold); }
  void commit() override { w.commit(); }
};
struct Mp4Sink final : FrameSink {
  Mp4Writer w;
  double fps;
  Mp4Sink(const std::filesystem::path& f, int32_t width, int32_t height, double rate)
      : w(f, width, height, rate), fps(rate) {}
  void add(const Image& frame) override { w.add_frame(frame); }
  void add_last(const Image& frame, double hold) override {
    const int64_t copies = std::max<int64_t>(1, int64_t(std::ceil(hold * fps)));
    for (int64_t i = 0; i < copies; ++i)
      w.add_frame(frame);
  }
  void commit() override { w.commit(); }
};
struct PngSink final : FrameSink {
  PngFramesWriter w;
  PngSink(const std::filesystem::path& f, int depth) : w(f, depth) {}
  void add(const Image& frame) override { w.add_frame(frame); }
  void commit() override { w.commit(); }
};
} // namespace

void export_timelapse(Backend& backend, const ModelSpec& model, std::span<const float> fourier_b,
                      std::span<const Snapshot> frames, const std::filesystem::path& out,
                      const TimelapseOptions& opts) {
  if (frames.empty()) throw ConfigError("timelapse: the model has no snapshots to export");
  if (opts.width < 1 || opts.height < 1 || opts.width > k_max_render_side || opts.height > k_max_render_side)
    throw ConfigError("timelapse: frame size " + std::to_string(opts.width) + "x" + std::to_string(opts.height) +
                      " is outside 1.." + std::to_string(k_max_render_side) + " per side");
  if (int64_t(opts.width) * opts.height > k_max_image_pixels)
    throw ConfigError("timelapse: frames of " + std::to_string(opts.width) + "x" + std::to_string(opts.height) +
                      " are too large");
  if (!(opts.fps > 0) || opts.fps > 1000) throw ConfigError("timelapse: the frame rate must be in (0, 1000]");
  const int64_t count = parameter_count(model);
  for (const auto& f : frames)
    if ((has_weights(f) && int64_t(frame_weight_count(f)) != count) ||
        (!has_weights(f) && f.picture.channels != model.output_channels))
      throw ConfigError("timelapse: a snapshot does not match the network's shape");

  const TimelapseFormat format = opts.format ? *opts.format : timelapse_format_for(out);
  // Opening the writer is the destination check: it fails before any frame is rendered.
  std::unique_ptr<FrameSink> sink;
  switch (format) {
  case TimelapseFormat::Gif:
    sink = std::make_unique<GifSink>(out, opts.width, opts.height, model.output_channels, opts.fps);
    break;
  case TimelapseFormat::Mp4:
    sink = std::make_unique<Mp4Sink>(out, opts.width, opts.height, opts.fps);
    break;
  case TimelapseFormat::PngFrames:
    sink = std::make_unique<PngSink>(out, opts.bit_depth);
    break;
  }

  const double n = double(frames.size());
  for (size_t i = 0; i < frames.size(); ++i) {
    RenderOptions ro;
    ro.max_tile_pixels = opts.max_tile_pixels;
    if (opts.progress) ro.progress = [&](double f) { return opts.progress((double(i) + 0.95 * f) / n); };
    const Image img =
        render_timelapse_frame(backend, model, fourier_b, frames[i], opts.width, opts.height, opts.overlay, ro);
    if (i + 1 == frames.size())
      sink->add_last(img, opts.hold_last_seconds);
    else
      sink->add(img);
    if (opts.progress && !opts.progress(double(i + 1) / n)) throw CancelledError("timelapse export cancelled");
  }
  sink->commit();
}

} // namespace redraw
