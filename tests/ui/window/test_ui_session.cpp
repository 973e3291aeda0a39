/// The GUI's training thread: loads an image, trains, publishes metrics and previews through the
/// snapshot, saves, resets, branches from a timelapse frame, and turns failures into messages
/// while the current run survives. Built when the GUI is (REDRAW_TEST_UI).
#include <doctest/doctest.h>

#if REDRAW_TEST_UI
#include "ui/window/app_actions.h"
#include "ui/session/autosave.h"
#include "ui/session/training_session.h"

#include "app/backend_registry.h"

#include "engine/model_files/checkpoint.h"
#include "cpu/cpu_backend.h"
#include "engine/images/image.h"
#include "engine/model_files/model_check.h"
#include "engine/training/open_run.h"
#include "engine/images/resample.h"
#include "engine/frames/timelapse.h"
#include "test_support.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace redraw;

namespace {
RunConfig session_config() {
  RunConfig c = load_run_config(std::filesystem::path(REDRAW_TEST_ASSET_DIR) / "../tests/gui/gui_tiny.json");
  c.data.max_side = 32;
  c.training.steps = 60;
  return c;
}

/// A load of the default image with session_config() on the CPU.
LoadRequest tiny_request() {
  LoadRequest req;
  req.image = default_image_path().string();
  req.config = session_config();
  req.backend = "cpu";
  return req;
}

/// Takes snapshots until `done` holds for the accumulated state (or 60 s pass).
struct Collected {
  std::vector<MetricsRow> rows;
  SessionStatus status;
  std::shared_ptr<const Image> truth, preview;
  std::vector<std::string> errors, notices;
  std::vector<MetricsRow> frames;
  std::shared_ptr<const Image> frame;
  size_t snapshot_cap_bytes = 0;
  std::vector<std::string> saved;
};
template <class Pred> bool wait_for(TrainingSession& s, Collected& c, Pred done) {
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(60)) {
    SessionSnapshot t = s.take();
    if (t.history_replaced) c.rows.clear();
    c.rows.insert(c.rows.end(), t.rows.begin(), t.rows.end());
    c.status = t.status;
    if (t.ground_truth) c.truth = t.ground_truth;
    if (t.preview) c.preview = t.preview;
    if (t.snapshots_changed) c.frames = t.snapshots;
    if (t.frame) c.frame = t.frame;
    if (t.snapshot_cap_bytes) c.snapshot_cap_bytes = t.snapshot_cap_bytes;
    c.saved.insert(c.saved.end(), t.saved_models.begin(), t.saved_models.end());
    c.errors.insert(c.errors.end(), t.errors.begin(), t.errors.end());
    c.notices.insert(c.notices.end(), t.notices.begin(), t.notices.end());
    if (done(c)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}
} // namespace

TEST_CASE("ui session: train, preview, save, reset, branch, and errors that keep the run") {
  TrainingSession session(backend_factory());
  Collected c;
  const LoadRequest req = tiny_request();
  session.post(run_command::Load{req});
  REQUIRE(wait_for(session, c, [](const Collected& x) { return x.status.has_run && x.truth && x.preview; }));
  CHECK(c.truth->width == 32);
  CHECK(c.preview->width == c.truth->width);
  CHECK(c.status.step == 0);

  session.post(run_command::SetRunning{true});
  REQUIRE(wait_for(session, c, [](const Collected& x) { return !x.status.running && x.status.step == 60; }));
  CHECK(c.rows.size() >= 5);
  CHECK(c.rows.back().step == 60);
  CHECK(c.rows.back().psnr_db > c.rows.front().psnr_db);
  CHECK(c.frames.size() >= 2); // timelapse frames were kept

  // A bad image: an error message, and the run is still there.
  LoadRequest bad = req;
  bad.image = "/nonexistent/picture.png";
  session.post(run_command::Load{bad});
  REQUIRE(wait_for(session, c, [](const Collected& x) { return !x.errors.empty(); }));
  CHECK(c.errors.back().find("picture.png") != std::string::npos);
  CHECK(c.status.has_run);
  CHECK(c.status.step == 60);

  char tmpl[] = "/tmp/redraw_ui_session_XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::filesystem::path dir = tmpl;
  session.post(run_command::Save{(dir / "m.redraw").string()});
  REQUIRE(wait_for(session, c,
                   [](const Collected& x) { return !x.notices.empty() && x.notices.back().rfind("saved", 0) == 0; }));
  const Checkpoint ck = load_checkpoint(dir / "m.redraw");
  CHECK(ck.step == 60);

  session.post(run_command::ExportImage{(dir / "big.png").string(), 96, 80, 8});
  REQUIRE(wait_for(session, c, [](const Collected& x) {
    return !x.notices.empty() && x.notices.back().find("done") != std::string::npos;
  }));
  CHECK(load_image(dir / "big.png").width == 96);
  session.post(run_command::ExportImage{(dir / "missing/folder/x.png").string(), 16, 16, 8});
  const size_t errors_before = c.errors.size();
  REQUIRE(wait_for(session, c, [&](const Collected& x) { return x.errors.size() > errors_before; }));
  CHECK_FALSE(std::filesystem::exists(dir / "missing"));

  // A timelapse frame on request, then "resume from here".
  const int64_t early = c.frames[1].step;
  session.request_frame(early);
  REQUIRE(wait_for(session, c, [](const Collected& x) { return x.frame != nullptr; }));
  CHECK(c.frame->width == 32);
  // Branching keeps the line it leaves, trains on at once (as its notice says), and marks the
  // run unsaved; switching back brings the saved line's step and curves back.
  CHECK_FALSE(c.status.unsaved); // just saved
  session.post(run_command::Branch{early});
  const std::string continues = "training continues from step " + std::to_string(early);
  // Later notices (the branch finishing) may arrive in the same take, so look for it among all.
  auto branch_notice = [&](const Collected& x) {
    return std::find_if(x.notices.rbegin(), x.notices.rend(),
                        [&](const std::string& n) { return n.rfind(continues, 0) == 0; });
  };
  REQUIRE(wait_for(session, c, [&](const Collected& x) {
    return branch_notice(x) != x.notices.rend() && x.status.lines.size() == 2;
  }));
  CHECK(branch_notice(c)->find("with its optimizer state") != std::string::npos);
  REQUIRE(wait_for(session, c, [&](const Collected& x) { return x.status.step > early && x.status.unsaved; }));
  CHECK(c.status.lines[0].label() == "main: steps 0..60");
  CHECK_FALSE(c.status.lines[0].active);
  CHECK(c.status.lines[1].fork_step == early);
  CHECK(c.rows.front().step <= early);
  REQUIRE(wait_for(session, c, [](const Collected& x) { return !x.status.running; }));
  session.post(run_command::SwitchLine{0});
  REQUIRE(wait_for(session, c, [](const Collected& x) {
    return x.status.step == 60 && x.status.lines.size() == 2 && x.status.lines[0].active && !x.rows.empty() &&
           x.rows.back().step == 60;
  }));
  CHECK_FALSE(c.status.running);

  session.post(run_command::Reset{});
  REQUIRE(wait_for(session, c, [](const Collected& x) { return x.status.step == 0 && x.rows.empty(); }));
  CHECK(c.status.lines.size() == 1);
  CHECK_FALSE(c.status.unsaved); // nothing trained, nothing to lose

  // Loading the saved model brings its step and history back.
  LoadRequest model;
  model.model = (dir / "m.redraw").string();
  model.backend = "cpu";
  session.post(run_command::Load{model});
  REQUIRE(wait_for(session, c, [](const Collected& x) { return x.status.step == 60 && !x.rows.empty(); }));
  CHECK(c.rows.back().step == 60);
  std::filesystem::remove_all(dir);
}

TEST_CASE("ui session: the frame memory cap outlives new runs, and saves report where they wrote") {
  TrainingSession session(backend_factory());
  Collected c;
  const LoadRequest req = tiny_request();
  session.post(run_command::Load{req});
  REQUIRE(wait_for(session, c, [](const Collected& x) { return x.status.has_run; }));
  const uint64_t first = c.status.trainer_id;
  CHECK(c.snapshot_cap_bytes == size_t(256) << 20); // the Trainer's default

  constexpr size_t k_cap = size_t(3) << 20;
  session.post(run_command::SetSnapshotCap{k_cap});
  REQUIRE(wait_for(session, c, [&](const Collected& x) { return x.snapshot_cap_bytes == k_cap; }));
  // A new run (another image load, as Apply & reset does) keeps the user's cap.
  session.post(run_command::Load{req});
  session.post(run_command::StepOnce{}); // runs after the load has published the new run's frames
  REQUIRE(wait_for(session, c, [&](const Collected& x) { return x.status.trainer_id != first && x.status.step == 1; }));
  CHECK(c.snapshot_cap_bytes == k_cap);

  // Only a save that succeeded is reported (the GUI adds it to the recent files then).
  char tmpl[] = "/tmp/redraw_ui_session_XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::filesystem::path dir = tmpl;
  const size_t errors_before = c.errors.size();
  UiState ui; // File > Save model: nothing becomes a recent file before the save succeeds
  REQUIRE(apply_intent(ui, session, UiIntent{intent::SaveModel{(dir / "missing/folder/m.redraw").string()}}));
  CHECK(ui.settings.recent.empty());
  REQUIRE(wait_for(session, c, [&](const Collected& x) { return x.errors.size() > errors_before; }));
  CHECK(c.saved.empty());
  session.post(run_command::Save{(dir / "m.redraw").string()});
  REQUIRE(wait_for(session, c, [](const Collected& x) { return !x.saved.empty(); }));
  CHECK(c.saved == std::vector<std::string>{(dir / "m.redraw").string()});
  std::filesystem::remove_all(dir);
}
TEST_CASE("ui session: Space pressed twice before the session answers trains, then pauses") {
  TrainingSession session(backend_factory());
  Collected c;
  LoadRequest req = tiny_request();
  req.config.training.steps = 100000; // far more than this test trains: the run never ends by itself
  session.post(run_command::Load{req});
  REQUIRE(wait_for(session, c, [](const Collected& x) { return x.status.has_run; }));
  UiState ui;
  ui.run_a().status = c.status; // paused at step 0
  REQUIRE_FALSE(ui.run_a().running_as_asked());

  // Two presses in one frame: no status is taken between them, so the second must not read
  // "paused" from the status and ask to train again.
  REQUIRE(apply_intent(ui, session, UiIntent{intent::ToggleRun{}}));
  CHECK(ui.run_a().running_as_asked());
  REQUIRE(apply_intent(ui, session, UiIntent{intent::ToggleRun{}}));
  CHECK_FALSE(ui.run_a().running_as_asked());
  uint64_t ticket = ui.run_a().running_ask.ticket;
  REQUIRE(wait_for(session, c, [&](const Collected& x) { return x.status.commands_run >= ticket; }));
  CHECK_FALSE(c.status.running);
  ui.run_a().status = c.status;
  CHECK_FALSE(ui.run_a().running_as_asked()); // the status has caught up and says the same

  // A third press toggles from that status: training again, until a pause.
  REQUIRE(apply_intent(ui, session, UiIntent{intent::ToggleRun{}}));
  ticket = ui.run_a().running_ask.ticket;
  REQUIRE(wait_for(session, c, [&](const Collected& x) { return x.status.commands_run >= ticket && x.status.step > 0; }));
  CHECK(c.status.running);
  ui.run_a().status = c.status;
  REQUIRE(apply_intent(ui, session, UiIntent{intent::ToggleRun{}}));
  ticket = ui.run_a().running_ask.ticket;
  REQUIRE(wait_for(session, c, [&](const Collected& x) { return x.status.commands_run >= ticket; }));
  CHECK_FALSE(c.status.running);
  CHECK(c.status.step < req.config.training.steps);
}

TEST_CASE("ui autosave: a crashed session's autosave is found and offered once and a clean quit leaves no offer") {
  char tmpl[] = "/tmp/redraw-autosave-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::filesystem::path dir = tmpl;
  {
    // A clean session: its lock goes, its autosave becomes last-session.redraw.
    AutosaveSession clean(dir);
    REQUIRE(clean.ok());
    TrainingSession session(backend_factory());
    LoadRequest req = tiny_request();
    req.image = (std::filesystem::path(REDRAW_TEST_ASSET_DIR) / "default.png").string();
    session.post(run_command::Load{req});
    session.post(run_command::StepOnce{});
    session.post(run_command::Autosave{clean.model_path().string()});
    REQUIRE(session.flush(60));
    CHECK(std::filesystem::exists(clean.model_path()));
    CHECK(load_checkpoint(clean.model_path()).step == 1);
    CHECK(find_crashed_sessions(dir).empty()); // our own lock: we are alive
    clean.finish_clean();
  }
  CHECK(std::filesystem::exists(dir / "last-session.redraw"));
  CHECK(find_crashed_sessions(dir).empty());
  // A session that died: a child process writes its lock and autosave, then exits without quitting.
  const pid_t child = fork();
  if (child == 0) {
    AutosaveSession dying(dir);
    std::filesystem::copy_file(dir / "last-session.redraw", dying.model_path());
    _exit(0);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  // And one that died before its first autosave: its lock is just removed.
  { std::ofstream(dir / "session-999999999.lock") << "999999999\n"; }
  auto crashed = find_crashed_sessions(dir);
  REQUIRE(crashed.size() == 1);
  CHECK(crashed[0].pid == long(child));
  CHECK(!crashed[0].saved_at.empty());
  CHECK(!std::filesystem::exists(dir / "session-999999999.lock"));
  const std::filesystem::path restored = adopt_crashed_session(crashed[0]);
  REQUIRE(!restored.empty());
  CHECK(load_checkpoint(restored).step == 1);
  CHECK(find_crashed_sessions(dir).empty()); // offered once
  // Relaunched within a second of kill -9, while the dead session is still a zombie: offered too.
  const pid_t zombie = fork();
  if (zombie == 0) {
    AutosaveSession dying(dir);
    std::filesystem::copy_file(restored, dying.model_path());
    _exit(0);
  }
  siginfo_t info{};
  REQUIRE(waitid(P_PID, id_t(zombie), &info, WEXITED | WNOWAIT) == 0); // exited, not reaped
  CHECK(kill(zombie, 0) == 0);
  crashed = find_crashed_sessions(dir);
  REQUIRE(crashed.size() == 1);
  CHECK(crashed[0].pid == long(zombie));
  REQUIRE(waitpid(zombie, &status, 0) == zombie);
  std::filesystem::remove_all(dir);
}
TEST_CASE("ui session: a model opened from another folder finds its image beside it and saves its absolute path") {
  test::TempDir a, b;
  std::filesystem::copy_file(default_image_path(), a.path / "img.png");
  RunConfig cfg = session_config();
  {
    Trainer t(std::make_unique<CpuBackend>(), cfg, Dataset{prepare_training_image(a.path / "img.png", cfg.data)});
    t.run(3);
    save_checkpoint(a.path / "m.redraw", t.checkpoint("img.png")); // relative, as older trainers stored it
  }
  CHECK(find_source_image("img.png", a.path / "m.redraw") == (a.path / "img.png").string());
  CHECK(find_source_image("/elsewhere/img.png", a.path / "m.redraw") == (a.path / "img.png").string());
  CHECK(find_source_image("gone.png", a.path / "m.redraw").empty());
  TrainingSession session(backend_factory());
  Collected c;
  LoadRequest req;
  req.model = (a.path / "m.redraw").string(); // the working folder is not a.path
  req.backend = "cpu";
  session.post(run_command::Load{req});
  REQUIRE(wait_for(session, c, [](const Collected& x) { return x.status.has_run && x.truth; }));
  CHECK(c.status.image_path == (a.path / "img.png").string()); // the real ground truth, no stand-in
  CHECK(c.notices.empty());
  session.post(run_command::Save{(b.path / "m2.redraw").string()});
  REQUIRE(session.flush(60));
  const std::string stored = load_checkpoint(b.path / "m2.redraw").source_image;
  CHECK(std::filesystem::path(stored).is_absolute());
  CHECK(std::filesystem::equivalent(stored, a.path / "img.png"));
}
TEST_CASE("ui session: a model whose image is gone opens as the command line opens it (open_run)") {
  test::TempDir a;
  std::filesystem::copy_file(default_image_path(), a.path / "img.png");
  const RunConfig cfg = session_config();
  {
    Trainer t(std::make_unique<CpuBackend>(), cfg, Dataset{prepare_training_image(a.path / "img.png", cfg.data)});
    t.run(3);
    save_checkpoint(a.path / "m.redraw", t.checkpoint((a.path / "img.png").string()));
  }
  std::filesystem::remove(a.path / "img.png");
  // What `redraw train gone.png --resume m.redraw --backend cpu` opens.
  OpenRunOptions cli_options;
  cli_options.backend = "cpu";
  const OpenedRun cli =
      open_run({(a.path / "gone.png").string(), (a.path / "m.redraw").string()}, backend_factory(), cli_options);
  REQUIRE(cli.notices.size() == 1);
  TrainingSession session(backend_factory());
  Collected c;
  LoadRequest req;
  req.model = (a.path / "m.redraw").string();
  req.backend = "cpu";
  session.post(run_command::Load{req});
  REQUIRE(wait_for(session, c, [](const Collected& x) { return x.status.has_run && x.truth; }));
  CHECK(c.errors.empty());
  CHECK(c.status.image_path.empty());
  REQUIRE(c.notices.size() == 1);
  CHECK(c.notices[0].find("showing the model's own picture as the ground truth") != std::string::npos);
  CHECK(test::max_abs_diff(*c.truth, cli.trainer->dataset().image) == 0.0);
  CHECK(c.status.step == cli.trainer->current_step());
  CHECK(c.status.step == 3);
}

TEST_CASE("ui session: a time budget anneals the schedule to its deadline, then pauses training") {
  TrainingSession session(backend_factory());
  Collected c;
  LoadRequest req = tiny_request();
  req.config.training.steps = 1000000; // far more than the budget allows
  req.config.training.metrics_every = 1; // a row every step
  session.post(run_command::SetTimeBudget{1.5}); // kept by the session: the run opened next gets it
  session.post(run_command::Load{req});
  REQUIRE(wait_for(session, c, [](const Collected& x) { return x.status.has_run && x.preview; }));
  session.post(run_command::SetRunning{true});
  auto spent = [](const Collected& x) {
    return !x.status.running &&
           std::any_of(x.notices.begin(), x.notices.end(), [](const std::string& n) { return n.find("time budget") != std::string::npos; });
  };
  REQUIRE(wait_for(session, c, [&](const Collected& x) { return x.status.step > 0 && spent(x); }));
  CHECK(c.status.step < c.status.total_steps);
  CHECK(c.status.elapsed_s >= 1.5);
  REQUIRE(!c.rows.empty());
  // Without the budget a step of the first thousands of a million would use about lr_max (1e-2);
  // under it the cosine follows the training time: the rate falls row by row, and the last row
  // (a row every step) is past the cosine's middle.
  const double lr_max = req.config.schedule.lr_max;
  for (size_t i = 1; i < c.rows.size(); ++i) CHECK(c.rows[i].lr <= c.rows[i - 1].lr);
  CHECK(c.rows.back().lr < 0.5 * lr_max);
  // Spent: training pauses again at once.
  const size_t notices = c.notices.size();
  const int64_t step = c.status.step;
  session.post(run_command::SetRunning{true});
  REQUIRE(wait_for(session, c, [&](const Collected& x) { return x.notices.size() > notices && !x.status.running; }));
  CHECK(c.status.step == step);
  // Off: the run trains on, the schedule back on its steps.
  session.post(run_command::SetTimeBudget{0});
  session.post(run_command::SetRunning{true});
  REQUIRE(wait_for(session, c, [&](const Collected& x) { return x.status.step > step + 20; }));
  session.post(run_command::SetRunning{false});
  REQUIRE(wait_for(session, c, [](const Collected& x) { return !x.status.running; }));
  CHECK(c.rows.back().lr > 0.5 * lr_max);
}

TEST_CASE("ui: the edited time budget is off, or its seconds within 1..1e7") {
  EditState e;
  CHECK(edit_time_budget(e) == 0); // off by default
  e.time_budget_on = true;
  e.time_budget_s = 90;
  CHECK(edit_time_budget(e) == 90);
  e.time_budget_s = 0.01;
  CHECK(edit_time_budget(e) == 1);
  e.time_budget_s = 1e9;
  CHECK(edit_time_budget(e) == 1e7);
}

TEST_CASE("ui session: previews fit the preview limit; the truth at their size serves the error map and tooltip") {
  // fit_within: aspect kept, never enlarged, 0 is no limit on that axis.
  int32_t w = 0, h = 0;
  fit_within(6000, 4000, 1536, 1024, w, h);
  CHECK((w == 1536 && h == 1024));
  fit_within(6000, 4000, 1000, 0, w, h);
  CHECK((w == 1000 && h == 667));
  fit_within(300, 200, 1536, 1024, w, h);
  CHECK((w == 300 && h == 200));

  TrainingSession session(backend_factory());
  session.post(run_command::SetPreviewLimit{16, 16}); // before the load: its first preview already fits
  Collected c;
  LoadRequest req;
  req.image = default_image_path().string();
  req.config = session_config(); // 32 pixels on the longer side
  req.backend = "cpu";
  session.post(run_command::Load{req});
  REQUIRE(wait_for(session, c, [](const Collected& x) { return x.status.has_run && x.truth && x.preview; }));
  CHECK(c.truth->width == 32);
  CHECK(c.preview->width == 16);
  CHECK(c.preview->height == (c.truth->height + 1) / 2);

  // The GUI's side: the truth resampled once to the preview's size, found by size.
  RunView run;
  run.ground_truth = c.truth;
  SessionSnapshot take;
  take.preview = c.preview;
  absorb_run_preview(run, nullptr, take);
  REQUIRE(run.truth_shown);
  CHECK(run.truth_for(*c.preview) == run.truth_shown.get());
  CHECK(run.truth_for(*c.truth) == c.truth.get());
  const Image box = resample(*c.truth, c.preview->width, c.preview->height, ResampleFilter::Box);
  CHECK(run.truth_shown->pixels == box.pixels);
  Image other = *c.preview;
  other.width = 5; // a timelapse frame of another size: no truth for it
  CHECK(run.truth_for(other) == nullptr);

  // Lifting the limit: the next preview is at the training size again.
  session.post(run_command::SetPreviewLimit{0, 0});
  c.preview.reset();
  REQUIRE(wait_for(session, c, [](const Collected& x) { return x.preview && x.preview->width == 32; }));
}

#endif
