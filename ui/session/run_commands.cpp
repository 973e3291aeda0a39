// Every RunCommand's handler (ui/session/run_commands.h), run in order on the session's training thread:
// one std::visit, one operator() per command. A handler works through the RunContext
// (ui/session/run_context.h): the run's verbs (LiveRun), its limits, preview pacing, autosave record and
// mailbox.
#include "ui/session/live_run.h"
#include "ui/session/run_context.h"

#include "engine/errors.h"
#include "ui/session/load_request.h"

#include <string>
#include <vector>

namespace redraw {
using namespace run_command;

namespace {
struct Handler {
  RunContext& ctx;
  const std::function<bool()>& quitting;

  /// Runs `work` on the run: skipped without one (`no_run`, when given, is reported then); what it
  /// throws is reported as "<what>: <message>", and the run goes on.
  template <class Work> void on_run(const std::string& what, Work&& work, const std::string& no_run = {}) const {
    LiveRun* run = ctx.run();
    if (!run) return no_run.empty() ? void() : ctx.error(no_run);
    try {
      work(*run);
    } catch (const std::exception& e) {
      ctx.error(what + ": " + e.what());
    }
  }
  /// Runs an export of the run: reported as `no_run` without one.
  template <class What, class Work>
  void run_export(const std::string& no_run, const std::string& path, What&& what, Work&& work) const {
    LiveRun* run = ctx.run();
    if (!run) return ctx.error(no_run);
    ctx.run_export(what(*run), path, [&](const std::function<bool(double)>& progress) { work(*run, progress); },
                   quitting);
  }

  // ---- the run ----------------------------------------------------------------------------------
  void operator()(const Load& c) const;
  void operator()(const SetRunning& c) const { ctx.set_running(c.on); }
  void operator()(const StepOnce&) const { ctx.step_once(); }
  void operator()(const Reset&) const {
    if (!ctx.run()) return;
    ctx.notices(ctx.run()->reset(ctx.snapshot_cap()));
    ctx.show_new_line();
  }
  void operator()(const SetSchedule& c) const {
    on_run("schedule", [&](LiveRun& run) { run.set_schedule(c.schedule, c.total_steps); });
  }
  void operator()(const StopAt& c) const { ctx.limits().set_stop_at(c.step); }
  void operator()(const SetTimeBudget& c) const {
    ctx.limits().set_time_budget(c.seconds);
    if (ctx.run()) ctx.apply_time_budget();
  }
  void operator()(const SetSnapshotCap& c) const {
    ctx.set_snapshot_cap(c.bytes);
    LiveRun* run = ctx.run();
    if (!run) return;
    ctx.notices(run->set_cap(c.bytes));
    run->post_frames(ctx.mailbox(), true); // the panel shows the new cap (and any thinning) at once
  }
  void operator()(const Branch& c) const;
  void operator()(const SwitchLine& c) const;

  // ---- files --------------------------------------------------------------------------------------
  void operator()(const Save& c) const;
  void operator()(const Autosave& c) const;
  void operator()(const KeepCopy& c) const {
    on_run("could not keep a copy of the discarded run", [&](LiveRun&) {
      ctx.write_model(c.path, true);
      ctx.notice("the discarded run is kept in " + c.path);
    });
  }
  void operator()(const ExportImage& c) const {
    run_export(
        "export: nothing to export yet (open an image first)", c.path,
        [&](LiveRun& run) { return run.export_image_what(c.width, c.height, c.frame_step); },
        [&](LiveRun& run, const auto& progress) {
          run.export_image(c.path, c.width, c.height, c.bit_depth, c.frame_step, progress);
        });
  }
  void operator()(const ExportComparison& c) const {
    if (ctx.run() && !ctx.run()->has_original())
      return ctx.error("comparison: the original image of this run is not available");
    run_export(
        "comparison: nothing to export yet (open an image first)", c.path,
        [&](LiveRun&) { return "comparison " + std::to_string(2 * c.width) + "x" + std::to_string(c.height); },
        [&](LiveRun& run, const auto& progress) {
          run.export_comparison(c.path, c.width, c.height, c.bit_depth, progress);
        });
  }
  void operator()(const ExportTimelapse& c) const {
    run_export(
        "timelapse: nothing to export yet (open an image first)", c.path,
        [&](LiveRun& run) { return "timelapse (" + std::to_string(run.trainer().frames().store().size()) + " frames)"; },
        [&](LiveRun& run, const auto& progress) { run.export_timelapse(c.path, c.options, progress); });
  }

  // ---- pictures and data for the GUI ------------------------------------------------------------
  void operator()(const RenderPicture& c) const {
    on_run(
        "compare export", [&](LiveRun& run) { ctx.mailbox().picture(run.render(c.width, c.height)); },
        "compare export: no run");
  }
  void operator()(const RenderZoom& c) const {
    const auto current = [this, generation = c.generation] { return ctx.zoom_current(generation); };
    if (ctx.run() && current())
      ctx.run()->post_window(ctx.mailbox(), c.window, c.width, c.height, c.generation, current, c.frame_step);
  }
  void operator()(const RequestHostPreview&) const { ctx.pacing().want_host(); }
  void operator()(const RequestNetwork&) const {
    if (ctx.run()) ctx.mailbox().network(ctx.run()->network());
  }

  // ---- previews -----------------------------------------------------------------------------------
  void operator()(const SetPreviewEvery& c) const { ctx.pacing().set_every(c.steps); }
  void operator()(const SetPreviewLimit& c) const { ctx.pacing().limit_posted(PreviewSize{c.max_w, c.max_h}); }
  void operator()(const SetMinPreviewInterval& c) const { ctx.pacing().set_min_interval(c.seconds); }
  void operator()(const SetPreviewShare& c) const { ctx.pacing().set_share(c.share); }

  void operator()(const Flush& c) const {
    if (c.done) c.done->set_value();
  }
};

void Handler::operator()(const Load& c) const {
  const LoadRequest& req = c.request;
  ctx.mailbox().busy("loading");
  try {
    ctx.adopt(ctx.open(req)); // success: the new run replaces the old one
  } catch (const ImageBudgetError& e) { // the app offers to open it with a larger budget
    const std::string file = !req.image.empty() ? req.image : req.model;
    ctx.mailbox().budget_offer(BudgetOffer{req, file, e.needed_bytes, e.budget_bytes, e.what()});
  } catch (...) {
    ctx.error(load_failure_text(req.model.empty() ? req.image : req.model, ctx.run() != nullptr));
  }
  ctx.mailbox().idle();
}

void Handler::operator()(const Branch& c) const {
  on_run("resume from here", [&](LiveRun& run) {
    if (run.trainer().frames().store().empty()) return;
    ctx.settle_metrics(); // the line being left keeps every row it measured
    run.pause_clock();
    bool trains_on = false;
    const std::vector<std::string> notices = run.branch(c.step, trains_on);
    ctx.show_new_line();
    if (trains_on) ctx.train_on();
    ctx.notices(notices);
  });
}

void Handler::operator()(const SwitchLine& c) const {
  on_run("switch line", [&](LiveRun& run) {
    ctx.settle_metrics();
    run.pause_clock();
    std::vector<std::string> notices;
    if (!run.switch_line(c.line, notices)) return;
    ctx.stop();
    ctx.show_new_line();
    ctx.notices(notices);
    ctx.notice("switched to the run-tree line at step " + std::to_string(run.trainer().current_step()) +
               "; Space trains it further");
  });
}

void Handler::operator()(const Save& c) const {
  if (!ctx.run()) return ctx.error("save: nothing to save yet (open an image first)");
  try {
    ctx.write_model(c.path, false);
    ctx.run()->saved(c.path);
    ctx.mailbox().saved(c.path);
    ctx.notice("saved " + c.path);
  } catch (const std::exception& e) {
    ctx.error(std::string("save: ") + e.what());
    ctx.mailbox().save_failed(c.path);
  }
}

void Handler::operator()(const Autosave& c) const {
  LiveRun* run = ctx.run();
  if (!run) return;
  if (!ctx.autosave().due(ctx.trainer_id(), run->trainer().current_step())) return;
  try {
    ctx.write_model(c.path, true);
    ctx.autosave().succeeded(ctx.trainer_id(), run->trainer().current_step()); // after a recovery's rollback
  } catch (const std::exception& e) {
    if (ctx.autosave().failed(e.what())) ctx.error(std::string("autosave failed: ") + e.what());
  }
}
} // namespace

void handle_run_command(RunContext& context, const RunCommand& command, const std::function<bool()>& quitting) {
  try {
    std::visit(Handler{context, quitting}, command);
  } catch (const std::exception& e) {
    context.error(e.what());
  }
}

} // namespace redraw
