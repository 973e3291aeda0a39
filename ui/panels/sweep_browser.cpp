#include "ui/panels/sweep_browser.h"

#include "engine/errors.h"
#include "engine/images/image.h"
#include "engine/images/resample.h"
#include "ui/widgets/bounded_text.h"
#include "ui/panels/panels.h"
#include "ui/widgets/tool_window.h"
#include "ui/widgets/ui_scale.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>

namespace redraw {
namespace fs = std::filesystem;

namespace {
constexpr int32_t k_thumb_side = 96;     ///< texels on a thumbnail's longer side
constexpr size_t k_thumbs_per_frame = 4; ///< final.png files read per frame
constexpr double k_compare_wait_seconds = 60;
constexpr int k_label_lines = 4; ///< lines of a tile's label under its PSNR (the full one is in its tooltip)

/// A tile's height: the thumbnail, its PSNR line and its label (draw_tile), with the spacing between.
float tile_height(float side) {
  const float gap = ImGui::GetStyle().ItemSpacing.y;
  return side + gap + ImGui::GetTextLineHeight() + gap + ImGui::GetTextLineHeight() * k_label_lines;
}

/// A cell's final.png as a small texture; null when it has none (a cell that has not ended).
std::shared_ptr<PreviewTexture> make_thumb(const fs::path& file) {
  std::error_code ec;
  if (!fs::exists(file, ec)) return nullptr;
  try {
    const Image im = load_thumbnail(file, k_thumb_side);
    std::shared_ptr<PreviewTexture> t = make_host_texture();
    t->upload_image(im);
    return t;
  } catch (const Error&) {
    return nullptr;
  }
}

std::string psnr_label(const CellResult& r) {
  char b[48];
  if (r.status == CellStatus::Failed) return "failed";
  if (r.status != CellStatus::Done) return cell_status_name(r.status);
  if (std::isinf(r.psnr_db)) return "exact";
  if (std::isnan(r.psnr_db)) return "PSNR ?";
  std::snprintf(b, sizeof b, "%.2f dB", r.psnr_db);
  return b;
}

/// "camera siren omega_0=30 s2": the image's and preset's names (a config file's stem), the last
/// part of each swept key with its value, and the seed when there are several.
std::string tile_label(const SweepBrowserState& s, size_t k) {
  const SweepCell& c = s.plan.cells[k];
  const bool file = c.preset.find('/') != std::string::npos || fs::path(c.preset).extension() == ".json";
  std::string label = fs::path(c.image).stem().string() + " " + (file ? fs::path(c.preset).stem().string() : c.preset);
  for (size_t i = 0; i < c.values.size() && i < s.plan.grid.axes.size(); ++i) {
    const std::string& key = s.plan.grid.axes[i].key;
    label.append(" ").append(key, key.rfind('.') + 1).append("=").append(sweep_value_label(c.values[i]));
  }
  return s.plan.grid.seeds > 1 ? label + " s" + std::to_string(c.seed) : label;
}

void cell_tooltip(const SweepBrowserState& s, size_t k) {
  const SweepCell& c = s.plan.cells[k];
  const CellResult& r = s.results[k];
  ImGui::BeginTooltip();
  ImGui::TextUnformatted(widget_text(c.name).c_str());
  ImGui::Text("image   %s", widget_text(fs::path(c.image).filename().string()).c_str());
  ImGui::Text("config  %s", widget_text(c.configuration(s.plan.grid.axes)).c_str());
  ImGui::Text("seed %llu   %s", static_cast<unsigned long long>(c.seed), cell_status_name(r.status));
  if (r.status == CellStatus::Done)
    ImGui::Text("%lld steps  %.1f s  PSNR %.2f dB  SSIM %.4f", static_cast<long long>(r.steps), r.seconds, r.psnr_db,
                r.ssim);
  if (!r.error.empty()) ImGui::TextColored(ImVec4(1, 0.45f, 0.4f, 1), "%s", widget_text(r.error).c_str());
  ImGui::TextDisabled("click: open its model   Ctrl+click: select (two open in Compare)");
  ImGui::EndTooltip();
}

/// One tile: the thumbnail (or a blank of its size), the PSNR under it; click and Ctrl+click.
void draw_tile(UiState& ui, size_t k, float side) {
  SweepBrowserState& s = ui.sweep;
  const bool selected = std::find(s.selected.begin(), s.selected.end(), int64_t(k)) != s.selected.end();
  ImGui::PushID(int(k));
  ImGui::BeginGroup();
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const bool clicked = ImGui::InvisibleButton("tile", ImVec2(side, side));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(at, ImVec2(at.x + side, at.y + side), IM_COL32(40, 42, 48, 255));
  if (const PreviewTexture* t = k < s.thumbs.size() ? s.thumbs[k].get() : nullptr; t && !t->empty()) {
    const float scale = side / float(std::max(t->width(), t->height()));
    const float w = t->width() * scale, h = t->height() * scale;
    const ImVec2 p0(at.x + (side - w) / 2, at.y + (side - h) / 2);
    dl->AddImage(reinterpret_cast<ImTextureID>(t->imgui_id()), p0, ImVec2(p0.x + w, p0.y + h));
  }
  const ImU32 frame = selected                 ? IM_COL32(255, 200, 60, 255)
                      : ImGui::IsItemHovered() ? IM_COL32(120, 160, 230, 255)
                                               : IM_COL32(70, 72, 80, 255);
  dl->AddRect(at, ImVec2(at.x + side, at.y + side), frame, 0, 0, selected ? ui_px(3) : ui_px(1));
  if (ImGui::IsItemHovered()) cell_tooltip(s, k);
  const CellResult& r = s.results[k];
  const ImVec4 colour = r.status == CellStatus::Failed ? ImVec4(1, 0.45f, 0.4f, 1)
                        : r.status == CellStatus::Done ? ImVec4(0.85f, 0.9f, 1, 1)
                                                       : ImVec4(0.9f, 0.75f, 0.3f, 1);
  ImGui::TextColored(colour, "%s", psnr_label(r).c_str());
  // What sets the cell apart (its image, preset and swept values), wrapped at the tile's width and
  // cut at k_label_lines lines, so every tile, and every row of them, is the same height.
  const ImVec2 label = ImGui::GetCursorScreenPos();
  const float label_h = ImGui::GetTextLineHeight() * k_label_lines;
  const std::string text = widget_text(tile_label(s, k), 80);
  const ImVec4 clip(label.x, label.y, label.x + side, label.y + label_h);
  dl->AddText(ImGui::GetFont(), ImGui::GetFontSize(), label, ImGui::GetColorU32(ImGuiCol_TextDisabled), text.c_str(),
              nullptr, side, &clip);
  ImGui::Dummy(ImVec2(side, label_h));
  ImGui::EndGroup();
  ImGui::PopID();
  if (clicked) {
    if (ImGui::GetIO().KeyCtrl)
      toggle_sweep_selection(s, int64_t(k));
    else
      open_sweep_cell(ui, int64_t(k));
  }
}

void draw_header(UiState& ui) {
  SweepBrowserState& s = ui.sweep;
  ImGui::SetNextItemWidth(std::max(ui_px(160), ImGui::GetContentRegionAvail().x - ui_px(150)));
  const bool entered = ImGui::InputTextWithHint("##folder", "the sweep's folder (redraw sweep --out DIR)",
                                                &s.folder_field, ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  if (ImGui::Button("Open") || entered) load_sweep_browser(s, s.folder_field);
  ImGui::SameLine();
  ImGui::BeginDisabled(s.folder.empty());
  if (ImGui::Button("Refresh")) load_sweep_browser(s, s.folder);
  ImGui::EndDisabled();
  if (!s.error.empty()) ImGui::TextColored(ImVec4(1, 0.45f, 0.4f, 1), "%s", widget_text(s.error, 200).c_str());
  if (s.folder.empty()) return;
  int64_t done = 0, failed = 0;
  for (const CellResult& r : s.results) {
    done += r.status == CellStatus::Done;
    failed += r.status == CellStatus::Failed;
  }
  ImGui::Text("%zu cells: %lld done, %lld failed, %lld not ended", s.plan.cells.size(), static_cast<long long>(done),
              static_cast<long long>(failed), static_cast<long long>(int64_t(s.plan.cells.size()) - done - failed));
  ImGui::SetNextItemWidth(ui_px(130));
  const char* current = sweep_column_name(SweepColumn(s.sort_column));
  if (ImGui::BeginCombo("sort by", current)) {
    for (int32_t c = 0; c < k_sweep_column_count; ++c)
      if (ImGui::Selectable(sweep_column_name(SweepColumn(c)), c == s.sort_column)) {
        s.sort_column = c;
        sort_sweep_browser(s);
      }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  if (ImGui::Checkbox("descending", &s.descending)) sort_sweep_browser(s);
  ImGui::SameLine();
  ImGui::BeginDisabled(s.selected.size() != 2);
  if (ImGui::Button("Compare selected")) compare_sweep_selection(ui);
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::TextDisabled("%zu of 2 selected (Ctrl+click)", s.selected.size());
}
} // namespace

void load_sweep_browser(SweepBrowserState& s, const std::string& folder) {
  try {
    if (folder.empty()) throw ConfigError("give the sweep's folder (the --out of redraw sweep)");
    SweepPlan plan = load_sweep_plan(folder);
    std::vector<CellResult> results = read_sweep_results(folder, plan);
    const bool same = folder == s.folder && plan.cells.size() == s.plan.cells.size();
    s.plan = std::move(plan);
    s.results = std::move(results);
    s.folder = s.folder_field = folder;
    s.error.clear();
    // A refresh keeps the thumbnails made and reads again those of cells that had none.
    if (!same) s.thumbs.assign(s.plan.cells.size(), nullptr), s.selected.clear();
    s.thumbs_tried = 0;
    sort_sweep_browser(s);
  } catch (const Error& e) {
    s.error = e.what();
  }
}

void sort_sweep_browser(SweepBrowserState& s) {
  s.order = sweep_cell_order(s.plan, s.results, SweepColumn(std::clamp(s.sort_column, 0, k_sweep_column_count - 1)),
                             s.descending);
}

void toggle_sweep_selection(SweepBrowserState& s, int64_t cell) {
  const auto it = std::find(s.selected.begin(), s.selected.end(), cell);
  if (it != s.selected.end()) {
    s.selected.erase(it);
    return;
  }
  s.selected.push_back(cell);
  if (s.selected.size() > 2) s.selected.erase(s.selected.begin());
}

std::string sweep_cell_model(const SweepBrowserState& s, int64_t cell) {
  return (cell_folder(s.folder, s.plan.cells.at(size_t(cell))) / "model.redraw").string();
}

void open_sweep_cell(UiState& ui, int64_t cell) {
  const std::string model = sweep_cell_model(ui.sweep, cell);
  std::error_code ec;
  if (!fs::exists(model, ec)) return ui.notify(model + ": this cell has no model yet (it has not started)", true);
  ui.sweep.compare_b.clear();
  ui.push(intent::OpenPath{model});
}

void compare_sweep_selection(UiState& ui) {
  SweepBrowserState& s = ui.sweep;
  if (s.selected.size() != 2) return;
  std::error_code ec;
  for (const int64_t k : s.selected)
    if (!fs::exists(sweep_cell_model(s, k), ec))
      return ui.notify(sweep_cell_model(s, k) + ": this cell has no model yet (it has not started)", true);
  ui.push(intent::OpenPath{sweep_cell_model(s, s.selected[0])});
  s.compare_b = sweep_cell_model(s, s.selected[1]);
  s.compare_asked = ui.now;
}

void follow_sweep_compare(UiState& ui) {
  SweepBrowserState& s = ui.sweep;
  if (s.compare_b.empty()) return;
  if (ui.now - s.compare_asked > k_compare_wait_seconds) return s.compare_b.clear(); // A never opened (Cancel)
  const SessionStatus& st = ui.run_a().status;
  std::error_code ec;
  if (!st.has_run || st.model_path.empty() || s.selected.size() != 2 ||
      !fs::equivalent(st.model_path, sweep_cell_model(s, s.selected[0]), ec))
    return;
  intent::OpenCompare in;
  in.model_b = s.compare_b;
  ui.push(std::move(in));
  s.compare_b.clear();
}

void draw_sweep_browser(UiState& ui) {
  SweepBrowserState& s = ui.sweep;
  follow_sweep_compare(ui);
  if (!s.open) return;
  for (size_t made = 0; made < k_thumbs_per_frame && s.thumbs_tried < s.plan.cells.size(); ++s.thumbs_tried) {
    if (s.thumbs[s.thumbs_tried]) continue;
    s.thumbs[s.thumbs_tried] = make_thumb(cell_folder(s.folder, s.plan.cells[s.thumbs_tried]) / "final.png");
    ++made;
  }
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  if (!begin_tool_window("Sweep", &s.open, {vp->GetCenter(), ImVec2(ui_px(760), ui_px(420)), ImVec2(0.5f, 0.5f)},
                         ImGuiWindowFlags_NoCollapse))
    return;
  draw_header(ui);
  ImGui::Separator();
  ImGui::BeginChild("cells");
  const float side = ui_px(float(k_thumb_side)), gap = ImGui::GetStyle().ItemSpacing.x;
  const size_t columns = size_t(std::max(1, int((ImGui::GetContentRegionAvail().x + gap) / (side + gap))));
  // Only the rows in view are drawn (a 10,000-cell sweep draws a screenful): every row is one height.
  const size_t rows = (s.order.size() + columns - 1) / columns;
  s.tiles_drawn = 0;
  ImGuiListClipper clipper;
  clipper.Begin(int(std::min<size_t>(rows, size_t(std::numeric_limits<int>::max()))),
                tile_height(side) + ImGui::GetStyle().ItemSpacing.y);
  while (clipper.Step())
    for (size_t row = size_t(clipper.DisplayStart); row < size_t(clipper.DisplayEnd); ++row)
      for (size_t i = row * columns; i < std::min(s.order.size(), (row + 1) * columns); ++i) {
        if (i % columns) ImGui::SameLine();
        draw_tile(ui, s.order[i], side);
        ++s.tiles_drawn;
      }
  ImGui::EndChild();
  ImGui::End();
}

} // namespace redraw
