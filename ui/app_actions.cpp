#include "ui/app_actions.h"

#include "ui/confirm_prompt.h"
#include "ui/gui_app.h"
#include "ui/image_views.h"
#include "ui/settings_store.h"

#include "engine/images/resample.h"

#define GLFW_INCLUDE_NONE // glad is the GL loader; GLFW must not pull in <GL/gl.h>
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace redraw {
namespace fs = std::filesystem;

namespace {
bool has_extension(const std::string& path, const char* ext) {
  std::string e = fs::path(path).extension().string();
  for (auto& ch : e)
    ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return e == ext;
}

void remember_file(UiState& ui, const std::string& path) {
  std::error_code ec;
  if (fs::equivalent(path, default_image_path(), ec)) return; // the bundled picture is no "recent file"
  add_recent(ui.settings, path);
  const fs::path parent = fs::absolute(path, ec).lexically_normal().parent_path();
  if (!ec) ui.settings.last_folder = parent.string();
}

std::string stem_of_source(const UiState& ui) {
  const std::string& src = ui.run.status.source_path;
  return src.empty() ? std::string("redraw") : fs::path(src).stem().string();
}

void open_dialog(UiState& ui, FileDialogPurpose purpose) {
  FileDialogState& d = ui.dialog;
  d.open_requested = true;
  d.purpose = purpose;
  d.folder = ui.settings.last_folder.empty() ? fs::current_path().string() : ui.settings.last_folder;
  d.listed_folder.clear();
  const std::string stem = stem_of_source(ui);
  const int32_t w = std::max(1, ui.run.status.width), h = std::max(1, ui.run.status.height);
  switch (purpose) {
  case FileDialogPurpose::Open:
    d.path = d.folder + "/";
    break;
  case FileDialogPurpose::SaveModel:
    d.path = (fs::path(d.folder) / (stem + ".redraw")).string();
    break;
  case FileDialogPurpose::Export:
    prepare_export_size(d, w, h);
    d.path = (fs::path(d.folder) / (stem + "_redraw.png")).string();
    break;
  }
}
} // namespace

void prepare_export_size(FileDialogState& d, int32_t w, int32_t h) {
  w = std::max(1, w);
  h = std::max(1, h);
  if (d.export_width <= 0 || d.export_height <= 0) {
    d.export_width = w * 4;
    d.export_height = h * 4;
  } else if (d.export_lock_aspect) {
    d.export_height = std::clamp(int32_t(std::lround(double(d.export_width) * h / w)), 1, 65536);
  }
}

bool is_model_path(const std::string& path) { return has_extension(path, ".redraw"); }

std::string preset_for_run(const EditState& edit, const RunConfig& running) {
  if (edit.preset.empty() || requires_new_trainer(running, edit.preset_config)) return {};
  return edit.preset;
}

LoadRequest base_load_request(const UiState& ui) {
  LoadRequest req;
  req.backend = ui.settings.backend;
  req.precision = ui.settings.precision;
  const double mb = ui.image_memory_override_mb > 0 ? ui.image_memory_override_mb : ui.settings.max_image_memory_mb;
  req.limits.max_bytes = uint64_t(mb * double(1 << 20));
  return req;
}

LoadRequest initial_load_request(const GuiOptions& opts, const UiState& ui) {
  LoadRequest req = base_load_request(ui);
  req.config = ui.edit.config;
  const bool positional_model = is_model_path(opts.image);
  if (!opts.model.empty() || positional_model) {
    req.model = !opts.model.empty() ? opts.model : opts.image;
    if (!positional_model) req.image = opts.image; // an image to train the model on further
  } else {
    req.image = opts.image.empty() ? default_image_path().string() : opts.image;
  }
  return req;
}

UiIntent export_intent(const FileDialogState& d, const TimelapseState& tl) {
  switch (d.export_kind) {
  case 1:
    return {intent::ExportComparison{d.path, d.export_width, d.export_height, d.export_bit_depth}};
  case 3:
    return {intent::ExportCompare{d.path, d.export_width, d.export_height}};
  case 2: {
    // GIF and MP4 are 8-bit; the choice shows (and counts) for PNG frames, a folder ending in '/'.
    const bool png_frames = !d.path.empty() && d.path.back() == '/';
    return {intent::ExportTimelapse{d.path, d.export_width, d.export_height, d.timelapse_fps, d.timelapse_overlay,
                                    png_frames ? d.export_bit_depth : 8}};
  }
  default:
    return {intent::ExportImage{d.path, d.export_width, d.export_height, d.export_bit_depth,
                                d.export_scrubbed_frame && tl.active ? tl.shown_step : -1}};
  }
}

TimelapseOptions timelapse_options(const intent::ExportTimelapse& in) {
  TimelapseOptions o;
  o.width = in.width;
  o.height = in.height;
  o.fps = double(in.fps);
  o.overlay = in.overlay;
  o.bit_depth = in.bit_depth;
  return o;
}

void load_preset_into(UiState& ui, const std::string& name_or_path) {
  try {
    RunConfig c = has_extension(name_or_path, ".json") ? load_run_config(name_or_path) : load_preset(name_or_path);
    ui.edit.config = c;
    ui.edit.preset_config = std::move(c);
    ui.edit.preset = name_or_path;
    ui.edit.full_batch = ui.edit.config.training.batch_size == 0;
    if (!ui.edit.full_batch) ui.edit.batch_size = int32_t(ui.edit.config.training.batch_size);
    ui.edit.selected_layer = 0;
    if (!has_extension(name_or_path, ".json")) ui.settings.preset = name_or_path;
  } catch (const std::exception& e) {
    ui.notify(e.what(), true);
  }
}

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
      session.set_running(!st.running);
      if (!st.running) leave_timelapse(); // training again: the canvas follows it, not the scrubbed frame
    }
  }
  void operator()(const intent::StepOnce&) const { session.step_once(); }
  void operator()(const intent::Reset&) const { session.reset(); }
  void operator()(const intent::ApplyReset&) const {
    const std::string image = !st.image_path.empty() ? st.image_path : st.has_run ? std::string() : ui.last_image;
    if (image.empty()) {
      ui.notify("Apply & reset needs the training image; open it again (Ctrl+O)", true);
      return;
    }
    LoadRequest req = base_load_request(ui);
    req.image = image;
    req.config = ui.edit.config;
    session.load(std::move(req));
  }
  void operator()(const intent::StopAt& in) const { session.set_stop_at(in.step); }
  void operator()(const intent::SetTimeBudget& in) const { session.set_time_budget(in.seconds); }
  void operator()(const intent::ApplySchedule&) const {
    if (st.has_run) session.set_schedule(ui.edit.config.schedule, ui.edit.config.training.steps);
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
    session.load(std::move(req)); // remembered in the recent files once it has loaded
  }
  void operator()(const intent::OpenWithBudget&) const {
    if (!ui.budget_offer) return;
    LoadRequest req = ui.budget_offer->request;
    req.limits = raised_limits(*ui.budget_offer); // for this file alone: the setting stays
    ui.budget_offer.reset();
    session.load(std::move(req));
  }
  void operator()(const intent::SaveModel& in) const {
    session.save_model(model_path_for(in.path)); // remembered in the recent files once it is written
  }
  void operator()(const intent::ExportImage& in) const {
    session.export_image(in.path, in.width, in.height, in.bit_depth, in.frame);
  }
  void operator()(const intent::ExportComparison& in) const {
    session.export_comparison(in.path, in.width, in.height, in.bit_depth);
  }
  void operator()(const intent::ExportTimelapse& in) const { session.export_timelapse(in.path, timelapse_options(in)); }
  void operator()(const intent::CancelExport&) const { session.cancel_export(); }
  void operator()(const intent::BranchFromFrame& in) const {
    session.branch_from(in.step);
    leave_timelapse();
  }
  void operator()(const intent::SwitchLine& in) const {
    session.switch_line(in.line);
    leave_timelapse();
  }
  void operator()(const intent::KeepDiscarded& in) const { session.keep_copy(in.path); }
  void operator()(const intent::SetSnapshotCap& in) const { session.set_snapshot_cap(in.bytes); }
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

std::string model_path_for(const std::string& path) { return is_model_path(path) ? path : path + ".redraw"; }

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
  std::visit(RunIntents{ui, session, ui.run.status}, in.what);
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
  if (ImGui::IsKeyPressed(GLFW_KEY_R, false)) ui.push(intent::Reset{});
  if (ImGui::IsKeyPressed(GLFW_KEY_F, false)) ui.push(intent::FitView{});
  if (ImGui::IsKeyPressed(GLFW_KEY_PERIOD, true)) ui.push(intent::StepOnce{});
  if (ImGui::IsKeyPressed(GLFW_KEY_F1, false)) ui.help_open = !ui.help_open;
  if (ImGui::IsKeyPressed(GLFW_KEY_P, false)) ui.settings.show_perf = !ui.settings.show_perf;
  if (ImGui::IsKeyPressed(GLFW_KEY_S, false)) ui.settings.show_spectrum = !ui.settings.show_spectrum;
  if (ImGui::IsKeyPressed(GLFW_KEY_N, false)) ui.settings.show_neuron_maps = !ui.settings.show_neuron_maps;
  if (ImGui::IsKeyPressed(GLFW_KEY_C, false) && ui.run.status.has_run) ui.compare.dialog_requested = true;
  if (ImGui::IsKeyPressed(GLFW_KEY_V, false) && ui.compare.open)
    ui.compare.split = ui.settings.compare_split = !ui.compare.split;
}

void update_error_map(UiState& ui, const Image& shown) {
  CanvasView& v = ui.view;
  const Image* truth = ui.run.truth_for(shown);
  if (!ui.error_texture || !truth) return; // no truth, or a frame of another run
  const float full = v.error_auto ? auto_error_full_scale(shown, *truth) : 1.0f / std::max(1e-3f, v.error_gain);
  if (full <= 0) return;
  const auto rgba = error_heat_map(shown, *truth, 1.0f / full);
  if (rgba.empty()) return;
  ui.error_texture->upload_host(rgba.data(), truth->width, truth->height);
  v.error_full_scale = full;
  v.error_dirty = false;
}

void absorb_run_rows(RunView& run, SessionSnapshot& take) {
  if (take.history_replaced) {
    run.history.clear();
    run.plot_step.clear();
    run.plot_loss.clear();
    run.plot_psnr.clear();
    run.plot_lr.clear();
    run.plot_seconds.clear();
    run.plot_exact.clear();
    run.loss_trace = LossTrace{};
  }
  if (take.loss_replaced) {
    run.loss_trace = std::move(take.loss);
  } else {
    for (size_t i = 0; i < take.loss.loss.size(); ++i)
      run.loss_trace.record(take.loss.first_count + int64_t(i), take.loss.loss[i]);
  }
  run.run_id = take.run_id;
  for (const MetricsRow& r : take.rows) {
    if (!run.history.empty() && run.history.back().step >= r.step) continue;
    run.history.push_back(r);
    run.plot_step.push_back(float(r.step));
    run.plot_loss.push_back(float(r.loss));
    run.plot_psnr.push_back(float(r.psnr_db));
    run.plot_lr.push_back(float(r.lr));
    run.plot_seconds.push_back(float(r.seconds));
    run.plot_exact.push_back(r.psnr_exact ? 1 : 0);
  }
  run.status = std::move(take.status);
  if (run.status.running && run.status.steps_per_s > 0) run.last_steps_per_s = run.status.steps_per_s;
}

double edit_time_budget(const EditState& edit) {
  return edit.time_budget_on ? std::clamp(edit.time_budget_s, 1.0, 1e7) : 0.0;
}

void absorb_run_preview(RunView& run, PreviewTexture* texture, SessionSnapshot& take) {
  if (!take.preview) return;
  run.reconstruction = std::move(take.preview);
  run.preview_step = take.preview_step;
  const Image& r = *run.reconstruction;
  if (run.ground_truth && !run.truth_for(r)) // a preview fit to the screen: the truth at its size, once
    run.truth_shown = std::make_shared<Image>(resample(*run.ground_truth, r.width, r.height, ResampleFilter::Box));
  if (texture && !take.device_preview) {
    texture->upload_image(*run.reconstruction);
    run.shown_step = take.preview_step;
    run.frames_since_preview = 0;
  }
}

void absorb_snapshot(UiState& ui, SessionSnapshot&& take) {
  RunView& run = ui.run;
  for (auto& e : take.errors)
    ui.notify(std::move(e), true);
  for (auto& n : take.notices)
    ui.notify(std::move(n), false);
  if (take.budget_offer) ui.budget_offer = std::move(take.budget_offer);
  for (const auto& path : take.saved_models)
    remember_file(ui, path);
  confirm_after_saves(ui, take.saved_models, take.failed_saves);
  const uint64_t previous_run_id = run.run_id;
  absorb_run_rows(run, take);
  if (run.status.trainer_id != run.trainer_id) {
    run.trainer_id = run.status.trainer_id;
    // A new trainer (image, model, Apply & reset): the controls show what now runs, and the
    // preset combo names the preset only while the run still is that preset.
    ui.edit.preset = preset_for_run(ui.edit, run.status.config);
    ui.edit.config = run.status.config;
    ui.edit.full_batch = ui.edit.config.training.batch_size == 0;
    if (!ui.edit.full_batch) ui.edit.batch_size = int32_t(ui.edit.config.training.batch_size);
    ui.view.fit_requested = true;
    if (!run.status.source_path.empty()) remember_file(ui, run.status.source_path);
  }
  TimelapseState& tl = ui.timelapse;
  if (take.run_id != previous_run_id) {
    tl.cache.clear();
    tl.cache_bytes = 0;
    tl.shown_step = tl.requested_step = -1;
    tl.frame.reset();
  }
  if (take.snapshots_changed) {
    tl.frames = std::move(take.snapshots);
    tl.kinds = std::move(take.snapshot_kinds);
    if (tl.frames.empty()) tl.active = tl.playing = false;
    if (!tl.active) tl.index = std::max(0, int32_t(tl.frames.size()) - 1);
    tl.index = std::clamp(tl.index, 0, std::max(0, int32_t(tl.frames.size()) - 1));
  }
  tl.bytes = take.snapshot_bytes;
  tl.cap_bytes = take.snapshot_cap_bytes;
  if (take.frame) {
    constexpr size_t k_cache_cap = size_t(64) << 20;
    const size_t bytes = take.frame->pixels.size() * sizeof(float);
    while (!tl.cache.empty() && tl.cache_bytes + bytes > k_cache_cap) {
      tl.cache_bytes -= tl.cache.front().second->pixels.size() * sizeof(float);
      tl.cache.erase(tl.cache.begin());
    }
    tl.cache.emplace_back(take.frame_step, take.frame);
    tl.cache_bytes += bytes;
    if (tl.requested_step >= 0) tl.requested_step = -1;
  }
  bool error_needed = ui.view.error_dirty;
  if (take.ground_truth) {
    run.ground_truth = std::move(take.ground_truth);
    run.truth_shown.reset();
    if (ui.truth_texture)
      ui.truth_texture->upload_image(*run.ground_truth); // a band of rows at a time: no whole RGBA8 copy
    run.reconstruction.reset();
    error_needed = true;
  }
  if (take.preview) {
    absorb_run_preview(run, ui.recon_texture, take);
    error_needed = true;
  }
  if (error_needed && displayed_reconstruction(ui)) update_error_map(ui, *displayed_reconstruction(ui));
}

} // namespace redraw

namespace redraw {

const Image* displayed_reconstruction(const UiState& ui) {
  if (ui.timelapse.active && ui.timelapse.frame) return ui.timelapse.frame.get();
  return ui.run.reconstruction.get();
}

void sync_timelapse(UiState& ui, TrainingSession& session) {
  TimelapseState& tl = ui.timelapse;
  if (tl.frames.empty()) return;
  if (tl.playing) {
    if (ui.now >= tl.next_advance) {
      if (tl.index + 1 >= int32_t(tl.frames.size()))
        tl.playing = false;
      else
        ++tl.index;
      tl.next_advance = ui.now + 1.0 / std::max(0.5f, tl.fps);
    }
    tl.active = true;
  }
  if (!tl.active) return;
  const int64_t want = tl.wanted_step();
  if (want == tl.shown_step) return;
  for (const auto& [step, img] : tl.cache)
    if (step == want) {
      tl.frame = img;
      tl.shown_step = step;
      if (ui.frame_texture) ui.frame_texture->upload_image(*img);
      ui.view.error_dirty = true;
      update_error_map(ui, *img);
      return;
    }
  if (tl.requested_step != want) {
    session.request_frame(want);
    tl.requested_step = want;
  }
}

} // namespace redraw
