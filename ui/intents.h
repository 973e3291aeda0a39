#pragma once
/// What a panel, key or script asks the app to do after this frame: one small struct per action,
/// held in a std::variant. Panels push them (UiState::push); gui_app.cpp hands each to the
/// feature that carries it out (app_actions.cpp for the run, compare_view.cpp for run B,
/// confirm_prompt.cpp holds guarded ones for the Save / Discard / Cancel answer).
#include "engine/insight/compare_runs.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>

namespace redraw {

enum class FileDialogPurpose : int32_t { Open = 0, SaveModel, Export };

namespace intent {
struct ToggleRun {};     ///< Space: start, pause or resume
struct StepOnce {};      ///< one training step while paused
struct Reset {};         ///< R: re-initialise the network, keep the shape
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
struct ExportImage { ///< the reconstruction as PNG
  std::string path;
  int32_t width = 0, height = 0;
  int32_t bit_depth = 8;
  int64_t frame = -1; ///< a timelapse frame's step, or -1 for the live weights
};
struct ExportComparison { ///< original and reconstruction side by side
  std::string path;
  int32_t width = 0, height = 0; ///< of each half
  int32_t bit_depth = 8;
};
struct ExportTimelapse { ///< .gif, .mp4 or a folder of PNG frames
  std::string path;
  int32_t width = 0, height = 0;
  int32_t fps = 12;
  bool overlay = false;
  int32_t bit_depth = 8; ///< PNG frames only
};
struct CancelExport {};
struct BranchFromFrame { ///< "resume training from here"
  int64_t step = 0;
};
struct SwitchLine { ///< a run-tree line
  int32_t line = 0;
};
struct KeepDiscarded { ///< where to keep a copy of the run about to be discarded
  std::string path;
};
struct SetSnapshotCap {
  size_t bytes = 0;
};
struct ShowDialog {
  FileDialogPurpose purpose = FileDialogPurpose::Open;
};
struct FitView {}; ///< F
struct OpenCompare { ///< run B beside A, with one change
  CompareChangeKind change = CompareChangeKind::Preset;
  std::string value; ///< the preset, activation or number
  std::string model_b{}; ///< set: run B is this .redraw model instead (two cells of a sweep)
};
struct CloseCompare {
  bool keep_b = false; ///< false: back to A alone (B's unsaved work kept as a copy); true: keep B
};
struct ExportCompare { ///< both runs' pictures side by side
  std::string path;
  int32_t width = 0, height = 0; ///< of each run's picture
};
struct StopAt { ///< training pauses by itself at this step (-1: no stop)
  int64_t step = -1;
};
struct SetTimeBudget { ///< training seconds the schedule anneals to (0: none)
  double seconds = 0;
};
struct Quit {};
} // namespace intent

using Intent = std::variant<intent::ToggleRun, intent::StepOnce, intent::Reset, intent::ApplyReset,
                            intent::ApplySchedule, intent::LoadPreset, intent::OpenPath, intent::OpenWithBudget, intent::SaveModel,
                            intent::ExportImage, intent::ExportComparison, intent::ExportTimelapse,
                            intent::CancelExport, intent::BranchFromFrame, intent::SwitchLine, intent::KeepDiscarded,
                            intent::SetSnapshotCap, intent::ShowDialog, intent::FitView, intent::OpenCompare,
                            intent::CloseCompare, intent::ExportCompare, intent::StopAt, intent::SetTimeBudget,
                            intent::Quit>;

struct UiIntent {
  Intent what;
  bool confirmed = false; ///< the Save / Discard / Cancel prompt was answered (confirm_prompt.h)
  template <class T> bool is() const { return std::holds_alternative<T>(what); }
  template <class T> const T* get() const { return std::get_if<T>(&what); }
};

/// For std::visit: one lambda per intent a feature handles.
template <class... F> struct Overloaded : F... {
  using F::operator()...;
};
template <class... F> Overloaded(F...) -> Overloaded<F...>;

} // namespace redraw
