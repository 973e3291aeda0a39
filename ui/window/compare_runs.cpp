#include "ui/window/compare_runs.h"
#include "ui/widgets/bounded_text.h"

#include "engine/errors.h"
#include "ui/window/app_actions.h"
#include "ui/panels/confirm_prompt.h"
#include "ui/widgets/image_views.h"

#include <algorithm>
#include <cstdio>
#include <vector>
#include <ctime>
#include <filesystem>
#include <tuple>

namespace redraw {
namespace fs = std::filesystem;

std::string compared_model_path(const std::string& a_path, size_t index) {
  return index == k_run_a ? a_path : slot_model_path(a_path, run_letter(index));
}

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
/// The first place without a run, or k_max_runs when every place holds one.
size_t free_place(const RunSlots& slots) {
  for (size_t i = 0; i < slots.size(); ++i)
    if (i != k_run_a && !slots[i]) return i;
  return slots.size();
}

/// The change asked for and the config it makes of A's; false (said) when it is no valid change.
bool compared_config(UiState& ui, const intent::OpenCompare& in, CompareChange& change, RunConfig& config) {
  if (!in.model_b.empty()) return true; // a run opened from a model (a sweep's cell): no change to make
  try {
    change = compare_change_from(in);
    config = config_with_change(ui.run_a().status.config, change);
  } catch (const std::exception& e) {
    ui.notify(std::string("compare: ") + e.what(), true);
    return false;
  }
  return true;
}

/// Names run A and the new run `index` in captions and legends: by the change, or, for runs opened
/// from models (two cells of a sweep), by their folders.
void label_runs(UiState& ui, size_t index, const CompareChange& change, const std::string& model) {
  const SessionStatus& st = ui.run_a().status;
  const std::string letter = run_letter(index);
  if (!model.empty()) {
    ui.run_a().label = "A: " + widget_text(fs::path(st.model_path).parent_path().filename().string(), 60);
    ui.runs[index].label = letter + ": " + widget_text(fs::path(model).parent_path().filename().string(), 60);
    return;
  }
  if (ui.run_a().label.empty())
    ui.run_a().label = "A: " + (st.config.name.empty() ? std::string("run") : widget_text(st.config.name, 60));
  ui.runs[index].label = letter + ": " + describe_change(change);
}

void open_compare(UiState& ui, CompareSessions& cs, const intent::OpenCompare& in) {
  const SessionStatus& st = ui.run_a().status;
  if (!st.has_run) return ui.notify("compare: no run to compare with", true);
  const size_t index = free_place(cs.slots);
  if (index == cs.slots.size())
    return ui.notify("compare: " + std::to_string(k_max_runs) + " runs are shown side by side at most; close the "
                     "comparison to compare others", true);
  CompareChange change;
  RunConfig config;
  if (!compared_config(ui, in, change, config)) return;
  LoadRequest req = base_load_request(ui);
  req.image = st.image_path.empty() ? ui.last_image : st.image_path;
  req.config = config;
  if (!in.model_b.empty()) std::tie(req.image, req.model) = std::pair{std::string(), in.model_b};
  req.backend = st.backend.empty() ? ui.settings.backend : st.backend;
  auto session = std::make_unique<TrainingSession>(cs.make_backend, nullptr, cs.turns, int32_t(index));
  RunSlot& slot = *(cs.slots[index] = std::make_unique<RunSlot>(std::move(session), run_letter(index)));
  slot.post(run_command::SetSnapshotCap{size_t(ui.settings.snapshot_cap_mb) << 20});
  slot.post(run_command::Load{std::move(req)});
  if (st.running) ui.runs[index].running_ask = {true, slot.post(run_command::SetRunning{true})};
  ui.runs[index].forget();
  ui.runs[index].compared = true;
  if (!ui.compare.open) ui.compare.split = ui.settings.compare_split;
  ui.compare.open = true;
  label_runs(ui, index, change, in.model_b);
  ui.view.fit_requested = true;
  ui.notify("comparing with " + ui.runs[index].label + (in.model_b.empty() ? " (from step 0, on the same image)" : ""));
}

/// Where "Keep" writes run `index` for run A to open: beside the autosave (or in the temp folder
/// when autosave is off), compare-<letter>-<date>-<time>.redraw.
std::string kept_run_path(const UiState& ui, size_t index) {
  std::error_code ec;
  const fs::path folder = ui.confirm.keep_folder.empty() ? fs::temp_directory_path(ec) : fs::path(ui.confirm.keep_folder);
  return unused_stamped_path(folder, std::string("compare-") + run_letter(index) + "-");
}

/// Close compare, keeping run `index`: it is written to a model file that run A then opens (A's own
/// unsaved training goes through the Save / Discard / Cancel prompt as for any Open).
void keep_run(UiState& ui, CompareSessions& cs, size_t index) {
  RunSlot& slot = *cs.slots[index];
  const std::string path = kept_run_path(ui, index);
  slot.post(run_command::SetRunning{false});
  slot.post(run_command::KeepCopy{path});
  if (!slot.flush(60.0) || !fs::exists(path)) {
    ui.notify("compare: run " + std::string(run_letter(index)) + " could not be written to " + path +
                  "; the comparison stays open", true);
    return;
  }
  ui.runs[index].status.unsaved = false; // the copy holds it: closing makes no second one
  close_compare(ui, cs);
  ui.push(intent::OpenPath{path});
}

/// Every compared run follows what A was asked to do; `a_was_running` is A's state before the intent.
void follow_a(UiState& ui, CompareSessions& cs, const UiIntent& in, bool a_was_running) {
  if (in.is<intent::OpenPath>() || in.is<intent::ApplyReset>() || in.is<intent::Quit>())
    return close_compare(ui, cs); // a new run for A ends the comparison
  for (size_t i = 0; i < cs.slots.size(); ++i) {
    if (i == k_run_a || !cs.slots[i]) continue;
    RunSlot& slot = *cs.slots[i];
    if (const RunCommand* command = in.command()) {
      if (command_traits(*command).followed) slot.post(*command); // StepOnce, Reset, ...
    } else if (in.is<intent::ToggleRun>()) {
      ui.runs[i].running_ask = {!a_was_running, slot.post(run_command::SetRunning{!a_was_running})};
    } else if (const auto* save = in.get<intent::SaveModel>()) {
      slot.post(run_command::Save{compared_model_path(model_path_for(save->path), i)});
    }
  }
}

/// File > Export, the runs side by side: every open run renders its picture at the size asked.
void ask_export(CompareSessions& cs, const intent::ExportCompare& ex) {
  cs.export_path = ex.path;
  for (size_t i = 0; i < cs.slots.size(); ++i) {
    cs.export_pictures[i].reset();
    cs.export_asked[i] = cs.slots[i] != nullptr;
    if (cs.slots[i]) cs.slots[i]->post(run_command::RenderPicture{ex.width, ex.height});
  }
}
} // namespace

bool apply_compare_intent(UiState& ui, CompareSessions& cs, const UiIntent& in) {
  if (const auto* open = in.get<intent::OpenCompare>()) {
    open_compare(ui, cs, *open);
  } else if (const auto* close = in.get<intent::CloseCompare>()) {
    if (close->keep != k_run_a && close->keep < cs.slots.size() && cs.slots[close->keep])
      keep_run(ui, cs, close->keep);
    else
      close_compare(ui, cs);
  } else if (const auto* ex = in.get<intent::ExportCompare>()) {
    if (ui.compare.open) ask_export(cs, *ex);
  } else {
    // A guarded action waiting for the Save / Discard / Cancel answer comes back confirmed.
    if (ui.compare.open && !needs_confirmation(ui, in)) follow_a(ui, cs, in, ui.run_a().running_as_asked());
    return false;
  }
  return true;
}

void finish_compare_export(UiState& ui, CompareSessions& cs) {
  if (cs.export_path.empty()) return;
  std::vector<size_t> asked;
  for (size_t i = 0; i < cs.slots.size(); ++i) {
    if (!cs.export_asked[i]) continue;
    if (!cs.export_pictures[i]) return; // still on its way
    asked.push_back(i);
  }
  try {
    if (asked.size() < 2) throw ConfigError("the comparison closed before its pictures arrived");
    const auto picture = [&](size_t k) -> const Image& { return *cs.export_pictures[asked[k]]; };
    const auto label = [&](size_t k) -> const std::string& { return ui.runs[asked[k]].label; };
    const int32_t gap = std::max(4, picture(0).width / 64);
    // The labels are drawn inside each picture, so the row grows one picture at a time.
    Image row = compose_side_by_side(picture(0), picture(1), label(0), label(1), gap);
    for (size_t k = 2; k < asked.size(); ++k)
      row = compose_side_by_side(row, picture(k), "", label(k), gap);
    write_png(cs.export_path, row);
    ui.notify("exported " + cs.export_path);
  } catch (const std::exception& e) {
    ui.notify(std::string("compare export: ") + e.what(), true);
  }
  cs.export_path.clear();
  cs.export_asked = {};
  for (auto& p : cs.export_pictures)
    p.reset();
}

namespace {
/// Linked scrubbing: run `index` shows its own frame at the step A's timelapse shows.
void sync_linked_frame(UiState& ui, RunSlot& slot, RunView& run, SessionSnapshot& take) {
  RunView::LinkedFrame& f = run.linked;
  if (take.frame) {
    f.image = std::move(take.frame);
    f.step = take.frame_step;
    if (PreviewTexture* t = run.tex.frame) t->upload_image(*f.image);
  }
  if (!ui.timelapse.active || ui.timelapse.frames.empty()) {
    f.requested = -1;
    return;
  }
  const int64_t want = ui.timelapse.wanted_step();
  if (want == f.requested) return;
  slot.request_frame(want);
  f.requested = want;
}
} // namespace

void take_compare_news(UiState& ui, CompareSessions& cs, size_t index, SessionSnapshot& take) {
  if (take.picture && !cs.export_path.empty()) cs.export_pictures[index] = std::move(take.picture);
  if (index != k_run_a && cs.slots[index]) sync_linked_frame(ui, *cs.slots[index], ui.runs[index], take);
}

void close_compare(UiState& ui, CompareSessions& cs) {
  for (size_t i = 0; i < cs.slots.size(); ++i) {
    if (i == k_run_a || !cs.slots[i]) continue;
    RunSlot& slot = *cs.slots[i];
    if (ui.runs[i].status.unsaved) {
      const std::string keep = discard_copy_path(ui.confirm);
      if (!keep.empty()) slot.post(run_command::KeepCopy{keep}); // a notice names it
    }
    slot.post(run_command::SetRunning{false});
    if (!slot.flush(60.0)) ui.notify("compare: run " + std::string(run_letter(i)) + "'s copy did not finish in time", true);
    SessionSnapshot last = slot.take();
    slot.report_messages(ui, last);
    cs.slots[i].reset();
    ui.runs[i].forget();
  }
  cs.export_path.clear();
  ui.compare.open = false;
  ui.run_a().label.clear();
  ui.view.fit_requested = true;
}

} // namespace redraw
