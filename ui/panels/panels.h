#pragma once
/// The app's panels: one draw_*() per file (docs/contributing.md, 8). Each draws ImGui widgets from UiState and
/// pushes UiIntents for anything with side effects. A panel that shows one run takes that run
/// (a RunView of UiState::runs; the main window passes run A). GUI thread only, inside an ImGui frame.
#include "ui/state/ui_state.h"

namespace redraw {

/// The whole window: menu bar, controls | canvas over plots, status bar (main_window.cpp).
void draw_main_window(UiState& ui);
/// File, Training and View menus (menu_bar.cpp).
void draw_menu_bar(UiState& ui);
/// Preset, network, encoding, loss, optimizer, schedule, training (controls_panel.cpp).
void draw_controls(UiState& ui);
/// The CPU thread count control (machine_panel.cpp, inside the controls).
void draw_cpu_threads(UiState& ui);
/// Machine > Image memory: the budget for decoding an image, in MiB (remembered).
void draw_image_memory(UiState& ui);
/// The offer to open an image over the memory budget with a larger one (UiState::budget_offer).
void draw_budget_offer(UiState& ui);
/// A banner offering a smaller training size when a run's ETA is long (machine_panel.cpp).
void draw_eta_hint(UiState& ui, const RunView& run);
/// Ground truth, reconstruction and error map with zoom, pan and a pixel tooltip (canvas_panel.cpp).
void draw_canvas(UiState& ui);
/// The timelapse scrubber under the canvas: slider, play, step, resume from here (timelapse_panel.cpp).
void draw_timelapse(UiState& ui, const RunView& run);
/// Loss (log), PSNR and learning rate against step (plots_panel.cpp).
void draw_plots(UiState& ui);
/// Backend, device, steps/s, elapsed, ETA, step, loss, PSNR (status_bar.cpp).
void draw_status_bar(UiState& ui);
/// Open / Save model / Export dialog with a path field and a folder browser (file_dialog.cpp).
void draw_file_dialog(UiState& ui);
/// Help > About: version, build, backends and the licences of assets and libraries (about_dialog.cpp).
void draw_about(UiState& ui);
/// Toasts last this long (seconds) unless hovered: errors longer than notices.
constexpr double k_notice_toast_seconds = 6.0, k_error_toast_seconds = 20.0;
/// At most this many toasts are on screen; the rest are in the Messages window.
constexpr size_t k_max_toasts = 3;
double toast_seconds(const UiMessage& m);
/// Error and notice toasts in the bottom-right corner, above the status bar (messages_panel.cpp).
/// They expire (toast_seconds; hovering restarts the clock) and stack at most k_max_toasts.
void draw_messages(UiState& ui);
/// View > Messages: every message of this session, newest first (message_log_panel.cpp).
void draw_message_log(UiState& ui);
/// View > Performance (P): step phases, GUI frame time, memory and steps/s as timelines (perf_panel.cpp).
void draw_perf_panel(UiState& ui, const RunView& run);
/// Help > Help (F1): the shortcuts and what each view shows (help_window.cpp).
void draw_help(UiState& ui);
/// The Save / Discard / Cancel prompt before an action drops an unsaved run (confirm_prompt.cpp).
void draw_confirm_prompt(UiState& ui);
/// The Spectrum window: log-magnitude spectra of target, reconstruction and error, and the
/// error's band power over the steps as a heat map (spectrum_panel.cpp). Drawn when open.
void draw_spectrum(UiState& ui, const RunView& run);
/// The Neuron maps window: one heat map per unit of a chosen layer (neuron_maps_panel.cpp).
void draw_neuron_maps(UiState& ui, const RunView& run);
/// The launch-time offer to restore a run autosaved by a session that crashed (ui.crashed).
void draw_restore_offer(UiState& ui);

} // namespace redraw
