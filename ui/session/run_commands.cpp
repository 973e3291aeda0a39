// Every RunCommand's handler (ui/session/run_commands.h), run in order on the session's training thread:
// one std::visit, one operator() per command. A handler works through the RunContext
// (ui/session/run_context.h): the run's verbs (LiveRun), its limits, preview pacing, autosave record and
// mailbox.
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
    if (!run) return no_run.empty() ? void() : ctx.mailbox().error(no_run);
    try {
      work(*run);
    } catch (const std::exception& e) {
      ctx.mailbox().error(what + ": " + e.what());
    }
  }
  /// Runs an export of the run: reported as "<name>: nothing to export yet" without one.
  void export_run(const std::string& name, const RunExport& request) const {
    if (!ctx.run()) return ctx.mailbox().error(name + ": nothing to export yet (open an image first)");
    ctx.export_run(request, quitting);
  }

  // ---- the run ----------------------------------------------------------------------------------
  void operator()(const Load& c) const { ctx.load(c.request); }
  void operator()(const SetRunning& c) const { ctx.set_running(c.on); }
  void operator()(const StepOnce&) const { ctx.step_once(); }
  void operator()(const Reset&) const { ctx.reset(); }
  void operator()(const SetSchedule& c) const {
    on_run("schedule", [&](LiveRun& run) { run.set_schedule(c.schedule, c.total_steps); });
  }
  void operator()(const StopAt& c) const { ctx.limits().set_stop_at(c.step); }
  void operator()(const SetTimeBudget& c) const {
    ctx.limits().set_time_budget(c.seconds);
    if (LiveRun* run = ctx.run()) run->loop().set_time_budget(ctx.limits().time_budget()); // counting from now
  }
  void operator()(const SetSnapshotCap& c) const { ctx.set_snapshot_cap(c.bytes); }
  void operator()(const Branch& c) const { ctx.branch(c.step); }
  void operator()(const SwitchLine& c) const { ctx.switch_line(c.line); }

  // ---- files --------------------------------------------------------------------------------------
  void operator()(const Save& c) const;
  void operator()(const Autosave& c) const;
  void operator()(const KeepCopy& c) const {
    on_run("could not keep a copy of the discarded run", [&](LiveRun& run) {
      run.write_model(ctx.mailbox(), c.path, LiveRun::WriteKind::Copy);
      ctx.mailbox().notice("the discarded run is kept in " + c.path);
    });
  }
  void operator()(const ExportImage& c) const { export_run("export", c); }
  void operator()(const ExportComparison& c) const { export_run("comparison", c); }
  void operator()(const ExportTimelapse& c) const { export_run("timelapse", c); }

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

void Handler::operator()(const Save& c) const {
  LiveRun* run = ctx.run();
  if (!run) return ctx.mailbox().error("save: nothing to save yet (open an image first)");
  try {
    run->write_model(ctx.mailbox(), c.path, LiveRun::WriteKind::Save);
    ctx.mailbox().saved(c.path);
    ctx.mailbox().notice("saved " + c.path);
  } catch (const std::exception& e) {
    ctx.mailbox().error(std::string("save: ") + e.what());
    ctx.mailbox().save_failed(c.path);
  }
}

void Handler::operator()(const Autosave& c) const {
  LiveRun* run = ctx.run();
  if (!run) return;
  if (!ctx.autosave().due(ctx.trainer_id(), run->trainer().current_step())) return;
  try {
    run->write_model(ctx.mailbox(), c.path, LiveRun::WriteKind::Copy);
    ctx.autosave().succeeded(ctx.trainer_id(), run->trainer().current_step()); // after a recovery's rollback
  } catch (const std::exception& e) {
    if (ctx.autosave().failed(e.what())) ctx.mailbox().error(std::string("autosave failed: ") + e.what());
  }
}
} // namespace

void handle_run_command(RunContext& context, const RunCommand& command, const std::function<bool()>& quitting) {
  try {
    std::visit(Handler{context, quitting}, command);
  } catch (const std::exception& e) {
    context.mailbox().error(e.what());
  }
}

} // namespace redraw
