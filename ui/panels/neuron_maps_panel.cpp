#include "ui/panels/primitives_view.h"
#include "ui/widgets/bounded_text.h"
#include "ui/panels/insight_views.h"
#include "ui/panels/panels.h"
#include "ui/widgets/tool_window.h"
#include "ui/widgets/ui_scale.h"

#include "engine/model_family.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

namespace redraw {
namespace {

/// The layer picker, the scale and order choices and the pager. Returns true when the maps must
/// be computed again (another layer).
bool draw_neuron_controls(UiState& ui, const ModelSpec& model) {
  NeuronMapViewState& n = ui.insight.neurons;
  bool recompute = false;
  const int32_t layers = neuron_layer_count(model);
  n.layer = std::clamp(n.layer, 0, layers - 1);
  ImGui::SetNextItemWidth(260);
  if (ImGui::BeginCombo("layer", neuron_layer_name(model, n.layer).c_str())) {
    for (int32_t l = 0; l < layers; ++l)
      if (ImGui::Selectable(neuron_layer_name(model, l).c_str(), l == n.layer) && l != n.layer) {
        n.layer = l;
        n.page = 0;
        n.enlarged = -1;
        n.next_request = 0;
        recompute = true;
      }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  if (ImGui::Checkbox("shared scale", &n.shared_scale)) n.atlas_dirty = true;
  ImGui::SameLine();
  if (ImGui::Checkbox("sort by variance", &n.sort_by_variance) && n.maps) {
    n.order = neuron_display_order(*n.maps, n.sort_by_variance);
    n.atlas_dirty = true;
  }
  if (n.maps && n.maps->units > n.per_page) {
    const int32_t pages = (n.maps->units + n.per_page - 1) / n.per_page;
    ImGui::SameLine();
    if (ImGui::ArrowButton("##prev", ImGuiDir_Left) && n.page > 0) --n.page, n.atlas_dirty = true;
    ImGui::SameLine();
    ImGui::Text("page %d / %d", n.page + 1, pages);
    ImGui::SameLine();
    if (ImGui::ArrowButton("##next", ImGuiDir_Right) && n.page + 1 < pages) ++n.page, n.atlas_dirty = true;
  }
  return recompute;
}

/// The page's grid; hover names the unit, click enlarges it.
void draw_neuron_grid(UiState& ui, PreviewTexture* atlas, ImVec2 size) {
  NeuronMapViewState& n = ui.insight.neurons;
  if (!n.maps || !atlas || atlas->empty() || n.atlas_cols <= 0) {
    bounded_text_disabled(n.error.empty() ? std::string("computing the maps...") : n.error);
    return;
  }
  const NeuronMaps& m = *n.maps;
  const float scale = std::min(size.x / float(atlas->width()), size.y / float(atlas->height()));
  const ImVec2 shown(float(atlas->width()) * scale, float(atlas->height()) * scale);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::Image(atlas->imgui_id(), shown);
  store_item_rect(n.grid_rect);
  if (!ImGui::IsItemHovered() || ui.scripted) return;
  const ImVec2 mp = ImGui::GetIO().MousePos;
  const int32_t cx = int32_t((mp.x - p0.x) / scale) / (m.width + k_neuron_gap),
                cy = int32_t((mp.y - p0.y) / scale) / (m.height + k_neuron_gap);
  const int32_t k = n.page * n.per_page + cy * n.atlas_cols + cx;
  if (cx < 0 || cx >= n.atlas_cols || cy < 0 || k >= std::min(m.units, (n.page + 1) * n.per_page)) return;
  const int32_t u = n.order[size_t(k)];
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 c0(p0.x + float(cx * (m.width + k_neuron_gap)) * scale,
                  p0.y + float(cy * (m.height + k_neuron_gap)) * scale);
  dl->AddRect(c0, ImVec2(c0.x + float(m.width) * scale, c0.y + float(m.height) * scale), IM_COL32(255, 255, 255, 200));
  ImGui::SetTooltip("unit %d\nrange [%.4g, %.4g]\nvariance %.4g\nclick to enlarge", u, double(m.lo[size_t(u)]),
                    double(m.hi[size_t(u)]), m.variance[size_t(u)]);
  if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) n.enlarged = n.enlarged == u ? -1 : u;
}

/// The enlarged unit, cut from the atlas when it is on this page.
void draw_enlarged(UiState& ui, PreviewTexture* atlas, float side) {
  NeuronMapViewState& n = ui.insight.neurons;
  if (n.enlarged < 0 || !n.maps || !atlas || atlas->empty()) return;
  const NeuronMaps& m = *n.maps;
  const auto it = std::find(n.order.begin(), n.order.end(), n.enlarged);
  const int32_t k = int32_t(it - n.order.begin()) - n.page * n.per_page;
  if (it == n.order.end() || k < 0 || k >= n.per_page) {
    n.enlarged = -1;
    return;
  }
  const int32_t cx = k % n.atlas_cols, cy = k / n.atlas_cols;
  const float aw = float(atlas->width()), ah = float(atlas->height());
  const ImVec2 uv0(float(cx * (m.width + k_neuron_gap)) / aw, float(cy * (m.height + k_neuron_gap)) / ah);
  const ImVec2 uv1(uv0.x + float(m.width) / aw, uv0.y + float(m.height) / ah);
  const float s = side / float(std::max(m.width, m.height));
  ImGui::BeginGroup();
  ImGui::Text("unit %d: [%.4g, %.4g]", n.enlarged, double(m.lo[size_t(n.enlarged)]), double(m.hi[size_t(n.enlarged)]));
  ImGui::Image(atlas->imgui_id(), ImVec2(float(m.width) * s, float(m.height) * s), uv0, uv1);
  if (ImGui::Button("close")) n.enlarged = -1;
  ImGui::EndGroup();
}

} // namespace

void draw_neuron_maps(UiState& ui, const RunView& run) {
  const SessionStatus& st = run.status;
  const InsightView kind = st.has_run ? model_family(st.config.model.encoding.kind).insight : InsightView::NeuronMaps;
  if (kind == InsightView::Gaussians || kind == InsightView::Sites) {
    // No neurons: the same key opens a small window of its own for its Gaussians or sites, low on
    // the right over the plots, so that it never hides the pictures it outlines.
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const float w = ImGui::GetFontSize() * 30, h = ImGui::GetFrameHeightWithSpacing() * (kind == InsightView::Sites ? 11 : 8);
    const WindowPlacement corner{ImVec2(vp->WorkPos.x + vp->WorkSize.x - ui_px(12),
                                        vp->WorkPos.y + vp->WorkSize.y - ui_px(40)),
                                 ImVec2(w, h), ImVec2(1, 1)};
    if (!begin_tool_window(kind == InsightView::Sites ? "Sites" : "Gaussians", &ui.settings.show_neuron_maps, corner))
      return;
    draw_primitives_controls(ui, run);
    ImGui::End();
    return;
  }
  if (!begin_tool_window("Neuron maps", &ui.settings.show_neuron_maps,
                         work_area_placement(0.3f, 70, ImVec2(820, 720), ImVec2(0.65f, 0.85f))))
    return;
  NeuronMapViewState& n = ui.insight.neurons;
  InsightResources* res = ui.insight.res;
  if (!st.has_run) {
    ImGui::TextDisabled("no run");
    ImGui::End();
    return;
  }
  draw_neuron_controls(ui, st.config.model);
  if (n.maps)
    ImGui::TextDisabled("step %lld, %d units, %dx%d each%s", static_cast<long long>(n.maps_step), n.maps->units,
                        n.maps->width, n.maps->height,
                        n.shared_scale ? ", one colour scale" : ", each unit its own scale");
  const float footer = ImGui::GetFrameHeightWithSpacing();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float big = n.enlarged >= 0 ? std::min(avail.x * 0.4f, avail.y - footer - 60) : 0;
  draw_neuron_grid(ui, res ? res->neuron_atlas.get() : nullptr,
                   ImVec2(avail.x - (big > 0 ? big + 12 : 0), std::max(40.0f, avail.y - footer - 4)));
  if (big > 0) {
    ImGui::SameLine();
    draw_enlarged(ui, res ? res->neuron_atlas.get() : nullptr, big);
  }

  ImGui::SetCursorPosY(std::max(ImGui::GetCursorPosY(), ImGui::GetWindowHeight() - footer - 6));
  if (n.export_path.empty() && st.has_run) n.export_path = insight_export_path(ui, "_neurons.png");
  char path[1024];
  std::snprintf(path, sizeof path, "%s", n.export_path.c_str());
  ImGui::SetNextItemWidth(std::max(120.0f, ImGui::GetContentRegionAvail().x - 110));
  if (ImGui::InputText("##neuron_path", path, sizeof path)) n.export_path = path;
  ImGui::SameLine();
  if (ImGui::Button("Save PNG")) {
    const std::string err = export_neuron_png(ui, n.export_path);
    ui.notify(err.empty() ? "saved " + n.export_path : "neuron maps export: " + err, !err.empty());
  }
  ImGui::End();
}

} // namespace redraw
