#include "ui/panels/panels.h"
#include "ui/widgets/tool_window.h"
#include "ui/widgets/ui_scale.h"

#include <imgui.h>

namespace redraw {
namespace {

struct Shortcut {
  const char* keys;
  const char* what;
};
constexpr Shortcut k_shortcuts[] = {
    {"Space", "train, pause or resume"},
    {".", "one training step while paused (hold to repeat)"},
    {"R", "reset: a fresh network of the same shape"},
    {"F", "fit the pictures to the canvas"},
    {"Ctrl+O", "open an image or a .redraw model (or drop a file on the window)"},
    {"Ctrl+S", "save the model"},
    {"Ctrl+E", "export a picture, a comparison or the timelapse"},
    {"Ctrl+Q", "quit"},
    {"P", "show or hide the performance panel"},
    {"S", "show or hide the Spectrum window"},
    {"N", "show or hide the Neuron maps window"},
    {"C", "compare with a run B: this config with one change, trained beside it"},
    {"V", "compare: side by side or split by a divider"},
    {"F1", "this help"},
    {"Escape", "close a menu, list or dialog"},
    {"wheel / drag", "zoom and pan the canvas (all three views together)"},
};

struct View {
  const char* name;
  const char* text;
};
constexpr View k_views[] = {
    {"Canvas",
     "Three views of the same picture, zoomed and panned together. Ground truth is the image the network "
     "learns, at the training size. Reconstruction is what the network draws now: for every pixel it is given "
     "only the pixel's (x, y) and answers a colour, so the picture is the network's memory of the image. The "
     "error map shows |reconstruction - ground truth| per pixel as a heat map (its scale is in the legend; "
     "bright = far off). Hover a pixel for its values."},
    {"Plots",
     "How training goes, against the step. Loss is the training loss of each recorded step (log scale: down is "
     "better). PSNR is the peak signal-to-noise ratio of the whole reconstruction against the ground truth, in "
     "dB (up is better; about 30 dB looks close, 40 dB hard to tell apart). lr is the learning rate the "
     "schedule gives each step (warm-up, cosine decay, restarts). A run that grows (gaussians-grow) marks each "
     "growth event on the loss plot with a thin green line: hover it for how many moved where the error was."},
    {"Timelapse", "The strip under the canvas keeps snapshots of the network as it trains. Drag the slider to see the "
                  "picture at an earlier step (the canvas shows that frame until you go back to Live), play them as a "
                  "movie, and resume training from a frame. File > Export writes them as a GIF, an MP4 or PNG frames. "
                  "Green ticks on the slider are growth events: let go of the slider on one to see the frame after it."},
    {"Controls",
     "The left panel: the preset, the network (layers, widths, activation), the input encoding, the loss, the "
     "optimizer, the learning-rate schedule and the training size. Schedule and step changes apply at once; "
     "anything that changes the network's shape needs Apply & reset. The footer says what the edited network "
     "costs. A value outside a field's range is set to the nearest allowed one and said so in red."},
    {"Performance panel",
     "View > Performance (P), in the spirit of Tracy. Where a training step's time goes (forward pass, "
     "backward pass, optimizer update, the PSNR measurement, the rest) as stacked bars over the last minute, "
     "the GUI's frame time, the memory of the process (and the device's, when the backend reports it) and "
     "steps per second. The run's average rate is the step count over the training time; the recent rate "
     "covers the last two seconds."},
    {"Spectrum",
     "View > Spectrum (S). The 2-D Fourier magnitude (log scale, zero frequency in the centre) of the target, the "
     "reconstruction and the error, and below them the error's power per frequency band (low frequencies at the "
     "bottom) against the step. Networks learn low frequencies first (spectral bias): watch the bottom rows darken "
     "first, and see how Fourier features, SIREN or the hash grid reach the high ones sooner."},
    {"Neuron maps",
     "View > Neuron maps (N). For the layer you pick, one small heat map per unit: what that unit computes at every "
     "point of the picture. Early layers show coarse shapes or the encoding's stripes and grid cells; later ones "
     "combine them into parts of the picture. Hover for a unit's range, click to enlarge, sort by variance."},
    {"Status bar",
     "Training, paused or finished; the backend and device; the step; steps per second (the run's average, "
     "with the recent rate beside it while training); elapsed time and ETA; loss and PSNR; the training size."},
};

} // namespace

void draw_help(UiState& ui) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  if (!begin_tool_window("Help", &ui.help_open, {vp->GetCenter(), ImVec2(ui_px(640), ui_px(620)), ImVec2(0.5f, 0.5f)},
                         ImGuiWindowFlags_NoCollapse))
    return;
  ImGui::TextUnformatted("Redraw trains a small neural network to redraw a picture, and shows it learning.");
  ImGui::Spacing();
  ImGui::TextColored(ImVec4(0.6f, 0.8f, 1.0f, 1), "Keys");
  if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
    for (const Shortcut& s : k_shortcuts) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(s.keys);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(s.what);
    }
    ImGui::EndTable();
  }
  ImGui::Spacing();
  ImGui::TextColored(ImVec4(0.6f, 0.8f, 1.0f, 1), "What am I looking at?");
  for (const View& v : k_views) {
    ImGui::Spacing();
    ImGui::TextUnformatted(v.name);
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", v.text);
    ImGui::PopTextWrapPos();
  }
  ImGui::End();
}

} // namespace redraw
