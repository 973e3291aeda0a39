#include "ui/panels/primitives_view.h"

#include "engine/errors.h"
#include "engine/model_family.h"
#include "ui/panels/insight_views.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace redraw {

namespace {
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

ImU32 outline_colour(const PrimitivesViewState& g, const PrimitiveEllipse& e) {
  const PrimitiveView& v = *g.view;
  switch (PrimitiveColour(g.colour_by)) {
  case PrimitiveColour::Colour:
    return ImGui::ColorConvertFloat4ToU32(ImVec4(e.rgb[0], e.rgb[1], e.rgb[2], 0.95f));
  case PrimitiveColour::Change:
    if (v.max_change <= 0) return IM_COL32(150, 150, 160, 200);
    return ramp(std::sqrt(double(e.change) / v.max_change)); // a square root spreads the many small moves
  case PrimitiveColour::Size:
  default: {
    // Four times smaller than the median to four times larger, on a log scale.
    const double r = std::sqrt(double(e.rx) * e.ry), m = std::max(1e-9, v.median_radius);
    return ramp(0.5 + std::log2(std::max(1e-9, r / m)) / 4.0);
  }
  }
}
} // namespace

bool primitive_view_current(const UiState& ui, const RunView& run) {
  const PrimitivesViewState& g = ui.insight.primitives;
  const InsightView kind = model_family(run.status.config.model.encoding.kind).insight;
  return g.view && run.status.has_run && g.trainer == run.status.trainer_id &&
         (kind == InsightView::Gaussians || kind == InsightView::Sites) && g.view->sites == (kind == InsightView::Sites);
}

void draw_primitives_controls(UiState& ui, const RunView& run) {
  PrimitivesViewState& g = ui.insight.primitives;
  const bool sites = model_family(run.status.config.model.encoding.kind).insight == InsightView::Sites;
  const char* noun = sites ? "sites" : "Gaussians";
  if (sites)
    ImGui::TextWrapped("A soft anisotropic diagram has no neurons: its owner map colours each pixel by the site "
                       "that weighs most there, and its sites' ellipses can be outlined over run A's picture; "
                       "hover it to read the site that owns a pixel.");
  else
    ImGui::TextWrapped("A sum of 2-D Gaussians has no neurons: its one-sigma ellipses are outlined over run A's "
                       "picture; hover it to read the one that weighs most there.");
  if (sites) {
    const char* owner_modes[] = {"off", "each site's colour, borders drawn", "a distinct colour per site"};
    ImGui::SetNextItemWidth(ImGui::CalcTextSize(owner_modes[1]).x + ImGui::GetFrameHeight() * 2);
    if (ImGui::Combo("owner map", &g.owner_mode, owner_modes, 3)) g.owner_dirty = true;
    if (g.owner_mode != 0) {
      ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
      ImGui::SliderFloat("owner map opacity", &g.owner_alpha, 0.1f, 1.0f, "%.2f");
    }
  }
  ImGui::Checkbox(sites ? "outline the sites over the picture" : "outline the Gaussians over the picture", &g.overlay);
  const char* modes[] = {"size", "colour", "change since the last view"};
  ImGui::SetNextItemWidth(ImGui::CalcTextSize(modes[2]).x + ImGui::GetFrameHeight() * 2);
  ImGui::Combo("coloured by", &g.colour_by, modes, 3);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("size: a quarter of the median radius (blue) to four times it (yellow)\n"
                      "colour: what each adds to the picture\n"
                      "change: how far its floats moved since the previous view (where the gradient works)");
  if (!primitive_view_current(ui, run)) {
    ImGui::TextDisabled("waiting for the parameters...");
    return;
  }
  const PrimitiveView& v = *g.view;
  ImGui::Text("step %lld: %zu %s, median radius %.2f px", static_cast<long long>(v.step), v.ellipses.size(), noun,
              v.median_radius);
  if (sites)
    ImGui::Text("%lld own no pixel of the %dx%d owner map", static_cast<long long>(v.idle), v.map_w, v.map_h);
  if (g.overlay)
    ImGui::TextDisabled(g.drawn < g.visible ? "%lld of the %lld in view outlined (the largest); zoom in for the rest"
                                            : "%lld of the %lld in view outlined",
                        static_cast<long long>(g.drawn), static_cast<long long>(g.visible));
}

std::vector<uint8_t> owner_map_rgba(const PrimitiveView& v, int32_t mode) {
  const size_t w = size_t(v.map_w), h = size_t(v.map_h);
  std::vector<uint8_t> rgba(w * h * 4, 0);
  if (v.owner.size() != w * h) return rgba;
  const auto to8 = [](double c) { return uint8_t(std::lround(std::clamp(c, 0.0, 1.0) * 255.0)); };
  for (size_t j = 0; j < h; ++j)
    for (size_t i = 0; i < w; ++i) {
      const int32_t o = v.owner[j * w + i];
      uint8_t* px = rgba.data() + (j * w + i) * 4;
      if (o < 0 || size_t(o) >= v.ellipses.size()) continue; // transparent where no site blends
      double c[3];
      if (mode == 2) { // a hue from the site's id (golden-ratio steps keep neighbours apart)
        const double hue = std::fmod(double(o) * 0.6180339887498949, 1.0);
        for (int k = 0; k < 3; ++k)
          c[k] = 0.55 + 0.4 * std::cos(6.283185307179586 * (hue - double(k) / 3.0));
      } else {
        for (int k = 0; k < 3; ++k) c[k] = v.ellipses[size_t(o)].rgb[k];
      }
      // A border where the owner changes from the pixel to its right or below: the diagram's edges.
      const bool border = (i + 1 < w && v.owner[j * w + i + 1] != o) || (j + 1 < h && v.owner[(j + 1) * w + i] != o);
      const double shade = border ? 0.35 : 1.0;
      for (int k = 0; k < 3; ++k) px[k] = to8(c[k] * shade);
      px[3] = 255;
    }
  return rgba;
}

void draw_primitives_overlay(UiState& ui, const RunView& run, ImDrawList* dl, ImVec2 origin, float zoom, ImVec2 clip_min,
                            ImVec2 clip_max) {
  PrimitivesViewState& g = ui.insight.primitives;
  g.visible = g.drawn = 0;
  if (!ui.settings.show_neuron_maps || !primitive_view_current(ui, run)) return;
  const PrimitiveView& v = *g.view;
  const InsightResources* res = ui.insight.res;
  if (v.sites && g.owner_mode != 0 && res && res->owner_map && !res->owner_map->empty() && g.owner_shown == v.step) {
    const ImVec2 end(origin.x + float(v.width) * zoom, origin.y + float(v.height) * zoom);
    dl->PushClipRect(clip_min, clip_max, true);
    dl->AddImage(res->owner_map->imgui_id(), origin, end, ImVec2(0, 0), ImVec2(1, 1),
                 ImGui::ColorConvertFloat4ToU32(ImVec4(1, 1, 1, std::clamp(g.owner_alpha, 0.0f, 1.0f))));
    dl->PopClipRect();
  }
  if (!g.overlay) return;
  // Those whose box meets the pane, the largest first.
  std::vector<uint32_t> shown;
  for (size_t i = 0; i < v.ellipses.size(); ++i) {
    const PrimitiveEllipse& e = v.ellipses[i];
    const float x = origin.x + e.cx * zoom, y = origin.y + e.cy * zoom, r = e.rx * zoom;
    if (x + r >= clip_min.x && x - r <= clip_max.x && y + r >= clip_min.y && y - r <= clip_max.y)
      shown.push_back(uint32_t(i));
  }
  g.visible = int64_t(shown.size());
  const size_t keep = std::min<size_t>(shown.size(), size_t(k_primitives_outlined));
  std::partial_sort(shown.begin(), shown.begin() + ptrdiff_t(keep), shown.end(), [&](uint32_t a, uint32_t b) {
    return v.ellipses[a].rx * v.ellipses[a].ry > v.ellipses[b].rx * v.ellipses[b].ry;
  });
  shown.resize(keep);
  g.drawn = int64_t(keep);
  dl->PushClipRect(clip_min, clip_max, true);
  ImVec2 pts[k_segments];
  for (const uint32_t i : shown) {
    const PrimitiveEllipse& e = v.ellipses[i];
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

std::string primitive_tooltip(const UiState& ui, const RunView& run, double px, double py) {
  const PrimitivesViewState& g = ui.insight.primitives;
  if (!ui.settings.show_neuron_maps || !primitive_view_current(ui, run)) return "";
  const PrimitiveView& v = *g.view;
  if (!(v.sites ? g.overlay || g.owner_mode != 0 : g.overlay)) return "";
  double weight = 0;
  const int64_t i = primitive_at(v, px, py, weight);
  if (i < 0) return v.sites ? "\nno site is blended at this pixel" : "\nno Gaussian reaches this pixel";
  const PrimitiveEllipse& e = v.ellipses[size_t(i)];
  const std::string moved = v.max_change > 0 ? ", moved " + std::to_string(e.change) + " since the last view" : "";
  char buf[400];
  if (v.sites)
    std::snprintf(buf, sizeof buf,
                  "\nsite %lld owns this pixel (%lld of the owner map's)\n  centre (%.1f, %.1f) px, radii %.2f x "
                  "%.2f px at %.0f deg\n  colour (%.3f, %.3f, %.3f)%s",
                  static_cast<long long>(i), static_cast<long long>(e.owned), e.cx, e.cy, e.rx, e.ry,
                  double(e.angle) * 57.29578, e.rgb[0], e.rgb[1], e.rgb[2], moved.c_str());
  else
    std::snprintf(buf, sizeof buf,
                  "\nGaussian %lld (weight %.3f here)\n  centre (%.1f, %.1f) px, radii %.2f x %.2f px at %.0f deg\n"
                  "  colour (%.3f, %.3f, %.3f)%s",
                  static_cast<long long>(i), weight, e.cx, e.cy, e.rx, e.ry, double(e.angle) * 57.29578, e.rgb[0],
                  e.rgb[1], e.rgb[2], moved.c_str());
  return buf;
}

} // namespace redraw
