#include "ui/panels/file_actions.h"
#include "ui/widgets/bounded_text.h"
#include "ui/panels/panels.h"
#include "ui/widgets/ui_scale.h"

#include "engine/export/ffmpeg_writer.h"
#include "engine/images/image.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cctype>
#include <filesystem>

namespace redraw {
namespace fs = std::filesystem;

namespace {
bool matches(const fs::path& p, FileDialogPurpose purpose) {
  std::string e = p.extension().string();
  for (auto& c : e)
    c = char(std::tolower(static_cast<unsigned char>(c)));
  switch (purpose) {
  case FileDialogPurpose::Open:
    return e == ".redraw" || std::find(image_extensions().begin(), image_extensions().end(), e) != image_extensions().end();
  case FileDialogPurpose::SaveModel:
    return e == ".redraw";
  case FileDialogPurpose::Export:
    return e == ".png" || e == ".gif" || e == ".mp4";
  }
  return false;
}

void list_folder(FileDialogState& d) {
  d.entries.clear();
  d.list_error.clear();
  d.listed_folder = d.folder;
  std::error_code ec;
  std::vector<std::string> dirs, files;
  for (fs::directory_iterator it(d.folder, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code ec2;
    if (it->is_directory(ec2))
      dirs.push_back(name + "/");
    else if (matches(it->path(), d.purpose))
      files.push_back(name);
  }
  if (ec) d.list_error = d.folder + ": " + ec.message();
  std::sort(dirs.begin(), dirs.end());
  std::sort(files.begin(), files.end());
  d.entries = std::move(dirs);
  d.entries.insert(d.entries.end(), files.begin(), files.end());
}

/// Swaps the path's extension for the chosen export (a folder for PNG frames).
void set_extension(std::string& path, const char* ext) {
  fs::path p(path);
  if (!path.empty() && path.back() == '/') p = fs::path(path.substr(0, path.size() - 1));
  p.replace_extension(ext);
  path = p.string() + (*ext ? "" : "/");
}

/// The path's extension in lower case (".tif").
std::string lower_extension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext;
}

/// A picture export with a fixed sample format: 16-bit TIFF or float OpenEXR (engine/export/export_writers.h).
bool fixed_depth_format(const std::string& ext) { return ext == ".tif" || ext == ".tiff" || ext == ".exr"; }

void draw_export_options(UiState& ui) {
  FileDialogState& d = ui.dialog;
  const char* kinds[] = {"Reconstruction", "Side-by-side comparison", "Timelapse", "Runs side by side"};
  ImGui::TextUnformatted("export");
  if (d.export_kind == 3 && !ui.compare.open) d.export_kind = 0;
  for (int i = 0; i < 4; ++i) {
    ImGui::SameLine();
    ImGui::BeginDisabled((i == 2 && ui.timelapse.frames.empty()) || (i == 3 && !ui.compare.open));
    if (ImGui::RadioButton(kinds[i], d.export_kind == i)) {
      d.export_kind = i;
      set_extension(d.path, i == 2 ? ".gif" : ".png");
    }
    ImGui::EndDisabled();
  }
  if (d.export_kind == 0 && ui.timelapse.active) {
    // On a row of its own, its note wrapped: beside the export kinds it ran past the dialog's edge.
    char label[64];
    std::snprintf(label, sizeof label, "the frame on screen (step %lld)",
                  static_cast<long long>(ui.timelapse.shown_step));
    ImGui::Checkbox(label, &d.export_scrubbed_frame);
    if (d.export_scrubbed_frame && ui.timelapse.shown_is_picture()) {
      ImGui::PushTextWrapPos(0);
      ImGui::TextDisabled("this frame is a picture only (its weights were not kept): scrub to a keyframe to export it");
      ImGui::PopTextWrapPos();
    }
  }
  if (d.export_kind == 0 || d.export_kind == 1) { // pictures: PNG, 16-bit TIFF or float OpenEXR by extension
    const std::string ext = lower_extension(d.path);
    ImGui::TextUnformatted("format");
    ImGui::SameLine();
    if (ImGui::RadioButton("PNG", !fixed_depth_format(ext))) set_extension(d.path, ".png");
    ImGui::SameLine();
    if (ImGui::RadioButton("TIFF (16-bit)", ext == ".tif" || ext == ".tiff")) set_extension(d.path, ".tif");
    ImGui::SameLine();
    if (ImGui::RadioButton("OpenEXR (32-bit float, linear)", ext == ".exr")) set_extension(d.path, ".exr");
  }
  if (d.export_kind == 3)
    ImGui::TextDisabled("run A's and run B's redraws side by side, each labelled: %d x %d", 2 * d.export_width,
                        d.export_height);
  if (d.export_kind == 1)
    ImGui::TextDisabled("the original upscaled bicubically beside the network's redraw: %d x %d", 2 * d.export_width,
                        d.export_height);
  if (d.export_kind == 2) {
    const bool mp4 = ffmpeg_available();
    ImGui::TextUnformatted("format");
    ImGui::SameLine();
    if (ImGui::RadioButton("GIF", fs::path(d.path).extension() == ".gif")) set_extension(d.path, ".gif");
    ImGui::SameLine();
    ImGui::BeginDisabled(!mp4);
    if (ImGui::RadioButton("MP4", fs::path(d.path).extension() == ".mp4")) set_extension(d.path, ".mp4");
    ImGui::EndDisabled();
    if (!mp4 && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("ffmpeg is not installed");
    ImGui::SameLine();
    if (ImGui::RadioButton("PNG frames (folder)", !d.path.empty() && d.path.back() == '/')) set_extension(d.path, "");
    ImGui::SameLine(0, ui_px(20));
    ImGui::SetNextItemWidth(ui_px(90));
    ImGui::InputInt("fps", &d.timelapse_fps, 1, 5);
    d.timelapse_fps = std::clamp(d.timelapse_fps, 1, 60);
    ImGui::SameLine();
    ImGui::Checkbox("step and PSNR on each frame", &d.timelapse_overlay);
  }
  const int32_t tw = std::max(1, ui.run_a().status.width), th = std::max(1, ui.run_a().status.height);
  const double aspect = double(th) / double(tw);
  ImGui::TextUnformatted("size");
  ImGui::SameLine();
  auto quick = [&](const char* label, int32_t w) {
    ImGui::SameLine();
    if (ImGui::SmallButton(label)) {
      d.export_width = w;
      d.export_height = std::max(1, int32_t(std::lround(w * aspect)));
    }
  };
  quick("1x", tw);
  quick("2x", tw * 2);
  quick("4x", tw * 4);
  quick("1024", 1024);
  quick("4096", 4096);
  ImGui::SetNextItemWidth(ui_px(120));
  if (ImGui::InputInt("width", &d.export_width, 16, 256) && d.export_lock_aspect)
    d.export_height = std::max(1, int32_t(std::lround(d.export_width * aspect)));
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ui_px(120));
  if (ImGui::InputInt("height", &d.export_height, 16, 256) && d.export_lock_aspect)
    d.export_width = std::max(1, int32_t(std::lround(d.export_height / aspect)));
  d.export_width = std::clamp(d.export_width, 1, 65536);
  d.export_height = std::clamp(d.export_height, 1, 65536);
  ImGui::SameLine();
  ImGui::Checkbox("lock aspect", &d.export_lock_aspect);
  // PNG (and PNG frames) offer both depths; TIFF is always 16-bit and OpenEXR float.
  const bool fixed_depth = d.export_kind != 2 && fixed_depth_format(lower_extension(d.path));
  if (!fixed_depth && (d.export_kind != 2 || (!d.path.empty() && d.path.back() == '/'))) {
    ImGui::TextUnformatted("bit depth");
    ImGui::SameLine();
    ImGui::RadioButton("8-bit", &d.export_bit_depth, 8);
    ImGui::SameLine();
    ImGui::RadioButton("16-bit", &d.export_bit_depth, 16);
  }
}

void accept(UiState& ui) {
  FileDialogState& d = ui.dialog;
  switch (d.purpose) {
  case FileDialogPurpose::Open:
    // a = 1: the dialog was opened after the unsaved-run prompt was answered (confirm_prompt.h).
    ui.push(intent::OpenPath{d.path, ui.confirm.dialog_confirmed});
    break;
  case FileDialogPurpose::SaveModel:
    ui.push(intent::SaveModel{d.path});
    break;
  case FileDialogPurpose::Export:
    ui.intents.push_back(export_intent(d, ui.timelapse));
    break;
  }
  ImGui::CloseCurrentPopup();
}
} // namespace

void draw_file_dialog(UiState& ui) {
  FileDialogState& d = ui.dialog;
  const char* titles[] = {"Open image or model###file", "Save model###file", "Export###file"};
  if (d.open_requested) {
    ImGui::OpenPopup(titles[int(d.purpose)]);
    d.open_requested = false;
  }
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowSize(ImVec2(std::min(ui_px(760), vp->WorkSize.x - 40), std::min(ui_px(560), vp->WorkSize.y - 40)),
                           ImGuiCond_Appearing);
  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + vp->WorkSize.y * 0.5f),
                          ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  if (!ImGui::BeginPopupModal(titles[int(d.purpose)], nullptr)) return;
  if (d.listed_folder != d.folder) list_folder(d);

  ImGui::SetNextItemWidth(-1);
  if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
  const bool enter = ImGui::InputText("##path", &d.path, ImGuiInputTextFlags_EnterReturnsTrue);
  if (ImGui::Button("Up")) {
    d.folder = fs::path(d.folder).parent_path().string();
    if (d.folder.empty()) d.folder.assign(1, '/');
  }
  ImGui::SameLine();
  bounded_text_disabled(d.folder, k_widget_chars, true);

  const float footer = ImGui::GetFrameHeightWithSpacing() * (d.purpose == FileDialogPurpose::Export ? 6.4f : 1.4f);
  const bool show_recent = d.purpose == FileDialogPurpose::Open && !ui.settings.recent.empty();
  const float list_w = show_recent ? ImGui::GetContentRegionAvail().x * 0.55f : 0.0f;
  ImGui::BeginChild("entries", ImVec2(list_w, -footer), true);
  if (!d.list_error.empty()) bounded_text_colored(ImVec4(1, 0.4f, 0.4f, 1), d.list_error);
  std::string navigate;
  for (const auto& e : d.entries) {
    const bool dir = !e.empty() && e.back() == '/';
    const std::string full = (fs::path(d.folder) / e).string();
    if (ImGui::Selectable(e.c_str(), !dir && d.path == full, ImGuiSelectableFlags_AllowDoubleClick)) {
      if (dir)
        navigate = (fs::path(d.folder) / e.substr(0, e.size() - 1)).string();
      else {
        d.path = full;
        if (ImGui::IsMouseDoubleClicked(0)) {
          ImGui::EndChild();
          accept(ui);
          ImGui::EndPopup();
          return;
        }
      }
    }
  }
  ImGui::EndChild();
  if (!navigate.empty()) {
    d.folder = navigate;
    if (d.purpose != FileDialogPurpose::Open)
      d.path = (fs::path(navigate) / fs::path(d.path).filename()).string();
    else
      d.path = navigate + "/";
  }
  if (show_recent) {
    ImGui::SameLine();
    ImGui::BeginChild("recent", ImVec2(0, -footer), true);
    ImGui::TextDisabled("recent files");
    for (const auto& r : ui.settings.recent) {
      if (ImGui::Selectable((widget_text(fs::path(r).filename().string(), 80, true) + "##" + r).c_str(), d.path == r))
        d.path = r;
      bounded_tooltip(r);
    }
    ImGui::EndChild();
  }
  if (d.purpose == FileDialogPurpose::Export) draw_export_options(ui);

  const char* verb = d.purpose == FileDialogPurpose::Open        ? "Open"
                     : d.purpose == FileDialogPurpose::SaveModel ? "Save"
                                                                 : "Export";
  std::error_code ec;
  // A folder is a destination only for PNG frames; otherwise Enter on a folder opens it.
  const bool frames =
      d.purpose == FileDialogPurpose::Export && d.export_kind == 2 && !d.path.empty() && d.path.back() == '/';
  const bool is_dir = !frames && fs::is_directory(d.path, ec);
  ImGui::BeginDisabled(d.path.empty() || is_dir);
  if (ImGui::Button(verb, ImVec2(ui_px(120), 0)) || (enter && !is_dir && !d.path.empty())) {
    accept(ui);
    ImGui::EndDisabled();
    ImGui::EndPopup();
    return;
  }
  ImGui::EndDisabled();
  if (enter && is_dir) d.folder = d.path;
  ImGui::SameLine();
  if (ImGui::Button("Cancel", ImVec2(ui_px(120), 0)) || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false))
    ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

} // namespace redraw
