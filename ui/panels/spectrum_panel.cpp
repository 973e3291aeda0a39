#include "ui/widgets/image_views.h"
#include "ui/panels/insight_views.h"
#include "ui/panels/panels.h"
#include "ui/widgets/tool_window.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace redraw {
namespace {

/// One picture with its caption, fitted into w x h keeping the aspect ratio.
void captioned_image(PreviewTexture* tex, const char* caption, float w, float h, float* rect = nullptr) {
  ImGui::BeginGroup();
  ImGui::TextUnformatted(caption);
  if (tex && !tex->empty()) {
    const float scale = std::min(w / float(tex->width()), h / float(tex->height()));
    ImGui::Image(tex->imgui_id(), ImVec2(float(tex->width()) * scale, float(tex->height()) * scale));
    if (rect) store_item_rect(rect);
  } else {
    ImGui::Dummy(ImVec2(w, h));
  }
  ImGui::EndGroup();
}

void draw_heat_map(UiState& ui, PreviewTexture* tex, ImVec2 size) {
  const SpectrumViewState& s = ui.insight.spectrum;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float label_w = ImGui::CalcTextSize("0.50").x + 8, label_h = ImGui::GetTextLineHeightWithSpacing();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##heat", size);
  const bool hovered = ImGui::IsItemHovered();
  const ImVec2 a(p0.x + label_w, p0.y), b(p0.x + size.x - 70, p0.y + size.y - label_h);
  dl->AddRectFilled(a, b, IM_COL32(20, 20, 24, 255));
  if (s.history.empty() || !tex || tex->empty() || b.x <= a.x || b.y <= a.y) {
    dl->AddText(ImVec2(a.x + 8, a.y + 8), IM_COL32(160, 160, 160, 255), "the band powers appear while it trains");
    return;
  }
  dl->AddImage(tex->imgui_id(), a, b);
  const ImVec2 fb = ImGui::GetIO().DisplayFramebufferScale;
  float* hr = ui.insight.spectrum.heat_rect;
  hr[0] = a.x * fb.x, hr[1] = a.y * fb.y, hr[2] = (b.x - a.x) * fb.x, hr[3] = (b.y - a.y) * fb.y;
  const ImU32 text = IM_COL32(200, 200, 200, 255);
  // Axes: frequency (cycles per pixel, 0 at the bottom, Nyquist 0.5 at the top), step along x.
  dl->AddText(ImVec2(p0.x, a.y), text, "0.50");
  dl->AddText(ImVec2(p0.x, b.y - ImGui::GetTextLineHeight()), text, "0");
  char buf[96];
  std::snprintf(buf, sizeof buf, "step %lld", static_cast<long long>(s.history.front().step));
  dl->AddText(ImVec2(a.x, b.y + 2), text, buf);
  std::snprintf(buf, sizeof buf, "step %lld", static_cast<long long>(s.history.back().step));
  dl->AddText(ImVec2(b.x - ImGui::CalcTextSize(buf).x, b.y + 2), text, buf);
  const char* axis = "frequency (cycles/pixel) over steps";
  dl->AddText(ImVec2((a.x + b.x - ImGui::CalcTextSize(axis).x) / 2, b.y + 2), IM_COL32(150, 150, 150, 255), axis);
  // Colour legend: log10 of the radially averaged error power.
  const float lx = b.x + 8, lw = 12;
  for (int i = 0; i < 32; ++i) {
    const float t0 = float(i) / 32, t1 = float(i + 1) / 32;
    const auto c = heat_color(1.0f - (t0 + t1) / 2);
    dl->AddRectFilled(ImVec2(lx, a.y + (b.y - a.y) * t0), ImVec2(lx + lw, a.y + (b.y - a.y) * t1),
                      IM_COL32(c[0], c[1], c[2], 255));
  }
  std::snprintf(buf, sizeof buf, "1e%.1f", s.heat_hi);
  dl->AddText(ImVec2(lx + lw + 3, a.y), text, buf);
  std::snprintf(buf, sizeof buf, "1e%.1f", s.heat_lo);
  dl->AddText(ImVec2(lx + lw + 3, b.y - ImGui::GetTextLineHeight()), text, buf);
  if (hovered && !ui.scripted) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    if (m.x >= a.x && m.x < b.x && m.y >= a.y && m.y < b.y) {
      const int32_t bands = int32_t(s.bins.size());
      const int32_t band = std::clamp(int32_t((b.y - m.y) / (b.y - a.y) * float(bands)), 0, bands - 1);
      const double first = double(s.history.front().step), last = double(s.history.back().step);
      const double at = first + (last - first) * double((m.x - a.x) / (b.x - a.x));
      size_t r = 0;
      while (r + 1 < s.history.size() && double(s.history[r + 1].step) <= at)
        ++r;
      const double v = spectrum_heat_value(s, r, band);
      ImGui::SetTooltip(s.heat_relative ? "step %lld\nfrequency %.3f-%.3f cycles/pixel\nerror power x%.3g of its first "
                                          "value\nband's share of the MSE %.3g"
                                        : "step %lld\nfrequency %.3f-%.3f cycles/pixel\nerror power %.3g per "
                                          "frequency\nband's share of the MSE %.3g",
                        static_cast<long long>(s.history[r].step), band * 0.5 / bands, (band + 1) * 0.5 / bands,
                        std::pow(10.0, v), s.history[r].band_power[size_t(band)]);
    }
  }
}

} // namespace

void draw_spectrum(UiState& ui, const RunView& run) {
  if (!begin_tool_window("Spectrum", &ui.settings.show_spectrum,
                         work_area_placement(0.25f, 40, ImVec2(960, 640), ImVec2(0.72f, 0.8f))))
    return;
  SpectrumViewState& s = ui.insight.spectrum;
  InsightResources* res = ui.insight.res;
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float footer = ImGui::GetFrameHeightWithSpacing() * 2;
  const float pic_w = std::max(40.0f, (avail.x - 2 * gap) / 3);
  const float pic_h = std::max(40.0f, std::min(pic_w, (avail.y - footer) * 0.55f));
  char caption[80];
  captioned_image(res ? res->spectrum_truth.get() : nullptr, "target |F| (log)", pic_w, pic_h);
  ImGui::SameLine();
  std::snprintf(caption, sizeof caption, "reconstruction |F|, step %lld", static_cast<long long>(s.shown_step));
  captioned_image(res ? res->spectrum_recon.get() : nullptr, caption, pic_w, pic_h, s.recon_rect);
  ImGui::SameLine();
  captioned_image(res ? res->spectrum_error.get() : nullptr, "error |F|", pic_w, pic_h);
  if (ImGui::Checkbox("each band relative to its start", &s.heat_relative)) s.heat_dirty = true;
  ImGui::SameLine();
  ImGui::TextDisabled(s.heat_relative ? "(error power / its first value, log scale; low frequencies at the bottom)"
                                      : "(error power per frequency, log scale; low frequencies at the bottom)");
  const float heat_h = std::max(60.0f, ImGui::GetContentRegionAvail().y - footer);
  draw_heat_map(ui, res ? res->spectrum_heat.get() : nullptr, ImVec2(ImGui::GetContentRegionAvail().x, heat_h));

  if (s.export_path.empty() && run.status.has_run) s.export_path = insight_export_path(ui, "_spectrum.png");
  char path[1024];
  std::snprintf(path, sizeof path, "%s", s.export_path.c_str());
  ImGui::SetNextItemWidth(std::max(120.0f, ImGui::GetContentRegionAvail().x - 260));
  if (ImGui::InputText("##spectrum_path", path, sizeof path)) s.export_path = path;
  ImGui::SameLine();
  if (ImGui::Button("Save PNG")) {
    const std::string err = export_spectrum_png(ui, s.export_path);
    ui.notify(err.empty() ? "saved " + s.export_path + " (and *_bands.png)" : "spectrum export: " + err, !err.empty());
  }
  ImGui::SameLine();
  if (ImGui::Button("Save CSV")) {
    const std::string csv = std::filesystem::path(s.export_path).replace_extension(".csv").string();
    const std::string err = export_spectrum_csv(ui, csv);
    ui.notify(err.empty() ? "saved " + csv : "spectrum export: " + err, !err.empty());
  }
  ImGui::End();
}

} // namespace redraw
