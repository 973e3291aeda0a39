#pragma once
/// What a panel, key or script asks the app to do after this frame: one small struct per action,
/// held in a std::variant, or a run command (ui/session/run_commands.h) where the action is one. Panels
/// push them (UiState::push); gui_app.cpp hands each to the feature that carries it out (app_actions.cpp for the run, compare_view.cpp for run B,
/// confirm_prompt.cpp holds guarded ones for the Save / Discard / Cancel answer).
#include "engine/insight/compare_runs.h"
#include "ui/session/run_commands.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>

namespace redraw {

enum class FileDialogPurpose : int32_t { Open = 0, SaveModel, Export };

namespace intent {
struct ToggleRun {};     ///< Space: start, pause or resume
struct ApplyReset {};    ///< build a trainer from the edited config (shape changes)
struct ApplySchedule {}; ///< push the edited schedule and step count to the running trainer
struct LoadPreset {      ///< a preset name (or .json path) into the edited config
  std::string name;
};
struct OpenPath { ///< an image or a .redraw file
  std::string path;
  bool from_answered_dialog = false; ///< chosen in an Open dialog opened after the prompt was answered
};
struct OpenWithBudget {}; ///< the load held in UiState::budget_offer again, its budget raised for that file
struct SaveModel {
  std::string path; ///< ".redraw" is added when missing
};
struct ExportTimelapse { ///< .gif, .mp4 or a folder of PNG frames
  std::string path;
  int32_t width = 0, height = 0;
  int32_t fps = 12;
  bool overlay = false;
  int32_t bit_depth = 8; ///< PNG frames only
};
struct CancelExport {};
struct ShowDialog {
  FileDialogPurpose purpose = FileDialogPurpose::Open;
};
struct FitView {}; ///< F
struct OpenCompare { ///< another run beside A, with one change
  CompareChangeKind change = CompareChangeKind::Preset;
  std::string value; ///< the preset, activation or number
  std::string model_b{}; ///< set: the run is this .redraw model instead (two cells of a sweep)
};
struct CloseCompare {
  /// The run that goes on, its place in UiState::runs: k_run_a (the others' unsaved work kept as
  /// copies), or a compared run's (written to a model that run A opens)
  size_t keep = 0;
};
struct ExportCompare { ///< every shown run's picture side by side
  std::string path;
  int32_t width = 0, height = 0; ///< of each run's picture
};
struct Quit {};
} // namespace intent

/// The app's own intents, or a run command (ui/session/run_commands.h) for the run as it is: StepOnce,
/// Reset, Branch, SwitchLine, KeepCopy, StopAt, ... (their traits say what else they do).
using Intent = std::variant<intent::ToggleRun, intent::ApplyReset, intent::ApplySchedule, intent::LoadPreset,
                            intent::OpenPath, intent::OpenWithBudget, intent::SaveModel, intent::ExportTimelapse,
                            intent::CancelExport, intent::ShowDialog, intent::FitView, intent::OpenCompare,
                            intent::CloseCompare, intent::ExportCompare, intent::Quit, RunCommand>;

struct UiIntent {
  Intent what;
  bool confirmed = false; ///< the Save / Discard / Cancel prompt was answered (confirm_prompt.h)
  /// The intent, or the run command, of type T that this holds; null when it holds another.
  template <class T> const T* get() const {
    if constexpr (is_run_command_v<T>) {
      const RunCommand* c = std::get_if<RunCommand>(&what);
      return c ? std::get_if<T>(c) : nullptr;
    } else {
      return std::get_if<T>(&what);
    }
  }
  template <class T> bool is() const { return get<T>() != nullptr; }
  /// The run command this holds, or null.
  const RunCommand* command() const { return std::get_if<RunCommand>(&what); }
};

/// For std::visit: one lambda per intent a feature handles.
template <class... F> struct Overloaded : F... {
  using F::operator()...;
};
template <class... F> Overloaded(F...) -> Overloaded<F...>;

} // namespace redraw
