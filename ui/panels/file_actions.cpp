#include "ui/panels/file_actions.h"

#include "ui/state/settings_store.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace redraw {
namespace fs = std::filesystem;

void remember_file(UiState& ui, const std::string& path) {
  std::error_code ec;
  if (fs::equivalent(path, default_image_path(), ec)) return; // the bundled picture is no "recent file"
  add_recent(ui.settings, path);
  const fs::path parent = fs::absolute(path, ec).lexically_normal().parent_path();
  if (!ec) ui.settings.last_folder = parent.string();
}

namespace {
std::string stem_of_source(const UiState& ui) {
  const std::string& src = ui.run_a().status.source_path;
  return src.empty() ? std::string("redraw") : fs::path(src).stem().string();
}
} // namespace

void open_dialog(UiState& ui, FileDialogPurpose purpose) {
  FileDialogState& d = ui.dialog;
  d.open_requested = true;
  d.purpose = purpose;
  d.folder = ui.settings.last_folder.empty() ? fs::current_path().string() : ui.settings.last_folder;
  d.listed_folder.clear();
  const std::string stem = stem_of_source(ui);
  const int32_t w = std::max(1, ui.run_a().status.width), h = std::max(1, ui.run_a().status.height);
  switch (purpose) {
  case FileDialogPurpose::Open:
    d.path = d.folder + "/";
    break;
  case FileDialogPurpose::SaveModel:
    d.path = (fs::path(d.folder) / (stem + ".redraw")).string();
    break;
  case FileDialogPurpose::Export:
    prepare_export_size(d, w, h);
    d.path = (fs::path(d.folder) / (stem + "_redraw.png")).string();
    break;
  }
}

void prepare_export_size(FileDialogState& d, int32_t w, int32_t h) {
  w = std::max(1, w);
  h = std::max(1, h);
  if (d.export_width <= 0 || d.export_height <= 0) {
    d.export_width = w * 4;
    d.export_height = h * 4;
  } else if (d.export_lock_aspect) {
    d.export_height = std::clamp(int32_t(std::lround(double(d.export_width) * h / w)), 1, 65536);
  }
}

UiIntent export_intent(const FileDialogState& d, const TimelapseState& tl) {
  switch (d.export_kind) {
  case 1:
    return {run_command::ExportComparison{d.path, d.export_width, d.export_height, d.export_bit_depth}};
  case 3:
    return {intent::ExportCompare{d.path, d.export_width, d.export_height}};
  case 2: {
    // GIF and MP4 are 8-bit; the choice shows (and counts) for PNG frames, a folder ending in '/'.
    const bool png_frames = !d.path.empty() && d.path.back() == '/';
    return {intent::ExportTimelapse{d.path, d.export_width, d.export_height, d.timelapse_fps, d.timelapse_overlay,
                                    png_frames ? d.export_bit_depth : 8}};
  }
  default:
    return {run_command::ExportImage{d.path, d.export_width, d.export_height, d.export_bit_depth,
                                d.export_scrubbed_frame && tl.active ? tl.shown_step : -1}};
  }
}

TimelapseOptions timelapse_options(const intent::ExportTimelapse& in) {
  TimelapseOptions o;
  o.width = in.width;
  o.height = in.height;
  o.fps = double(in.fps);
  o.overlay = in.overlay;
  o.bit_depth = in.bit_depth;
  return o;
}

} // namespace redraw
