#include "ui/panels/compare_view.h"

#include "ui/state/shown_runs.h"
#include "ui/widgets/ui_scale.h"

#include <imgui.h>

namespace redraw {

namespace {
/// The preset the dialog offers first: fourier, or siren when run A already is fourier.
int32_t default_other_preset(const std::vector<std::string>& names, const std::string& current) {
  const std::string want = current == "fourier" ? "siren" : "fourier";
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == want) return int32_t(i);
  return 0;
}

/// Close compare: which run goes on.
void draw_close_popup(UiState& ui) {
  CompareState& c = ui.compare;
  if (c.close_requested) {
    ImGui::OpenPopup("Close the comparison");
    c.close_requested = false;
  }
  if (!ImGui::BeginPopupModal("Close the comparison", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  ImGui::TextUnformatted("Which run goes on?");
  ImGui::TextDisabled("The others' unsaved training is kept as a copy in the autosave folder.");
  for (const ShownRun& run : shown_runs(ui)) {
    if (ImGui::Button((std::string("Keep ") + (run.label ? run.label : run_letter(run.index))).c_str())) {
      ui.push(intent::CloseCompare{run.index});
      ImGui::CloseCurrentPopup();
    }
    ImGui::SameLine();
  }
  if (ImGui::Button("Cancel")) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}
} // namespace

void draw_compare_dialog(UiState& ui) {
  draw_close_popup(ui);
  CompareState& c = ui.compare;
  if (c.dialog_requested) {
    ImGui::OpenPopup("Compare with");
    c.dialog_requested = false;
    c.preset_index = default_other_preset(ui.preset_names, ui.edit.preset);
  }
  if (!ImGui::BeginPopupModal("Compare with", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  ImGui::TextUnformatted("Another run: this run's config with one change, trained\nfrom step 0 on the same image.");
  const char* kinds[] = {"preset", "activation", "omega_0", "lr_max"};
  ImGui::SetNextItemWidth(ui_px(160));
  ImGui::Combo("change", &c.change_kind, kinds, 4);
  std::string value;
  ImGui::SetNextItemWidth(ui_px(160));
  switch (CompareChangeKind(c.change_kind)) {
  case CompareChangeKind::Preset: {
    std::vector<const char*> names;
    for (const auto& n : ui.preset_names)
      names.push_back(n.c_str());
    ImGui::Combo("preset", &c.preset_index, names.data(), int(names.size()));
    if (c.preset_index >= 0 && c.preset_index < int(names.size())) value = names[size_t(c.preset_index)];
    break;
  }
  case CompareChangeKind::Activation: {
    const char* acts[k_activation_count];
    for (int i = 0; i < k_activation_count; ++i)
      acts[i] = activation_name(Activation(i));
    ImGui::Combo("activation", &c.activation, acts, k_activation_count);
    value = activation_name(Activation(c.activation));
    break;
  }
  case CompareChangeKind::Omega0:
    ImGui::InputFloat("omega_0", &c.omega_0, 1, 10, "%.1f");
    value = std::to_string(c.omega_0);
    break;
  case CompareChangeKind::LrMax:
    ImGui::InputFloat("lr_max", &c.lr_max, 0, 0, "%.6f");
    value = std::to_string(c.lr_max);
    break;
  }
  if (ImGui::Button("Compare") && !value.empty()) {
    ui.push(intent::OpenCompare{CompareChangeKind(c.change_kind), value});
    ImGui::CloseCurrentPopup();
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel")) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

} // namespace redraw
