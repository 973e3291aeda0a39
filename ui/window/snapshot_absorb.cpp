#include "ui/window/snapshot_absorb.h"

#include "ui/panels/confirm_prompt.h"
#include "ui/window/edited_config.h"
#include "ui/panels/file_actions.h"
#include "ui/panels/zoom_view.h"
#include "ui/widgets/image_views.h"
#include "ui/window/run_slot.h"
#include "ui/state/shown_runs.h"
#include "ui/window/timelapse_sync.h"

#include "engine/images/resample.h"

#include <algorithm>

namespace redraw {

void update_error_map(UiState& ui, const Image& shown) {
  CanvasView& v = ui.view;
  struct Map {
    RunView* run;
    const Image* shown;
    const Image* truth;
  };
  std::vector<Map> maps;
  const Image* truth = ui.run_a().truth_for(shown);
  if (!ui.run_a().tex.error || !truth) return; // no truth, or a frame of another run
  maps.push_back({&ui.run_a(), &shown, truth});
  if (compared_error_maps_shown(ui))
    for (RunView& run : ui.runs) {
      const Image* picture = run.compared ? run.reconstruction.get() : nullptr;
      const Image* at_size = picture ? run.truth_for(*picture) : nullptr;
      if (at_size && run.tex.error) maps.push_back({&run, picture, at_size});
    }
  // One scale for every run shown, so that their maps compare: the largest run's p99.
  float full = 0;
  if (v.error_auto)
    for (const Map& m : maps) full = std::max(full, auto_error_full_scale(*m.shown, *m.truth));
  else
    full = 1.0f / std::max(1e-3f, v.error_gain);
  if (!(full > 0)) return;
  for (const Map& m : maps) {
    const auto rgba = error_heat_map(*m.shown, *m.truth, 1.0f / full);
    if (!rgba.empty()) m.run->tex.error->upload_host(rgba.data(), m.truth->width, m.truth->height);
  }
  v.error_full_scale = full;
  v.error_dirty = false;
}

void absorb_run_rows(RunView& run, SessionSnapshot& take) {
  if (take.history_replaced) {
    run.history.clear();
    for (std::vector<float>& column : run.plot_columns) column.clear();
    run.plot_exact.clear();
    run.loss_trace = LossTrace{};
  }
  if (take.loss_replaced) {
    run.loss_trace = std::move(take.loss);
  } else {
    for (size_t i = 0; i < take.loss.loss.size(); ++i)
      run.loss_trace.record(take.loss.first_count + int64_t(i), take.loss.loss[i]);
  }
  if (take.growth_changed) run.growth = std::move(take.growth);
  run.run_id = take.run_id;
  for (const MetricsRow& r : take.rows) {
    if (!run.history.empty() && run.history.back().step >= r.step) continue;
    run.history.push_back(r);
    for (size_t c = 0; c < k_metric_column_count; ++c) run.plot_columns[c].push_back(float(k_metric_columns[c].get(r)));
    run.plot_exact.push_back(r.psnr_exact ? 1 : 0);
  }
  run.status = std::move(take.status);
  if (run.status.running && run.status.steps_per_s > 0) run.last_steps_per_s = run.status.steps_per_s;
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

bool absorb_run_truth(RunView& run, SessionSnapshot& take) {
  if (!take.ground_truth) return false;
  run.ground_truth = std::move(take.ground_truth);
  run.truth_shown.reset();
  if (run.tex.truth) run.tex.truth->upload_image(*run.ground_truth); // a band of rows at a time: no whole RGBA8 copy
  return true;
}

bool absorb_run(UiState& ui, size_t index, SessionSnapshot& take) {
  RunView& run = ui.runs[index];
  if (index == k_run_a) { // the run the user edits: what follows it comes too
    const bool zoom_news = absorb_zoom(ui, run, take);
    absorb_snapshot(ui, std::move(take));
    return zoom_news;
  }
  absorb_run_rows(run, take);
  const bool news = absorb_run_truth(run, take) || take.preview;
  absorb_run_preview(run, run.tex.recon, take);
  if (news && compared_error_maps_shown(ui)) ui.view.error_dirty = true; // every map, on one scale, with run A's
  return false;
}

void absorb_snapshot(UiState& ui, SessionSnapshot&& take) {
  RunView& run = ui.run_a();
  report_run_messages(ui, take);
  for (const SessionProfile& p : take.profiles)
    perf_add_profile(ui.perf, p);
  if (take.network) ui.insight.network = std::move(take.network);
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
  if (absorb_run_truth(run, take)) {
    run.reconstruction.reset();
    error_needed = true;
  }
  if (take.preview) {
    absorb_run_preview(run, run.tex.recon, take);
    error_needed = true;
  }
  if (error_needed && displayed_reconstruction(ui)) update_error_map(ui, *displayed_reconstruction(ui));
}

} // namespace redraw
