#include "ui/window/app_actions.h"

#include "ui/panels/confirm_prompt.h"

#define GLFW_INCLUDE_NONE // glad is the GL loader; GLFW must not pull in <GL/gl.h>
#include <GLFW/glfw3.h>
#include <imgui.h>

namespace redraw {

namespace {
/// The run's own intents: training, files, exports, the timelapse and the view.
struct RunIntents {
  UiState& ui;
  TrainingSession& session;
  const SessionStatus& st;

  void operator()(const intent::ToggleRun&) const {
    if (!st.has_run) {
      ui.notify("open an image first (Ctrl+O, or drop one on the window)", true);
    } else {
      const bool train = !ui.run_a().running_as_asked();
      ui.run_a().running_ask = {train, session.post(run_command::SetRunning{train})};
      if (train) leave_timelapse(); // training again: the canvas follows it, not the scrubbed frame
    }
  }
  void operator()(const intent::ApplyReset&) const {
    const std::string image = !st.image_path.empty() ? st.image_path : st.has_run ? std::string() : ui.last_image;
    if (image.empty()) {
      ui.notify("Apply & reset needs the training image; open it again (Ctrl+O)", true);
      return;
    }
    LoadRequest req = base_load_request(ui);
    req.image = image;
    req.config = ui.edit.config;
    session.post(run_command::Load{std::move(req)});
  }
  void operator()(const intent::ApplySchedule&) const {
    if (st.has_run) session.post(run_command::SetSchedule{ui.edit.config.schedule, ui.edit.config.training.steps});
  }
  void operator()(const intent::LoadPreset& in) const {
    load_preset_into(ui, in.name);
    // A run that has not started yet follows the preset at once; otherwise "Apply & reset" does.
    if (st.has_run && st.step == 0 && !st.running && !st.image_path.empty()) (*this)(intent::ApplyReset{});
  }
  void operator()(const intent::OpenPath& in) const {
    LoadRequest req = base_load_request(ui);
    if (is_model_path(in.path)) {
      req.model = in.path;
    } else {
      req.image = in.path;
      req.config = ui.edit.config;
      ui.last_image = in.path;
    }
    session.post(run_command::Load{std::move(req)}); // remembered in the recent files once it has loaded
  }
  void operator()(const intent::OpenWithBudget&) const {
    if (!ui.budget_offer) return;
    LoadRequest req = ui.budget_offer->request;
    req.limits = raised_limits(*ui.budget_offer); // for this file alone: the setting stays
    ui.budget_offer.reset();
    session.post(run_command::Load{std::move(req)});
  }
  void operator()(const intent::SaveModel& in) const {
    session.post(run_command::Save{model_path_for(in.path)}); // remembered in the recent files once it is written
  }
  void operator()(const intent::ExportTimelapse& in) const { session.post(run_command::ExportTimelapse{in.path, timelapse_options(in)}); }
  void operator()(const intent::CancelExport&) const { session.cancel_export(); }
  /// A run command as it is (ui/session/run_commands.h); its traits say whether the canvas leaves the
  /// timelapse.
  void operator()(const RunCommand& command) const {
    session.post(command);
    if (command_traits(command).leaves_timelapse) leave_timelapse();
  }
  void operator()(const intent::FitView&) const { ui.view.fit_requested = true; }
  void operator()(const intent::Quit&) const {} // apply_intent answers it
  // Run B's intents belong to compare_view.cpp.
  void operator()(const intent::OpenCompare&) const {}
  void operator()(const intent::CloseCompare&) const {}
  void operator()(const intent::ExportCompare&) const {}
  void operator()(const intent::ShowDialog&) const {} // needs `confirmed`: see apply_intent

  void leave_timelapse() const {
    ui.timelapse.active = ui.timelapse.playing = false;
    ui.view.error_dirty = true;
  }
};
} // namespace

bool apply_intent(UiState& ui, TrainingSession& session, const UiIntent& in) {
  if (needs_confirmation(ui, in)) { // an unsaved run: Save / Discard / Cancel first
    ask_confirmation(ui, in);
    return true;
  }
  if (const auto* d = in.get<intent::ShowDialog>()) {
    if (d->purpose == FileDialogPurpose::Open) ui.confirm.dialog_confirmed = in.confirmed;
    open_dialog(ui, d->purpose);
    return true;
  }
  if (in.get<intent::Quit>()) return false;
  std::visit(RunIntents{ui, session, ui.run_a().status}, in.what);
  return true;
}

void handle_shortcuts(UiState& ui) {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput || ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId)) return;
  if (io.KeyCtrl) {
    if (ImGui::IsKeyPressed(GLFW_KEY_O, false)) ui.push(intent::ShowDialog{FileDialogPurpose::Open});
    if (ImGui::IsKeyPressed(GLFW_KEY_S, false)) ui.push(intent::ShowDialog{FileDialogPurpose::SaveModel});
    if (ImGui::IsKeyPressed(GLFW_KEY_E, false)) ui.push(intent::ShowDialog{FileDialogPurpose::Export});
    if (ImGui::IsKeyPressed(GLFW_KEY_Q, false)) ui.push(intent::Quit{});
    return;
  }
  if (ImGui::IsKeyPressed(GLFW_KEY_SPACE, false)) ui.push(intent::ToggleRun{});
  if (ImGui::IsKeyPressed(GLFW_KEY_R, false)) ui.push(run_command::Reset{});
  if (ImGui::IsKeyPressed(GLFW_KEY_F, false)) ui.push(intent::FitView{});
  if (ImGui::IsKeyPressed(GLFW_KEY_PERIOD, true)) ui.push(run_command::StepOnce{});
  if (ImGui::IsKeyPressed(GLFW_KEY_F1, false)) ui.help_open = !ui.help_open;
  if (ImGui::IsKeyPressed(GLFW_KEY_P, false)) ui.settings.show_perf = !ui.settings.show_perf;
  if (ImGui::IsKeyPressed(GLFW_KEY_S, false)) ui.settings.show_spectrum = !ui.settings.show_spectrum;
  if (ImGui::IsKeyPressed(GLFW_KEY_N, false)) ui.settings.show_neuron_maps = !ui.settings.show_neuron_maps;
  if (ImGui::IsKeyPressed(GLFW_KEY_C, false) && ui.run_a().status.has_run) ui.compare.dialog_requested = true;
  if (ImGui::IsKeyPressed(GLFW_KEY_V, false) && ui.compare.open)
    ui.compare.split = ui.settings.compare_split = !ui.compare.split;
}

} // namespace redraw
