#include "ui/panels/insight_views.h"
#include "ui/widgets/bounded_text.h"
#include "ui/panels/panels.h"

#include <imgui.h>

#include <cstdio>

namespace redraw {
namespace {
/// View > UI scale: the user's factor (Settings::ui_scale), times the monitor's content scale.
void draw_ui_scale_menu(UiState& ui) {
  if (!ImGui::BeginMenu("UI scale")) return;
  const float choices[] = {0.75f, 1.0f, 1.25f, 1.5f, 1.75f, 2.0f, 2.5f, 3.0f};
  for (float c : choices) {
    char label[16];
    std::snprintf(label, sizeof label, "%.0f%%", double(c) * 100);
    if (ImGui::MenuItem(label, nullptr, ui.settings.ui_scale == c)) {
      ui.settings.ui_scale = c;
      ui.scale.session = 0; // a choice here replaces --ui-scale
    }
  }
  ImGui::Separator();
  ImGui::TextDisabled("monitor: %.0f%%, shown at %.0f%%", double(ui.scale.content) * 100,
                      double(ui.scale.applied) * 100);
  ImGui::EndMenu();
}
} // namespace

void draw_menu_bar(UiState& ui) {
  if (!ImGui::BeginMenuBar()) return;
  const SessionStatus& st = ui.run_a().status;
  if (ImGui::BeginMenu("File")) {
    if (ImGui::MenuItem("Open image or model...", "Ctrl+O"))
      ui.push(intent::ShowDialog{FileDialogPurpose::Open});
    if (ImGui::BeginMenu("Open recent", !ui.settings.recent.empty())) {
      for (const auto& r : ui.settings.recent)
        if (ImGui::MenuItem((widget_text(r, 120, true) + "##" + r).c_str())) ui.push(intent::OpenPath{r});
      ImGui::EndMenu();
    }
    if (ImGui::MenuItem("Open sweep...")) ui.sweep.open = true; // the cells of a `redraw sweep` folder
    ImGui::Separator();
    if (ImGui::MenuItem("Save model...", "Ctrl+S", false, st.has_run))
      ui.push(intent::ShowDialog{FileDialogPurpose::SaveModel});
    if (ImGui::MenuItem("Export...", "Ctrl+E", false, st.has_run))
      ui.push(intent::ShowDialog{FileDialogPurpose::Export});
    if (ImGui::MenuItem("Export curves as CSV", nullptr, false, !ui.run_a().history.empty())) {
      const std::string path = insight_export_path(ui, "_metrics.csv");
      const std::string err = export_curves_csv(ui, path);
      ui.notify(err.empty() ? "saved " + path : "curves export: " + err, !err.empty());
    }
    ImGui::Separator();
    if (ImGui::MenuItem("Quit", "Ctrl+Q")) ui.push(intent::Quit{});
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Training")) {
    if (ImGui::MenuItem(ui.run_a().running_as_asked() ? "Pause" : "Train", "Space", false, st.has_run))
      ui.push(intent::ToggleRun{});
    if (ImGui::MenuItem("Step", ".", false, st.has_run && !st.running)) ui.push(run_command::StepOnce{});
    if (ImGui::MenuItem("Reset", "R", false, st.has_run)) ui.push(run_command::Reset{});
    if (ImGui::MenuItem("Apply & reset", nullptr, false, st.has_run)) ui.push(intent::ApplyReset{});
    ImGui::Separator();
    if (ImGui::MenuItem("Compare with...", "C", false, st.has_run)) ui.compare.dialog_requested = true;
    if (ImGui::MenuItem("Close compare", nullptr, false, ui.compare.open)) ui.compare.close_requested = true;
    ImGui::MenuItem("Compare at the same step", nullptr, &ui.settings.compare_same_step);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("On: run A and run B show the same step (the dearer run sets the pace).\n"
                        "Off: they take equal turns, so each has trained about as many seconds\n"
                        "(View > Curves against time compares them at the same second).");
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("View")) {
    if (ImGui::MenuItem("Fit to window", "F")) ui.push(intent::FitView{});
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
    ImGui::MenuItem("Curves against time", nullptr, &ui.settings.plots_seconds);
    if (ImGui::MenuItem("Compare: split view", "V", ui.compare.split, ui.compare.open))
      ui.settings.compare_split = ui.compare.split;
    ImGui::Separator();
    ImGui::MenuItem("Performance", "P", &ui.settings.show_perf);
    ImGui::MenuItem("Messages", nullptr, &ui.message_log_open);
    draw_ui_scale_menu(ui);
    ImGui::MenuItem("Spectrum", "S", &ui.settings.show_spectrum);
    ImGui::MenuItem("Neuron maps", "N", &ui.settings.show_neuron_maps);
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Help")) {
    ImGui::MenuItem("Help", "F1", &ui.help_open);
    if (ImGui::MenuItem("About Redraw")) ui.about.open_requested = true;
    ImGui::EndMenu();
  }
  ImGui::EndMenuBar();
}

} // namespace redraw
