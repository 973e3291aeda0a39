// Every RunCommand's handler (ui/run_commands.h), run in order on the session's training thread:
// one std::visit, one operator() per command. A handler reaches the run through the session's
// parts (RunLimits, PreviewPacing, AutosaveRecord, the LiveRun and its RunChanges).
#include "ui/live_run.h"
#include "ui/training_session.h"

#include "engine/errors.h"
#include "engine/training/open_run.h"

#include <string>
#include <vector>

namespace redraw {
using namespace run_command;

struct TrainingSession::Handler {
  TrainingSession& s;

  /// Runs `work` on the run: skipped without one (`no_run`, when given, is reported then); what it
  /// throws is reported as "<what>: <message>", and the run goes on.
  template <class Work> void on_run(const std::string& what, Work&& work, const std::string& no_run = {}) const {
    if (!s.m_run) return no_run.empty() ? void() : s.report_error(no_run);
    try {
      work(*s.m_run);
    } catch (const std::exception& e) {
      s.report_error(what + ": " + e.what());
    }
  }
  void report_all(const std::vector<std::string>& notices) const {
    for (const auto& n : notices)
      s.report_notice(n);
  }
  /// Writes the model (save, autosave, kept copy); recoveries it needed are reported.
  void write_model(const std::string& path, bool make_folder) const {
    s.m_run->write_model(path, make_folder);
    s.report_recoveries(); // a diverged state is recovered before it is saved
  }
  /// Runs an export with busy/progress/cancel reporting; `work` gets the progress callback.
  void run_export(const std::string& what, const std::string& path,
                  const std::function<void(const std::function<bool(double)>&)>& work) const {
    s.m_cancel = false;
    s.m_run->run_export(s.m_mailbox, what, path, work, [this] { return !s.m_queue.quitting() && !s.m_cancel; });
  }

  // ---- the run ----------------------------------------------------------------------------------
  void operator()(const Load& c) const;
  void operator()(const SetRunning& c) const {
    if (c.on) s.m_stop_step = false;
    if (c.on && !s.m_run) return;
    if (c.on) {
      const Trainer& t = *s.m_run->trainer;
      const std::string refusal = s.m_limits.refusal(t.current_step(), t.total_steps(), t.clock().budget_left());
      if (!refusal.empty()) return s.report_notice(refusal);
      s.m_limits.going_on_at(t.current_step());
    }
    s.m_running = c.on;
    if (!c.on && s.m_run) s.pause_run();
  }
  void operator()(const StepOnce&) const {
    if (!s.m_run || s.m_running) return;
    s.m_stop_step = false;
    s.m_run->trainer->set_stop_flag(&s.m_stop_step);
    s.m_run->changes.changed();
    try {
      if (auto row = s.m_run->trainer->step()) s.m_run->pending_rows.push_back(*row);
    } catch (const DivergedError& e) {
      s.report_error(std::string("training stopped: ") + e.what());
    }
    s.pause_run();
  }
  void operator()(const Reset&) const {
    if (!s.m_run) return;
    s.m_run->trainer->reset();
    s.m_run->tree.reset();
    report_all(s.m_run->tree.set_cap_bytes(*s.m_run->trainer, s.snapshot_cap()));
    s.show_new_line();
  }
  void operator()(const SetSchedule& c) const {
    on_run("schedule", [&](LiveRun& run) {
      run.trainer->set_total_steps(c.total_steps);
      run.trainer->set_schedule(c.schedule);
      run.changes.changed();
    });
  }
  void operator()(const StopAt& c) const { s.m_limits.set_stop_at(c.step); }
  void operator()(const SetTimeBudget& c) const {
    s.m_limits.set_time_budget(c.seconds);
    if (s.m_run) s.apply_time_budget();
  }
  void operator()(const SetSnapshotCap& c) const {
    s.m_snapshot_cap = c.bytes;
    if (!s.m_run) return;
    report_all(s.m_run->tree.set_cap_bytes(*s.m_run->trainer, c.bytes));
    s.m_run->post_frames(s.m_mailbox, true); // the panel shows the new cap (and any thinning) at once
  }
  void operator()(const Branch& c) const;
  void operator()(const SwitchLine& c) const;

  // ---- files --------------------------------------------------------------------------------------
  void operator()(const Save& c) const;
  void operator()(const Autosave& c) const;
  void operator()(const KeepCopy& c) const {
    on_run("could not keep a copy of the discarded run", [&](LiveRun&) {
      write_model(c.path, true);
      s.report_notice("the discarded run is kept in " + c.path);
    });
  }
  void operator()(const ExportImage& c) const {
    if (!s.m_run) return s.report_error("export: nothing to export yet (open an image first)");
    run_export(s.m_run->export_image_what(c.width, c.height, c.frame_step), c.path,
               [&](const std::function<bool(double)>& progress) {
                 s.m_run->export_image(c.path, c.width, c.height, c.bit_depth, c.frame_step, progress);
               });
  }
  void operator()(const ExportComparison& c) const {
    if (!s.m_run) return s.report_error("comparison: nothing to export yet (open an image first)");
    if (s.m_run->image.empty())
      return s.report_error("comparison: the original image of this run is not available");
    run_export("comparison " + std::to_string(2 * c.width) + "x" + std::to_string(c.height), c.path,
               [&](const std::function<bool(double)>& progress) {
                 s.m_run->export_comparison(c.path, c.width, c.height, c.bit_depth, progress);
               });
  }
  void operator()(const ExportTimelapse& c) const {
    if (!s.m_run) return s.report_error("timelapse: nothing to export yet (open an image first)");
    run_export("timelapse (" + std::to_string(s.m_run->trainer->frames().store().size()) + " frames)", c.path,
               [&](const std::function<bool(double)>& progress) {
                 s.m_run->export_timelapse(c.path, c.options, progress);
               });
  }

  // ---- pictures and data for the GUI ------------------------------------------------------------
  void operator()(const RenderPicture& c) const {
    on_run(
        "compare export",
        [&](LiveRun& run) { s.m_mailbox.picture(std::make_shared<Image>(run.trainer->render(c.width, c.height))); },
        "compare export: no run");
  }
  void operator()(const RenderZoom& c) const {
    const auto current = [this, generation = c.generation] { return s.m_zoom_generation == generation; };
    if (s.m_run && current())
      s.m_run->post_window(s.m_mailbox, c.window, c.width, c.height, c.generation, current, c.frame_step);
  }
  void operator()(const RequestHostPreview&) const { s.m_pacing.want_host(); }
  void operator()(const RequestNetwork&) const {
    if (s.m_run) s.m_mailbox.network(s.m_run->network());
  }

  // ---- previews -----------------------------------------------------------------------------------
  void operator()(const SetPreviewEvery& c) const { s.m_pacing.set_every(c.steps); }
  void operator()(const SetPreviewLimit& c) const { s.m_pacing.limit_posted(PreviewSize{c.max_w, c.max_h}); }
  void operator()(const SetMinPreviewInterval& c) const { s.m_pacing.set_min_interval(c.seconds); }
  void operator()(const SetPreviewShare& c) const { s.m_pacing.set_share(c.share); }

  void operator()(const Flush& c) const {
    if (c.done) c.done->set_value();
  }
};

void TrainingSession::Handler::operator()(const Load& c) const {
  const LoadRequest& req = c.request;
  s.m_mailbox.busy("loading");
  try {
    OpenRunOptions options;
    options.config = req.config;
    options.backend = req.backend;
    options.precision = req.backend == "cpu" ? std::string() : req.precision;
    options.limits = req.limits;
    OpenedRun opened = open_run({req.image, req.model}, s.m_make_backend, options);
    report_all(opened.notices);
    if (!opened.backend_notice.empty() && !s.m_backend_notice_shown) s.report_notice(opened.backend_notice);
    s.m_backend_notice_shown = true;
    auto run = std::make_unique<LiveRun>(std::move(opened), req.model.empty() ? req.image : req.model);
    // The user's frame memory cap outlives the trainer (after restore, so a model's frames are
    // thinned to it too).
    (void)run->tree.set_cap_bytes(*run->trainer, s.snapshot_cap());
    run->changes = RunChanges(req.model); // a run just opened has nothing unsaved
    // Success: the new run replaces the old one.
    s.m_running = false;
    s.m_run = std::move(run);
    s.ensure_frame_ring();
    ++s.m_trainer_id;
    s.apply_time_budget();
    const std::shared_ptr<const Dataset> data = s.m_run->trainer->shared_dataset();
    s.m_mailbox.new_history(s.m_run->trainer->record().rows(), ++s.m_run_id,
                            std::shared_ptr<const Image>(data, &data->image)); // the trainer's floats, shared
    s.make_preview(true);
    s.m_run->post_frames(s.m_mailbox, true);
  } catch (const ImageBudgetError& e) { // the app offers to open it with a larger budget
    const std::string file = !req.image.empty() ? req.image : req.model;
    s.m_mailbox.budget_offer(BudgetOffer{req, file, e.needed_bytes, e.budget_bytes, e.what()});
  } catch (...) {
    s.report_error(load_failure_text(req.model.empty() ? req.image : req.model, s.m_run != nullptr));
  }
  s.m_mailbox.idle();
}

void TrainingSession::Handler::operator()(const Branch& c) const {
  on_run("resume from here", [&](LiveRun& run) {
    if (run.trainer->frames().store().empty()) return;
    s.settle_metrics(); // the line being left keeps every row it measured
    run.trainer->pause_clock();
    bool trains_on = false;
    const std::vector<std::string> notices = run.branch(c.step, trains_on);
    s.show_new_line();
    if (trains_on) {
      s.m_running = true;
      s.m_limits.going_on_at(run.trainer->current_step());
    }
    report_all(notices);
  });
}

void TrainingSession::Handler::operator()(const SwitchLine& c) const {
  on_run("switch line", [&](LiveRun& run) {
    Trainer& t = *run.trainer;
    s.settle_metrics();
    t.pause_clock();
    std::vector<std::string> notices;
    if (!run.tree.switch_to(t, c.line, notices)) return;
    s.m_running = false;
    s.show_new_line();
    report_all(notices);
    s.report_notice("switched to the run-tree line at step " + std::to_string(t.current_step()) +
                    "; Space trains it further");
  });
}

void TrainingSession::Handler::operator()(const Save& c) const {
  if (!s.m_run) return s.report_error("save: nothing to save yet (open an image first)");
  try {
    write_model(c.path, false);
    s.m_run->changes.saved(c.path);
    s.m_mailbox.saved(c.path);
    s.report_notice("saved " + c.path);
  } catch (const std::exception& e) {
    s.report_error(std::string("save: ") + e.what());
    s.m_mailbox.save_failed(c.path);
  }
}

void TrainingSession::Handler::operator()(const Autosave& c) const {
  if (!s.m_run) return;
  const Trainer& t = *s.m_run->trainer;
  if (!s.m_autosave.due(s.m_trainer_id, t.current_step())) return;
  try {
    write_model(c.path, true);
    s.m_autosave.succeeded(s.m_trainer_id, t.current_step());
  } catch (const std::exception& e) {
    if (s.m_autosave.failed(e.what())) s.report_error(std::string("autosave failed: ") + e.what());
  }
}

void TrainingSession::handle(const RunCommand& command) {
  try {
    std::visit(Handler{*this}, command);
  } catch (const std::exception& e) {
    report_error(e.what());
  }
}

} // namespace redraw
