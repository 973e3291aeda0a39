#include "ui/panels/panels.h"
#include "ui/widgets/plot_widgets.h"
#include "ui/widgets/tool_window.h"
#include "ui/widgets/ui_scale.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace redraw {
namespace {

struct Phase {
  const char* name;
  ImU32 color;
  float PerfBin::*field;
};
constexpr Phase k_phases[] = {{"forward", IM_COL32(90, 170, 255, 255), &PerfBin::forward_ms},
                              {"backward", IM_COL32(255, 150, 60, 255), &PerfBin::backward_ms},
                              {"update", IM_COL32(120, 210, 120, 255), &PerfBin::update_ms},
                              {"metrics", IM_COL32(220, 110, 220, 255), &PerfBin::metrics_ms},
                              {"other", IM_COL32(150, 150, 150, 255), &PerfBin::other_ms}};

/// Stacked bars of the step time (Tracy's frame graph), newest right, each as wide as the time
/// its steps took.
void draw_step_timeline(const PerfState& p, ImVec2 size) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 a = ImGui::GetCursorScreenPos(), b(a.x + size.x, a.y + size.y);
  ImGui::InvisibleButton("##steps", size);
  const bool hovered = ImGui::IsItemHovered();
  dl->AddRectFilled(a, b, IM_COL32(25, 27, 32, 255));
  float top = 1e-3f;
  for (const PerfBin& bin : p.bins)
    top = std::max(top, bin.step_ms);
  top *= 1.1f;
  // Time runs left to right over the kept minute; a bar is as wide as the time its steps took
  // (Tracy's frames), so a step slower than a bin is one wide bar, not a comb of spikes.
  // The kept minute, or longer when slow frames closed the bins late (the same span as the
  // line timelines below, which plot the kept bins).
  const double now = p.bins.empty() ? 0 : p.bins.back().end_s;
  const double window = std::max(p.bin_seconds * double(std::max<size_t>(p.capacity, 1)),
                                 p.bins.empty() ? 0.0 : now - p.bins.front().end_s);
  auto x_of = [&](double t) { return b.x - float((now - t) / window) * size.x; };
  int hover = -1;
  for (size_t i = 0; i < p.bins.size(); ++i) {
    const PerfBin& bin = p.bins[i];
    if (bin.steps == 0) continue;
    const float x1 = x_of(bin.end_s), x0 = std::max(a.x, std::min(x1 - 1.0f, x_of(bin.end_s - bin.span_s) + 1.0f));
    if (x1 <= a.x) continue;
    float y = b.y;
    if (bin.split) {
      for (const Phase& ph : k_phases) {
        const float h = bin.*ph.field / top * size.y;
        if (h > 0) dl->AddRectFilled(ImVec2(x0, y - h), ImVec2(x1, y), ph.color);
        y -= h;
      }
    } else if (bin.step_ms > 0) { // the backend times the whole step only
      dl->AddRectFilled(ImVec2(x0, y - bin.step_ms / top * size.y), ImVec2(x1, y), IM_COL32(200, 200, 120, 255));
    }
    const ImVec2 m = ImGui::GetIO().MousePos;
    if (hovered && m.x >= x0 - 1 && m.x <= x1) hover = int(i);
  }
  char label[32];
  std::snprintf(label, sizeof label, "%.3g ms", double(top));
  dl->AddText(ImVec2(a.x + ui_px(4), a.y + ui_px(2)), IM_COL32(180, 180, 180, 255), label);
  dl->AddRect(a, b, IM_COL32(70, 72, 80, 255));
  if (hover >= 0) {
    const PerfBin& bin = p.bins[size_t(hover)];
    ImGui::BeginTooltip();
    ImGui::Text("%.1f s ago: %lld steps, %.2f steps/s", p.bins.back().end_s - bin.end_s,
                static_cast<long long>(bin.steps), double(bin.steps_per_s));
    ImGui::Text("step %.2f ms", double(bin.step_ms));
    if (bin.split)
      for (const Phase& ph : k_phases)
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(ph.color), "  %-8s %.2f ms", ph.name, double(bin.*ph.field));
    ImGui::Text("preview %.1f ms per second", double(bin.preview_ms));
    ImGui::EndTooltip();
  }
}

/// One line timeline of a bin field against seconds before now.
void draw_field_timeline(const char* id, const PerfState& p, float PerfBin::*field, const char* title, ImU32 color,
                         ImVec2 size, bool skip_negative) {
  std::vector<float> xs, ys;
  const double now = p.bins.empty() ? 0 : p.bins.back().end_s;
  for (const PerfBin& bin : p.bins) {
    const float v = bin.*field;
    xs.push_back(float(bin.end_s - now));
    ys.push_back(skip_negative && v < 0 ? NAN : v);
  }
  PlotSeries series{xs, ys, color};
  PlotOptions opts;
  opts.title = title;
  opts.x_label = "seconds";
  opts.y_min = 0;
  float top = 0; // headroom, so a flat line (memory) is not drawn on the frame's top edge
  for (float y : ys)
    if (std::isfinite(y)) top = std::max(top, y);
  if (top > 0) opts.y_max = top * 1.15f;
  draw_line_plot(id, size, std::span(&series, 1), opts);
}

} // namespace

void draw_perf_panel(UiState& ui, const RunView& run) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const WindowPlacement first{
      ImVec2(vp->WorkPos.x + vp->WorkSize.x - std::min(ui_px(540), vp->WorkSize.x * 0.5f + ui_px(20)),
             vp->WorkPos.y + ui_px(40)),
      ImVec2(std::min(ui_px(520), vp->WorkSize.x * 0.5f), std::min(ui_px(640), vp->WorkSize.y * 0.8f))};
  if (!begin_tool_window("Performance", &ui.settings.show_perf, first, ImGuiWindowFlags_NoCollapse)) return;
  const PerfState& p = ui.perf;
  const SessionStatus& st = run.status;
  const double average = st.elapsed_s > 0 ? double(st.step) / st.elapsed_s : 0;
  ImGui::Text("steps/s: %.2f run average", average);
  ImGui::SameLine();
  if (st.running)
    ImGui::TextDisabled("(%.2f over the last two seconds)", st.steps_per_s);
  else
    ImGui::TextDisabled("(paused)");
  // The newest bin with steps sums up where a step goes now.
  const PerfBin* last = nullptr;
  for (auto it = p.bins.rbegin(); it != p.bins.rend() && !last; ++it)
    if (it->steps > 0) last = &*it;
  if (last) {
    ImGui::Text("step %.2f ms", double(last->step_ms));
    if (last->split)
      for (const Phase& ph : k_phases) {
        char text[48];
        std::snprintf(text, sizeof text, "%s %.2f", ph.name, double(last->*ph.field));
        // On the same line while it fits, else on the next.
        const float right = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + ImGui::CalcTextSize(text).x;
        if (right <= ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x) ImGui::SameLine();
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(ph.color), "%s", text);
      }
    else {
      ImGui::SameLine();
      ImGui::TextDisabled("(this backend times whole steps only)");
    }
  } else {
    ImGui::TextDisabled("no steps in the last minute: train (Space) to see where the time goes");
  }
  const float w = ImGui::GetContentRegionAvail().x;
  const float h =
      std::max(ui_px(95), (ImGui::GetContentRegionAvail().y - ImGui::GetTextLineHeightWithSpacing() * 4) / 4);
  ImGui::TextUnformatted("step time by phase (ms per step, last minute)");
  draw_step_timeline(p, ImVec2(w, h));
  draw_field_timeline("##frame", p, &PerfBin::frame_ms, "GUI frame time (ms, CPU)", IM_COL32(255, 210, 90, 255),
                      ImVec2(w, h), false);
  if (!p.bins.empty()) {
    const PerfBin& b = p.bins.back();
    ImGui::TextDisabled("GUI: %.0f fps, frame %.2f ms (worst %.2f)", double(ui.fps), double(b.frame_ms),
                        double(b.frame_max_ms));
  }
  const bool device = !p.bins.empty() && p.bins.back().device_mb >= 0;
  draw_field_timeline("##host", p, &PerfBin::host_mb, "host memory (MiB resident)", IM_COL32(120, 210, 120, 255),
                      ImVec2(device ? w * 0.5f - ui_px(4) : w, h), true);
  if (device) {
    ImGui::SameLine();
    char title[64];
    std::snprintf(title, sizeof title, "device memory (MiB used of %.0f)",
                  double(p.device_total_bytes) / double(1 << 20));
    draw_field_timeline("##device", p, &PerfBin::device_mb, title, IM_COL32(255, 150, 60, 255),
                        ImVec2(w * 0.5f - ui_px(4), h), true);
  }
  draw_field_timeline("##rate", p, &PerfBin::steps_per_s, "steps/s", IM_COL32(90, 170, 255, 255), ImVec2(w, h), false);
  ImGui::End();
}

} // namespace redraw
