#include "ui/window/compare_runs.h"
#include "ui/widgets/bounded_text.h"

#include "engine/errors.h"
#include "ui/window/app_actions.h"
#include "ui/panels/confirm_prompt.h"
#include "ui/widgets/image_views.h"

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <tuple>

namespace redraw {
namespace fs = std::filesystem;

std::string b_model_path(const std::string& a_path) { return slot_model_path(a_path, "B"); }

CompareChange compare_change_from(const intent::OpenCompare& in) {
  CompareChange c;
  c.kind = in.change;
  try {
    switch (c.kind) {
    case CompareChangeKind::Preset:
      c.preset_name = in.value;
      c.preset = load_preset(in.value);
      break;
    case CompareChangeKind::Activation:
      c.activation = parse_activation(in.value);
      break;
    case CompareChangeKind::Omega0:
      c.omega_0 = std::stof(in.value);
      break;
    case CompareChangeKind::LrMax:
      c.lr_max = std::stod(in.value);
      break;
    default:
      throw ConfigError("unknown change " + std::to_string(int32_t(in.change)));
    }
  } catch (const std::logic_error&) { // stof / stod
    throw ConfigError("'" + in.value + "' is not a number");
  }
  return c;
}

namespace {
void open_compare(UiState& ui, CompareSessions& cs, const intent::OpenCompare& in) {
  const SessionStatus& st = ui.run_a().status;
  if (!st.has_run) return ui.notify("compare: no run to compare with", true);
  if (cs.b) close_compare(ui, cs);
  CompareChange change;
  RunConfig config;
  const bool model_b = !in.model_b.empty(); // run B opened from a model (two cells of a sweep): no change to make
  try {
    if (!model_b) change = compare_change_from(in);
    if (!model_b) config = config_with_change(st.config, change);
  } catch (const std::exception& e) {
    return ui.notify(std::string("compare: ") + e.what(), true);
  }
  LoadRequest req = base_load_request(ui);
  req.image = st.image_path.empty() ? ui.last_image : st.image_path;
  req.config = config;
  if (model_b) std::tie(req.image, req.model) = std::pair{std::string(), in.model_b};
  req.backend = st.backend.empty() ? ui.settings.backend : st.backend;
  cs.b = std::make_unique<RunSlot>(std::make_unique<TrainingSession>(cs.make_backend, nullptr, cs.turns, 1), "B");
  cs.b->post(run_command::SetSnapshotCap{size_t(ui.settings.snapshot_cap_mb) << 20});
  cs.b->post(run_command::Load{std::move(req)});
  if (st.running) cs.b->post(run_command::SetRunning{true});
  CompareState& cmp = ui.compare;
  ui.runs[k_run_b].forget();
  cmp.open = true;
  cmp.split = ui.settings.compare_split;
  cmp.label_a = "A: " + (st.config.name.empty() ? std::string("run") : widget_text(st.config.name, 60));
  cmp.label_b = "B: " + describe_change(change);
  if (model_b) { // a sweep's cells are named by their folders
    cmp.label_a = "A: " + widget_text(fs::path(st.model_path).parent_path().filename().string(), 60);
    cmp.label_b = "B: " + widget_text(fs::path(in.model_b).parent_path().filename().string(), 60);
  }
  cmp.label_split = cmp.label_a + "  |  " + cmp.label_b;
  ui.view.fit_requested = true;
  ui.notify("comparing with " + cmp.label_b + (model_b ? std::string() : " (from step 0, on the same image)"));
}

/// Where "Keep B" writes run B for run A to open: beside the autosave (or in the temp folder when
/// autosave is off), compare-B-<date>-<time>.redraw.
std::string keep_b_path(const UiState& ui) {
  std::error_code ec;
  const fs::path folder = ui.confirm.keep_folder.empty() ? fs::temp_directory_path(ec) : fs::path(ui.confirm.keep_folder);
  return unused_stamped_path(folder, "compare-B-");
}

/// Close compare, keeping B: B is written to a model file that run A then opens (A's own unsaved
/// training goes through the Save / Discard / Cancel prompt as for any Open).
void keep_b(UiState& ui, CompareSessions& cs) {
  const std::string path = keep_b_path(ui);
  cs.b->post(run_command::SetRunning{false});
  cs.b->post(run_command::KeepCopy{path});
  if (!cs.b->flush(60.0) || !fs::exists(path)) {
    ui.notify("compare: run B could not be written to " + path + "; the comparison stays open", true);
    return;
  }
  ui.runs[k_run_b].status.unsaved = false; // the copy holds it: closing makes no second one
  close_compare(ui, cs);
  ui.push(intent::OpenPath{path});
}

/// B follows what A was asked to do; `a_was_running` is A's state before the intent.
void follow_a(UiState& ui, CompareSessions& cs, const UiIntent& in, bool a_was_running) {
  if (const RunCommand* command = in.command()) {
    if (command_traits(*command).follows_b) cs.b->post(*command); // StepOnce, Reset, ...
  } else if (in.is<intent::ToggleRun>()) {
    ui.runs[k_run_b].running_ask = {!a_was_running, cs.b->post(run_command::SetRunning{!a_was_running})};
  } else if (const auto* save = in.get<intent::SaveModel>()) {
    cs.b->post(run_command::Save{b_model_path(model_path_for(save->path))});
  } else if (in.is<intent::OpenPath>() || in.is<intent::ApplyReset>() || in.is<intent::Quit>()) {
    close_compare(ui, cs); // a new run for A ends the comparison
  }
}
} // namespace

bool apply_compare_intent(UiState& ui, TrainingSession& a, CompareSessions& cs, const UiIntent& in) {
  if (const auto* open = in.get<intent::OpenCompare>()) {
    open_compare(ui, cs, *open);
  } else if (const auto* close = in.get<intent::CloseCompare>()) {
    if (close->keep_b && cs.b)
      keep_b(ui, cs);
    else
      close_compare(ui, cs);
  } else if (const auto* ex = in.get<intent::ExportCompare>()) {
    if (!cs.b) return true;
    cs.export_path = ex->path;
    cs.export_a.reset();
    cs.export_b.reset();
    a.post(run_command::RenderPicture{ex->width, ex->height});
    cs.b->post(run_command::RenderPicture{ex->width, ex->height});
  } else {
    // A guarded action waiting for the Save / Discard / Cancel answer comes back confirmed.
    if (cs.b && !needs_confirmation(ui, in)) follow_a(ui, cs, in, ui.run_a().running_as_asked());
    return false;
  }
  return true;
}

namespace {
void finish_export(UiState& ui, CompareSessions& cs) {
  if (cs.export_path.empty() || !cs.export_a || !cs.export_b) return;
  try {
    const Image both = compose_side_by_side(*cs.export_a, *cs.export_b, ui.compare.label_a, ui.compare.label_b,
                                            std::max(4, cs.export_a->width / 64));
    write_png(cs.export_path, both);
    ui.notify("exported " + cs.export_path);
  } catch (const std::exception& e) {
    ui.notify(std::string("compare export: ") + e.what(), true);
  }
  cs.export_path.clear();
  cs.export_a.reset();
  cs.export_b.reset();
}

/// Linked scrubbing: B's frame follows the step A's timelapse shows.
void sync_linked_frame(UiState& ui, CompareSessions& cs, SessionSnapshot& take) {
  CompareState& c = ui.compare;
  if (take.frame) {
    c.frame = std::move(take.frame);
    c.frame_step = take.frame_step;
    if (PreviewTexture* t = ui.runs[k_run_b].tex.frame) t->upload_image(*c.frame);
  }
  if (!ui.timelapse.active || ui.timelapse.frames.empty()) {
    c.frame_requested = -1;
    return;
  }
  const int64_t want = ui.timelapse.wanted_step();
  if (want == c.frame_requested) return;
  cs.b->request_frame(want);
  c.frame_requested = want;
}
} // namespace

bool absorb_compare(UiState& ui, CompareSessions& cs, SessionSnapshot& take_a, SessionSnapshot* take_b) {
  if (take_a.picture) cs.export_a = std::move(take_a.picture);
  if (!cs.b || !take_b) return false;
  SessionSnapshot& take = *take_b;
  const bool news = take.has_news() || !take.rows.empty();
  if (take.picture) cs.export_b = std::move(take.picture);
  RunView& b = ui.runs[k_run_b];
  absorb_run_rows(b, take);
  if (take.ground_truth) { // B's image at its own training size: the pixel tooltip's error over B
    b.ground_truth = std::move(take.ground_truth);
    b.truth_shown.reset();
  }
  absorb_run_preview(b, b.tex.recon, take);
  sync_linked_frame(ui, cs, take);
  finish_export(ui, cs);
  return news;
}

void close_compare(UiState& ui, CompareSessions& cs) {
  if (cs.b) {
    if (ui.runs[k_run_b].status.unsaved) {
      const std::string keep = discard_copy_path(ui.confirm);
      if (!keep.empty()) cs.b->post(run_command::KeepCopy{keep}); // a notice names it
    }
    cs.b->post(run_command::SetRunning{false});
    if (!cs.b->flush(60.0)) ui.notify("compare: run B's copy did not finish in time", true);
    SessionSnapshot last = cs.b->take();
    cs.b->report_messages(ui, last);
    cs.b.reset();
  }
  cs.export_path.clear();
  ui.compare.open = false;
  ui.runs[k_run_b].forget();
  ui.compare.frame.reset();
  ui.compare.frame_step = ui.compare.frame_requested = -1;
  ui.view.fit_requested = true;
}

} // namespace redraw
