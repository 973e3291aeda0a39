#include "ui/panels/gaussians_view.h"

#include "engine/errors.h"
#include "engine/model_family.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace redraw {

namespace {
constexpr double k_refresh_s = 1.0; ///< a new snapshot at most this often while training
constexpr int k_segments = 14;      ///< an outline's straight pieces

/// Dark blue -> teal -> yellow, for t in [0, 1] (small or still -> large or moving).
ImU32 ramp(double t) {
  t = std::clamp(t, 0.0, 1.0);
  const double stops[3][3] = {{0.15, 0.25, 0.85}, {0.10, 0.80, 0.70}, {1.00, 0.90, 0.15}};
  const int i = t < 0.5 ? 0 : 1;
  const double f = t < 0.5 ? t * 2 : (t - 0.5) * 2;
  const auto mix = [&](int k) { return float(stops[i][k] + (stops[i + 1][k] - stops[i][k]) * f); };
  return ImGui::ColorConvertFloat4ToU32(ImVec4(mix(0), mix(1), mix(2), 0.9f));
}

ImU32 outline_colour(const GaussiansViewState& g, const GaussianEllipse& e) {
  const GaussianView& v = *g.view;
  switch (GaussianColour(g.colour_by)) {
  case GaussianColour::Colour:
    return ImGui::ColorConvertFloat4ToU32(ImVec4(e.rgb[0], e.rgb[1], e.rgb[2], 0.95f));
  case GaussianColour::Change:
    if (v.max_change <= 0) return IM_COL32(150, 150, 160, 200);
    return ramp(std::sqrt(double(e.change) / v.max_change)); // a square root spreads the many small moves
  case GaussianColour::Size:
  default: {
    // Four times smaller than the median to four times larger, on a log scale.
    const double r = std::sqrt(double(e.rx) * e.ry), m = std::max(1e-9, v.median_radius);
    return ramp(0.5 + std::log2(std::max(1e-9, r / m)) / 4.0);
  }
  }
}
} // namespace

bool gaussian_view_current(const UiState& ui, const RunView& run) {
  const GaussiansViewState& g = ui.insight.gaussians;
  return g.view && run.status.has_run && g.trainer == run.status.trainer_id &&
         model_family(run.status.config.model.encoding.kind).insight == InsightView::Gaussians;
}

void update_gaussian_view(UiState& ui, const RunView& run, const NetworkSnapshot& net) {
  GaussiansViewState& g = ui.insight.gaussians;
  const SessionStatus& st = run.status;
  const GaussianView* earlier = g.view && g.trainer == st.trainer_id ? g.view.get() : nullptr;
  try {
    g.view = std::make_shared<const GaussianView>(gaussian_view(net, st.width, st.height, earlier));
    g.trainer = st.trainer_id;
  } catch (const Error& e) {
    ui.insight.neurons.error = e.what();
  }
  g.next_request = ui.now + (st.running ? k_refresh_s : 0.2);
}

void draw_gaussians_controls(UiState& ui, const RunView& run) {
  GaussiansViewState& g = ui.insight.gaussians;
  ImGui::TextWrapped("A sum of 2-D Gaussians has no neurons: its one-sigma ellipses are outlined over run A's "
                     "picture; hover it to read the one that weighs most there.");
  ImGui::Checkbox("outline the Gaussians over the picture", &g.overlay);
  const char* modes[] = {"size", "colour", "change since the last view"};
  ImGui::SetNextItemWidth(ImGui::CalcTextSize(modes[2]).x + ImGui::GetFrameHeight() * 2);
  ImGui::Combo("coloured by", &g.colour_by, modes, 3);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("size: a quarter of the median radius (blue) to four times it (yellow)\n"
                      "colour: what each adds to the picture\n"
                      "change: how far its floats moved since the previous view (where the gradient works)");
  if (!gaussian_view_current(ui, run)) {
    ImGui::TextDisabled("waiting for the parameters...");
    return;
  }
  const GaussianView& v = *g.view;
  ImGui::Text("step %lld: %zu Gaussians, median radius %.2f px", static_cast<long long>(v.step), v.ellipses.size(),
              v.median_radius);
  if (g.overlay)
    ImGui::TextDisabled(g.drawn < g.visible ? "%lld of the %lld in view outlined (the largest); zoom in for the rest"
                                            : "%lld of the %lld in view outlined",
                        static_cast<long long>(g.drawn), static_cast<long long>(g.visible));
}

void draw_gaussians_overlay(UiState& ui, const RunView& run, ImDrawList* dl, ImVec2 origin, float zoom, ImVec2 clip_min,
                            ImVec2 clip_max) {
  GaussiansViewState& g = ui.insight.gaussians;
  g.visible = g.drawn = 0;
  if (!g.overlay || !ui.settings.show_neuron_maps || !gaussian_view_current(ui, run)) return;
  const GaussianView& v = *g.view;
  // Those whose box meets the pane, the largest first.
  std::vector<uint32_t> shown;
  for (size_t i = 0; i < v.ellipses.size(); ++i) {
    const GaussianEllipse& e = v.ellipses[i];
    const float x = origin.x + e.cx * zoom, y = origin.y + e.cy * zoom, r = e.rx * zoom;
    if (x + r >= clip_min.x && x - r <= clip_max.x && y + r >= clip_min.y && y - r <= clip_max.y)
      shown.push_back(uint32_t(i));
  }
  g.visible = int64_t(shown.size());
  const size_t keep = std::min<size_t>(shown.size(), size_t(k_gaussians_outlined));
  std::partial_sort(shown.begin(), shown.begin() + ptrdiff_t(keep), shown.end(), [&](uint32_t a, uint32_t b) {
    return v.ellipses[a].rx * v.ellipses[a].ry > v.ellipses[b].rx * v.ellipses[b].ry;
  });
  shown.resize(keep);
  g.drawn = int64_t(keep);
  dl->PushClipRect(clip_min, clip_max, true);
  ImVec2 pts[k_segments];
  for (const uint32_t i : shown) {
    const GaussianEllipse& e = v.ellipses[i];
    const float cs = std::cos(e.angle), sn = std::sin(e.angle);
    const float cx = origin.x + e.cx * zoom, cy = origin.y + e.cy * zoom, rx = e.rx * zoom, ry = e.ry * zoom;
    const ImU32 col = outline_colour(g, e);
    if (rx < 1.5f) { // under a pixel or two on screen: a dot says as much
      dl->AddRectFilled(ImVec2(cx - 0.5f, cy - 0.5f), ImVec2(cx + 0.5f, cy + 0.5f), col);
      continue;
    }
    for (int k = 0; k < k_segments; ++k) {
      const float t = 6.2831853f * float(k) / float(k_segments), u = rx * std::cos(t), w = ry * std::sin(t);
      pts[k] = ImVec2(cx + u * cs - w * sn, cy + u * sn + w * cs);
    }
    dl->AddPolyline(pts, k_segments, col, ImDrawFlags_Closed, 1.0f);
  }
  dl->PopClipRect();
}

std::string gaussian_tooltip(const UiState& ui, const RunView& run, double px, double py) {
  const GaussiansViewState& g = ui.insight.gaussians;
  if (!g.overlay || !ui.settings.show_neuron_maps || !gaussian_view_current(ui, run)) return "";
  double weight = 0;
  const int64_t i = gaussian_at(*g.view, px, py, weight);
  if (i < 0) return "\nno Gaussian reaches this pixel";
  const GaussianEllipse& e = g.view->ellipses[size_t(i)];
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "\nGaussian %lld (weight %.3f here)\n  centre (%.1f, %.1f) px, radii %.2f x %.2f px at %.0f deg\n"
                "  colour (%.3f, %.3f, %.3f)%s",
                static_cast<long long>(i), weight, e.cx, e.cy, e.rx, e.ry, double(e.angle) * 57.29578, e.rgb[0],
                e.rgb[1], e.rgb[2],
                g.view->max_change > 0 ? (", moved " + std::to_string(e.change) + " since the last view").c_str() : "");
  return buf;
}

} // namespace redraw
