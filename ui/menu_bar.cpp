#include "ui/insight_views.h"
#include "ui/panels.h"

#include <imgui.h>

namespace redraw {

void draw_menu_bar(UiState& ui) {
  if (!ImGui::BeginMenuBar()) return;
  const SessionStatus& st = ui.run.status;
  if (ImGui::BeginMenu("File")) {
    if (ImGui::MenuItem("Open image or model...", "Ctrl+O"))
      ui.push(IntentKind::ShowDialog, {}, int64_t(FileDialogPurpose::Open));
    if (ImGui::BeginMenu("Open recent", !ui.settings.recent.empty())) {
      for (const auto& r : ui.settings.recent)
        if (ImGui::MenuItem(r.c_str())) ui.push(IntentKind::OpenPath, r);
      ImGui::EndMenu();
    }
    ImGui::Separator();
    if (ImGui::MenuItem("Save model...", "Ctrl+S", false, st.has_run))
      ui.push(IntentKind::ShowDialog, {}, int64_t(FileDialogPurpose::SaveModel));
    if (ImGui::MenuItem("Export...", "Ctrl+E", false, st.has_run))
      ui.push(IntentKind::ShowDialog, {}, int64_t(FileDialogPurpose::Export));
    if (ImGui::MenuItem("Export curves as CSV", nullptr, false, !ui.run.history.empty())) {
      const std::string path = insight_export_path(ui, "_metrics.csv");
      const std::string err = export_curves_csv(ui, path);
      ui.notify(err.empty() ? "saved " + path : "curves export: " + err, !err.empty());
    }
    ImGui::Separator();
    if (ImGui::MenuItem("Quit", "Ctrl+Q")) ui.push(IntentKind::Quit);
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Training")) {
    if (ImGui::MenuItem(st.running ? "Pause" : "Train", "Space", false, st.has_run)) ui.push(IntentKind::ToggleRun);
    if (ImGui::MenuItem("Step", ".", false, st.has_run && !st.running)) ui.push(IntentKind::StepOnce);
    if (ImGui::MenuItem("Reset", "R", false, st.has_run)) ui.push(IntentKind::Reset);
    if (ImGui::MenuItem("Apply & reset", nullptr, false, st.has_run)) ui.push(IntentKind::ApplyReset);
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("View")) {
    if (ImGui::MenuItem("Fit to window", "F")) ui.push(IntentKind::FitView);
    if (ImGui::MenuItem("Actual size (1:1)")) {
      ui.view.zoom = 1.0f;
      ui.view.fit_requested = false;
    }
    ImGui::Separator();
    const char* modes[] = {"Side by side", "Ground truth", "Reconstruction", "Error map"};
    for (int i = 0; i < 4; ++i)
      if (ImGui::MenuItem(modes[i], nullptr, int(ui.view.mode) == i)) {
        ui.view.mode = CanvasMode(i);
        ui.view.fit_requested = true;
      }
    ImGui::Separator();
    ImGui::MenuItem("Spectrum", "S", &ui.settings.show_spectrum);
    ImGui::MenuItem("Neuron maps", "N", &ui.settings.show_neuron_maps);
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Help")) {
    if (ImGui::MenuItem("About Redraw")) ui.about.open_requested = true;
    ImGui::EndMenu();
  }
  ImGui::EndMenuBar();
}

} // namespace redraw
