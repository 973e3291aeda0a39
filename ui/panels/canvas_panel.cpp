#include "engine/insight/compare_runs.h"
#include "ui/panels/primitives_view.h"
#include "ui/widgets/image_views.h"
#include "ui/panels/panels.h"
#include "ui/state/shown_runs.h"
#include "ui/panels/zoom_view.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <vector>

namespace redraw {
namespace {

struct Pane {
  const char* caption;
  PreviewTexture* texture;
  const Image* values;             ///< host pixels for the tooltip (may be null)
  ImVec2 min, max;                 ///< screen rect of the pane's image area
  int64_t step = -1;               ///< shown top right when >= 0 (a run's picture)
  bool recon = false;              ///< run A's picture (its rect goes to the screenshot sidecar)
  PreviewTexture* split = nullptr; ///< compare split view: the second run, drawn right of the divider
  const RunView* run = nullptr;    ///< the run whose picture this is (null: the truth, the error)
  const char* label = nullptr;     ///< that run's label while comparing ("B: siren")
  size_t index = k_run_a;          ///< that run's place in UiState::runs
  size_t split_index = k_run_a;    ///< the split view's second run's place
  bool error = false;              ///< an error map (run's, when `run` is set: its picture is `values`)
};

void pixel_text(char* buf, size_t n, const Image* img, int32_t x, int32_t y) {
  if (!img || x >= img->width || y >= img->height) {
    std::snprintf(buf, n, "-");
  } else if (img->channels >= 3) {
    std::snprintf(buf, n, "%.3f %.3f %.3f", img->at(x, y, 0), img->at(x, y, 1), img->at(x, y, 2));
  } else {
    std::snprintf(buf, n, "%.3f", img->at(x, y, 0));
  }
}

/// SameLine(0, spacing) when an item `next_w` wide still fits on this row; otherwise the next
/// item starts a new row, so a narrow window wraps the toolbar instead of clipping it.
void same_line_if_fits(float next_w, float spacing = -1) {
  const float sp = spacing < 0 ? ImGui::GetStyle().ItemSpacing.x : spacing;
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (ImGui::GetItemRectMax().x + sp + next_w <= right) ImGui::SameLine(0, spacing);
}

float button_width(const char* label) { return ImGui::CalcTextSize(label).x + ImGui::GetStyle().FramePadding.x * 2; }
float check_width(const char* label) {
  return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label).x;
}

/// Compare runs: side by side or, for two runs, split (V), and Close.
void draw_compare_toolbar(UiState& ui) {
  CompareState& c = ui.compare;
  const bool two = shown_runs(ui).size() == 2;
  if (ImGui::RadioButton("Side by side", !c.split || !two)) c.split = ui.settings.compare_split = false;
  same_line_if_fits(check_width("Split"));
  ImGui::BeginDisabled(!two);
  if (ImGui::RadioButton("Split", c.split && two)) c.split = ui.settings.compare_split = true;
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("Two runs: one picture, A left of a divider and the other right of it (V toggles)");
  same_line_if_fits(check_width("error maps"));
  ImGui::BeginDisabled(split_shown(ui));
  if (ImGui::Checkbox("error maps", &ui.settings.compare_errors)) {
    ui.view.error_dirty = true;
    ui.view.fit_requested = true; // the panes are half as tall
  }
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("Side by side: each run's error |picture - truth| under its picture, every map on one scale");
  same_line_if_fits(button_width("Close compare"));
  if (ImGui::Button("Close compare")) ui.compare.close_requested = true;
}

void draw_toolbar(UiState& ui) {
  CanvasView& v = ui.view;
  if (ui.compare.open) {
    draw_compare_toolbar(ui);
  } else {
    const char* modes[] = {"Side by side", "Ground truth", "Reconstruction", "Error map"};
    for (int i = 0; i < 4; ++i) {
      if (i) same_line_if_fits(check_width(modes[i]));
      if (ImGui::RadioButton(modes[i], int(v.mode) == i)) {
        v.mode = CanvasMode(i);
        v.fit_requested = true;
      }
    }
  }
  // Fit, 1:1 and the zoom stay together on one row.
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  same_line_if_fits(button_width("Fit (F)") + button_width("1:1") + ImGui::CalcTextSize("9999%").x + 2 * spacing, 20);
  if (ImGui::Button("Fit (F)")) v.fit_requested = true;
  ImGui::SameLine();
  if (ImGui::Button("1:1")) {
    v.zoom = 1.0f;
    v.fit_requested = false;
  }
  ImGui::SameLine();
  ImGui::Text("%.0f%%", v.zoom * 100.0f);
  if (!ui.compare.open && (v.mode == CanvasMode::SideBySide || v.mode == CanvasMode::Reconstruction)) {
    same_line_if_fits(check_width("sharp zoom"), 20);
    ImGui::Checkbox("sharp zoom", &ui.zoom.enabled);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Zoomed past the training size, the network draws the visible part again at the screen's\n"
                        "resolution once the view stands still: what it learnt between the pixels.\n"
                        "Off: the training-size preview, enlarged.");
  }
  if (ui.compare.open ? compared_error_maps_shown(ui)
                      : (v.mode == CanvasMode::SideBySide || v.mode == CanvasMode::Error)) {
    const float gain_w = 100;
    same_line_if_fits(check_width("auto error scale") + (v.error_auto ? 0 : spacing + gain_w), 20);
    if (ImGui::Checkbox("auto error scale", &v.error_auto)) v.error_dirty = true;
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("On: the error map's brightest colour is the 99th percentile of the current error.\n"
                        "Off: |error| x gain, set by hand.");
    if (!v.error_auto) {
      ImGui::SameLine();
      ImGui::SetNextItemWidth(gain_w);
      if (ImGui::SliderFloat("##gain", &v.error_gain, 1.0f, 256.0f, "gain x%.0f", ImGuiSliderFlags_Logarithmic))
        v.error_dirty = true;
    }
  }
}

/// The error map's scale, "0 [colours] 0.12 (p99)": its width, and drawing it with its right end
/// at `right` (the caption row's top right). `compact` (narrow panes) has a shorter bar and no
/// "(p99)".
struct ErrorLegend {
  char high[32] = "";
  float width = 0, bar_w = 64;
  static constexpr float k_gap = 4;
  ErrorLegend(const CanvasView& v, bool compact) {
    if (!(v.error_full_scale > 0)) return;
    std::snprintf(high, sizeof high, "%.3g%s", double(v.error_full_scale), v.error_auto && !compact ? " (p99)" : "");
    bar_w = compact ? 32 : 64;
    width = ImGui::CalcTextSize("0").x + bar_w + ImGui::CalcTextSize(high).x + 2 * k_gap;
  }
  void draw(ImDrawList* dl, ImVec2 right) const {
    if (width <= 0) return;
    const ImU32 text = IM_COL32(150, 150, 160, 255);
    const float x0 = right.x - width, line = ImGui::GetTextLineHeight();
    dl->AddText(ImVec2(x0, right.y), text, "0");
    const float bx = x0 + ImGui::CalcTextSize("0").x + k_gap;
    constexpr int k_segments = 16;
    for (int i = 0; i < k_segments; ++i) {
      const auto c = heat_color((float(i) + 0.5f) / k_segments);
      dl->AddRectFilled(ImVec2(bx + bar_w * float(i) / k_segments, right.y + line * 0.2f),
                        ImVec2(bx + bar_w * float(i + 1) / k_segments, right.y + line * 0.85f),
                        IM_COL32(c[0], c[1], c[2], 255));
    }
    dl->AddText(ImVec2(bx + bar_w + k_gap, right.y), text, high);
  }
};

/// The part of the picture [a, b] inside [lo, hi], in framebuffer pixels: x, y, w, h.
void visible_rect(ImVec2 a, ImVec2 b, ImVec2 lo, ImVec2 hi, float out[4]) {
  const ImVec2 s = ImGui::GetIO().DisplayFramebufferScale;
  const float x0 = std::max(a.x, lo.x), y0 = std::max(a.y, lo.y);
  const float x1 = std::min(b.x, hi.x), y1 = std::min(b.y, hi.y);
  out[0] = x0 * s.x;
  out[1] = y0 * s.y;
  out[2] = std::max(0.0f, x1 - x0) * s.x;
  out[3] = std::max(0.0f, y1 - y0) * s.y;
}

/// The split view: run A left of the divider, the other run (p.split) right of it, a handle on the line.
void draw_split(const UiState& ui, ImDrawList* dl, const Pane& p, ImVec2 a, ImVec2 b) {
  const SplitGeometry g = split_view(p.min.x, p.max.x - p.min.x, ui.compare.divider);
  auto image = [&](PreviewTexture* t, float x0, float x1) {
    if (!t || t->empty()) return;
    dl->PushClipRect(ImVec2(x0, p.min.y), ImVec2(x1, p.max.y), true);
    dl->AddImage(t->imgui_id(), a, b);
    dl->PopClipRect();
  };
  image(p.texture, g.a_min, g.a_max);
  image(p.split, g.b_min, g.b_max);
  dl->AddLine(ImVec2(g.divider_x, p.min.y), ImVec2(g.divider_x, p.max.y), IM_COL32(240, 240, 245, 230), 2.0f);
  const float cy = (p.min.y + p.max.y) * 0.5f;
  dl->AddCircleFilled(ImVec2(g.divider_x, cy), 7.0f, IM_COL32(240, 240, 245, 230));
  const char* left = run_letter(p.index);
  dl->AddText(ImVec2(g.a_max - ImGui::CalcTextSize(left).x - 6, p.min.y + 4), IM_COL32(240, 240, 245, 230), left);
  dl->AddText(ImVec2(g.b_min + 6, p.min.y + 4), IM_COL32(240, 240, 245, 230), run_letter(p.split_index));
}

/// Drags the split view's divider when the press began on it; true while it is dragged.
bool drag_divider(UiState& ui, const Pane& p, bool active) {
  const ImGuiIO& io = ImGui::GetIO();
  const float w = p.max.x - p.min.x;
  const SplitGeometry g = split_view(p.min.x, w, ui.compare.divider);
  const bool near = std::abs(io.MousePos.x - g.divider_x) < 8 && io.MousePos.y >= p.min.y && io.MousePos.y < p.max.y;
  if (near || ui.compare.dragging_divider) ImGui::SetMouseCursor(ImGuiMouseCursor_ResizeEW);
  if (active && ImGui::IsMouseClicked(ImGuiMouseButton_Left)) ui.compare.dragging_divider = near;
  if (!active) ui.compare.dragging_divider = false;
  if (!ui.compare.dragging_divider) return false;
  ui.compare.divider = split_fraction_at(p.min.x, w, io.MousePos.x);
  return true;
}

} // namespace

namespace {
/// Where the canvas's panes go this frame: one, three (truth, picture, error) or one per run
/// compared, side by side, with each run's error map under its picture when they are shown.
struct CanvasLayout {
  ImVec2 origin, avail;
  float gap = 8, caption_h = 0, pane_w = 0, pane_h = 0;
  int count = 1;
  int cols = 1; ///< panes per row; pane i is in row i / cols
  Pane panes[std::max<size_t>(3, 2 * k_max_runs)];
  std::string split_caption; ///< the split view's: "A: siren  |  B: fourier"
  std::string error_captions[k_max_runs]; ///< the compared runs' error maps': "A: siren, error"
  bool frame = false; ///< run A shows a scrubbed timelapse frame
  ImVec2 center(int i) const {
    return ImVec2((panes[i].min.x + panes[i].max.x) * 0.5f, (panes[i].min.y + panes[i].max.y) * 0.5f);
  }
};

/// Run `shown`'s picture: its timelapse frame while one is on screen (run B's linked frame only
/// while run A's timelapse shows one, `a_frame`), else its live preview; captioned with the run's
/// label while comparing. Each run is drawn the same way; only run A's is `recon` (the sharp
/// zoom, the Gaussians and the screenshot sidecar's rect follow run A).
Pane run_pane(const UiState& ui, const ShownRun& shown, bool a_frame) {
  const RunView& run = *shown.view;
  const ShownFrame f = a_frame ? run_frame(ui, shown.index) : ShownFrame{};
  Pane p{shown.label ? shown.label : f.image ? "timelapse frame" : "reconstruction",
         f.image ? run.tex.frame : run.tex.recon,
         f.image ? f.image : run.reconstruction.get(),
         {},
         {},
         f.image ? f.step : run.shown_step};
  p.recon = shown.index == k_run_a;
  p.run = &run;
  p.label = shown.label;
  p.index = shown.index;
  return p;
}

/// The panes the view mode (or the comparison: one per shown run, or one split pane) shows, and
/// their rectangles.
void choose_panes(const UiState& ui, const Image* truth, CanvasLayout& L) {
  const std::vector<ShownRun> runs = shown_runs(ui);
  L.frame = run_frame(ui, k_run_a).image != nullptr;
  if (ui.compare.open) {
    for (size_t k = 0; k < runs.size() && k < std::size(L.panes); ++k)
      L.panes[k] = run_pane(ui, runs[k], L.frame);
    if (compared_error_maps_shown(ui)) {
      const size_t n = std::min(runs.size(), size_t(k_max_runs));
      for (size_t k = 0; k < n; ++k) {
        const RunView& r = *runs[k].view;
        L.error_captions[k] = std::string(runs[k].label ? runs[k].label : "") + ", error";
        Pane& e = L.panes[n + k];
        e = Pane{L.error_captions[k].c_str(), r.tex.error, r.reconstruction.get(), {}, {}}; // its step is above
        e.run = &r;
        e.label = runs[k].label;
        e.index = runs[k].index;
        e.error = true;
      }
    }
    if (split_shown(ui)) {
      L.panes[0].split = L.panes[1].texture;
      L.panes[0].split_index = L.panes[1].index;
      L.split_caption = std::string(L.panes[0].label) + "  |  " + L.panes[1].label;
      L.panes[0].caption = L.split_caption.c_str();
    }
  } else {
    const RunView& run = ui.run_a();
    Pane all[3] = {{"ground truth", run.tex.truth, truth, {}, {}},
                         run_pane(ui, runs[0], L.frame),
                         {"error |prediction - truth|", run.tex.error, nullptr, {}, {}}};
    all[2].error = true;
    switch (ui.view.mode) {
    case CanvasMode::SideBySide:
      std::copy(all, all + 3, L.panes);
      break;
    case CanvasMode::GroundTruth:
      L.panes[0] = all[0];
      break;
    case CanvasMode::Reconstruction:
      L.panes[0] = all[1];
      break;
    case CanvasMode::Error:
      L.panes[0] = all[2];
      break;
    }
  }
  for (int i = 0; i < L.count; ++i) {
    const int col = i % L.cols, row = i / L.cols;
    L.panes[i].min = ImVec2(L.origin.x + float(col) * (L.pane_w + L.gap),
                            L.origin.y + L.caption_h + float(row) * (L.pane_h + L.caption_h + L.gap));
    L.panes[i].max = ImVec2(L.panes[i].min.x + L.pane_w, L.panes[i].min.y + L.pane_h);
  }
}

/// Zoom about the cursor and pan by dragging; every pane shares the view. Returns the pane under
/// the pointer (-1: none).
int navigate(UiState& ui, CanvasLayout& L, bool hovered, bool active) {
  CanvasView& v = ui.view;
  const ImGuiIO& io = ImGui::GetIO();
  int hovered_pane = -1;
  for (int i = 0; i < L.count; ++i)
    if (io.MousePos.x >= L.panes[i].min.x && io.MousePos.x < L.panes[i].max.x && io.MousePos.y >= L.panes[i].min.y &&
        io.MousePos.y < L.panes[i].max.y)
      hovered_pane = i;
  if (hovered && hovered_pane >= 0 && io.MouseWheel != 0) {
    const ImVec2 c = L.center(hovered_pane);
    const float px = v.center_x + (io.MousePos.x - c.x) / v.zoom, py = v.center_y + (io.MousePos.y - c.y) / v.zoom;
    v.zoom = std::clamp(v.zoom * std::pow(1.2f, io.MouseWheel), 0.02f, 64.0f);
    v.center_x = px - (io.MousePos.x - c.x) / v.zoom;
    v.center_y = py - (io.MousePos.y - c.y) / v.zoom;
  }
  if (L.count == 1 && L.panes[0].split && drag_divider(ui, L.panes[0], active)) {
    // the divider moved; the view stays
  } else if (active && (io.MouseDelta.x != 0 || io.MouseDelta.y != 0)) {
    v.center_x -= io.MouseDelta.x / v.zoom;
    v.center_y -= io.MouseDelta.y / v.zoom;
  }
  if (hovered && !ui.compare.dragging_divider)
    ImGui::SetMouseCursor(active ? ImGuiMouseCursor_ResizeAll : ImGuiMouseCursor_Arrow);
  return hovered_pane;
}

/// Pane i's caption (with the error legend or the step) and picture; `wanted` receives the sharp
/// zoom's view when this is the run's picture zoomed past its texels.
void draw_pane(UiState& ui, ImDrawList* dl, const CanvasLayout& L, int i, const Image& truth, ZoomRegion& wanted) {
  const CanvasView& v = ui.view;
  const Pane& p = L.panes[i];
  const float iw = float(truth.width), ih = float(truth.height);
  const ImVec2 c = L.center(i);
  const ImVec2 a(c.x - v.center_x * v.zoom, c.y - v.center_y * v.zoom);
  const ImVec2 b(a.x + iw * v.zoom, a.y + ih * v.zoom);
  const ImVec2 fb = ImGui::GetIO().DisplayFramebufferScale;
  // A scrubbed frame is drawn sharp from its own weights; a picture-only frame has none.
  const bool frame_sharpens = !L.frame || !ui.timelapse.shown_is_picture();
  const char* caption = p.caption;
  // Zoom per texel of the texture shown (a preview may be smaller than the training grid).
  const float texel_zoom = p.texture && p.texture->width() > 0 ? v.zoom * iw / float(p.texture->width()) : v.zoom;
  if (p.recon && frame_sharpens && !ui.compare.open && zoomed_past_texels(texel_zoom, fb.x)) {
    wanted = zoom_region(v.center_x, v.center_y, v.zoom, p.min.x, p.min.y, p.max.x, p.max.y, fb.x, fb.y, truth.width,
                         truth.height, k_zoom_max_samples);
    wanted.frame_step = L.frame ? ui.timelapse.shown_step : -1;
  }
  const bool sharp = p.recon && frame_sharpens && !ui.compare.open && ui.zoom.enabled && !wanted.empty() &&
                     ui.zoom.shown.same_view(wanted) && ui.zoom_texture && !ui.zoom_texture->empty();
  if (sharp)
    caption = L.frame ? "timelapse frame, drawn at screen resolution" : "reconstruction, drawn at screen resolution";
  else if (p.recon && L.frame && !frame_sharpens && zoomed_past_texels(texel_zoom, fb.x))
    caption = "timelapse frame: a picture only, enlarged";
  if (p.error && p.index == k_run_a) { // one legend: every run's map has run A's scale
    // The scale matters more than the long caption: "error" alone when both do not fit, then
    // a compact legend, and no legend only when even that does not fit.
    ErrorLegend legend(v, false);
    auto fits = [&] { return ImGui::CalcTextSize(caption).x <= L.pane_w - legend.width - 12; };
    if (!fits()) caption = "error";
    if (!fits()) legend = ErrorLegend(v, true);
    if (legend.width > 0 && fits()) legend.draw(dl, ImVec2(p.max.x, p.min.y - L.caption_h));
  }
  dl->AddText(ImVec2(p.min.x, p.min.y - L.caption_h), IM_COL32(200, 200, 210, 255), caption);
  if (p.step >= 0) {
    char step[64];
    std::snprintf(step, sizeof step, "step %lld", static_cast<long long>(p.step));
    const ImVec2 ts = ImGui::CalcTextSize(step);
    dl->AddText(ImVec2(p.max.x - ts.x, p.min.y - L.caption_h), IM_COL32(150, 150, 160, 255), step);
  }
  dl->PushClipRect(p.min, p.max, true);
  dl->AddRect(p.min, p.max, IM_COL32(40, 42, 48, 255));
  if (p.split) {
    draw_split(ui, dl, p, a, b);
  } else if (p.texture && !p.texture->empty()) {
    dl->AddImage(p.texture->imgui_id(), a, b);
    if (sharp) {
      const ZoomRegion& z = ui.zoom.shown;
      dl->AddImage(ui.zoom_texture->imgui_id(), ImVec2(z.screen_x0, z.screen_y0), ImVec2(z.screen_x1, z.screen_y1));
    }
    // Run A's live Gaussians (never over a scrubbed frame: they are the weights of now).
    if (p.recon && !L.frame) draw_primitives_overlay(ui, ui.run_a(), dl, a, v.zoom, p.min, p.max);
  } else {
    const char* msg = "waiting for the first preview";
    const ImVec2 ts = ImGui::CalcTextSize(msg);
    dl->AddText(ImVec2(c.x - ts.x * 0.5f, c.y - ts.y * 0.5f), IM_COL32(150, 150, 160, 255), msg);
  }
  dl->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(b.x + 1, b.y + 1), IM_COL32(70, 72, 80, 255));
  dl->PopClipRect();
  // The visible part of each run's picture, in framebuffer pixels (screenshot sidecar).
  if (p.recon) visible_rect(a, b, p.min, p.max, ui.recon_rect);
  if (ui.compare.open && p.split) {
    const SplitGeometry g = split_view(p.min.x, p.max.x - p.min.x, ui.compare.divider);
    visible_rect(a, b, p.min, ImVec2(g.a_max, p.max.y), ui.runs[p.index].rect);
    visible_rect(a, b, ImVec2(g.b_min, p.min.y), p.max, ui.runs[p.split_index].rect);
  } else if (ui.compare.open && p.run && !p.error) {
    visible_rect(a, b, p.min, p.max, ui.runs[p.index].rect);
  }
}

/// The run's pane the pointer reads: the hovered one (run B's right of the split view's divider);
/// run A's over the truth and the error.
Pane pane_read(const UiState& ui, const CanvasLayout& L, int hovered_pane) {
  const Pane& p = L.panes[hovered_pane];
  if (p.split) {
    const SplitGeometry g = split_view(p.min.x, p.max.x - p.min.x, ui.compare.divider);
    if (ImGui::GetIO().MousePos.x >= g.divider_x && L.panes[1].run) return L.panes[1];
  }
  return p.run ? p : run_pane(ui, shown_runs(ui)[0], L.frame);
}

/// The pixel under the pointer in every view: the truth, the picture of the run it reads, their
/// error (each run's against its own truth at the picture's size).
void pixel_tooltip(UiState& ui, const CanvasLayout& L, int hovered_pane, const Image& truth) {
  const CanvasView& v = ui.view;
  const ImGuiIO& io = ImGui::GetIO();
  const Pane read = pane_read(ui, L, hovered_pane);
  const RunView& run = *read.run;
  const ImVec2 c = L.center(hovered_pane);
  const int32_t x = int32_t(std::floor(v.center_x + (io.MousePos.x - c.x) / v.zoom));
  const int32_t y = int32_t(std::floor(v.center_y + (io.MousePos.y - c.y) / v.zoom));
  if (x < 0 || y < 0 || x >= truth.width || y >= truth.height) return;
  char t[96], r[96];
  pixel_text(t, sizeof t, &truth, x, y);
  // The picture shown may be smaller than the training grid (a screen-sized preview, a
  // timelapse frame): its pixel under the pointer, against the truth at its size.
  const Image* shown = read.values;
  const bool frame = shown && shown != run.reconstruction.get(); // a timelapse frame
  const int32_t sx = shown ? int32_t(int64_t(x) * shown->width / truth.width) : x;
  const int32_t sy = shown ? int32_t(int64_t(y) * shown->height / truth.height) : y;
  pixel_text(r, sizeof r, shown, sx, sy);
  float err = -1;
  if (const Image* at_size = shown ? run.truth_for(*shown) : nullptr) {
    err = 0;
    for (int32_t k = 0; k < at_size->channels; ++k)
      err += std::abs(shown->at(sx, sy, k) - at_size->at(sx, sy, k));
    err /= float(at_size->channels);
  }
  const std::string gaussian = frame ? "" : primitive_tooltip(ui, run, double(x) + 0.5, double(y) + 0.5);
  const std::string of = read.label ? std::string("  ") + read.label : std::string();
  char text[1024];
  if (err >= 0)
    std::snprintf(text, sizeof text, "pixel (%d, %d)%s\ntruth          %s\nreconstruction %s\n|error|        %.4f%s", x, y,
                  of.c_str(), t, r, double(err), gaussian.c_str());
  else
    std::snprintf(text, sizeof text, "pixel (%d, %d)%s\ntruth          %s%s", x, y, of.c_str(), t, gaussian.c_str());
  ui.hover_text = text;
  ImGui::SetTooltip("%s", text);
}
} // namespace

void draw_canvas(UiState& ui) {
  draw_toolbar(ui);
  CanvasView& v = ui.view;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  CanvasLayout L;
  L.origin = ImGui::GetCursorScreenPos();
  L.avail = ImGui::GetContentRegionAvail();
  if (L.avail.x < 20 || L.avail.y < 20) return;
  ImGui::InvisibleButton("canvas", L.avail,
                         ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonMiddle |
                             ImGuiButtonFlags_MouseButtonRight);
  const bool hovered = ImGui::IsItemHovered(), active = ImGui::IsItemActive();

  // The panes' size is known before any picture: previews are rendered to fit it, the first one
  // of a load included (tell_session). Only the ground truth alone shows no preview.
  L.caption_h = ImGui::GetTextLineHeightWithSpacing();
  L.count = ui.compare.open ? (split_shown(ui) ? 1 : int(shown_runs(ui).size()))
            : v.mode == CanvasMode::SideBySide ? 3
                                               : 1;
  L.cols = L.count;
  const int rows = compared_error_maps_shown(ui) ? 2 : 1; // the runs' pictures, then their error maps
  L.count *= rows;
  L.pane_w = (L.avail.x - L.gap * float(L.cols - 1)) / float(L.cols);
  L.pane_h = (L.avail.y - float(rows) * L.caption_h - float(rows - 1) * L.gap) / float(rows);
  if (ui.compare.open || v.mode != CanvasMode::GroundTruth) {
    const ImVec2 fb = ImGui::GetIO().DisplayFramebufferScale;
    ui.preview_pane[0] = std::max(1, int32_t(std::ceil(L.pane_w * fb.x)));
    ui.preview_pane[1] = std::max(1, int32_t(std::ceil(L.pane_h * fb.y)));
  }

  const RunView& run = ui.run_a(); // the run the user edits: its truth sets the view
  const Image* truth = run.ground_truth.get();
  if (!truth || !run.tex.truth || run.tex.truth->empty()) {
    const char* msg = run.status.busy ? "Loading..." : "Drop an image here, or File > Open (Ctrl+O)";
    const ImVec2 ts = ImGui::CalcTextSize(msg);
    dl->AddText(ImVec2(L.origin.x + (L.avail.x - ts.x) * 0.5f, L.origin.y + (L.avail.y - ts.y) * 0.5f),
                IM_COL32(180, 180, 190, 255), msg);
    return;
  }
  choose_panes(ui, truth, L);
  if (v.fit_requested) {
    v.zoom = std::max(0.01f, std::min(L.pane_w / float(truth->width), L.pane_h / float(truth->height)));
    v.center_x = float(truth->width) * 0.5f;
    v.center_y = float(truth->height) * 0.5f;
    v.fit_requested = false;
  }
  const int hovered_pane = navigate(ui, L, hovered, active);
  ZoomRegion wanted; // the reconstruction's (or the scrubbed frame's) view, when zoomed past its texels
  for (int i = 0; i < L.count; ++i)
    draw_pane(ui, dl, L, i, *truth, wanted);
  if (!wanted.same_view(ui.zoom.wanted)) ui.zoom.wanted_since = ui.now;
  ui.zoom.wanted = wanted;
  ui.hover_text.clear();
  const bool pointer = !ui.scripted || ui.script_pointer[0] >= 0; // a user's, or a script's
  if (hovered && !active && hovered_pane >= 0 && pointer) pixel_tooltip(ui, L, hovered_pane, *truth);
}

} // namespace redraw
