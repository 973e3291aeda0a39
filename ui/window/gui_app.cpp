#include "ui/window/gui_app.h"

#include "ui/window/app_actions.h"
#include "ui/window/compare_runs.h"
#include "ui/window/glfw_window.h"
#include "ui/session/autosave.h"
#include "ui/session/termination_signals.h"
#include "ui/widgets/escape_key.h"
#include "ui/panels/confirm_prompt.h"
#include "ui/panels/insight_views.h"
#include "ui/panels/panels.h"
#include "ui/panels/zoom_view.h"
#include "ui/state/settings_store.h"
#include "ui/testing/frame_hooks.h"
#include "ui/session/training_session.h"
#include "ui/widgets/ui_scale.h"

#include "engine/thread_budget.h"
#include "engine/display_text.h"
#include "engine/run_config.h"

#define GLFW_INCLUDE_NONE // glad is the GL loader; GLFW must not pull in <GL/gl.h>
#include <GLFW/glfw3.h>
#include <glad/gl.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <thread>

namespace redraw {
namespace {

/// Rebuilds fonts and style when the wanted scale (monitor x user) differs from the built one.
/// Between frames: the font texture is re-uploaded here.
void update_ui_scale(UiState& ui) {
  const float wanted =
      effective_ui_scale(ui.scale.content, ui.scale.session > 0 ? ui.scale.session : ui.settings.ui_scale);
  if (wanted == ui.scale.applied) return;
  const bool first = ui.scale.applied == 0;
  build_ui_scale(wanted);
  ui.scale.applied = wanted;
  if (!first) { // the first atlas is uploaded by the backend's first NewFrame
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
}

/// Copies a waiting GPU frame into a run's reconstruction texture (a GPU backend with interop only).
void upload_device_frame(UiState& ui, const OpenRun& run) {
  TrainingSession& session = run.slot->session();
  auto frames = session.device_frames();
  if (!frames || !run.view->tex.recon) return;
  const void* ptr = nullptr;
  int32_t w = 0, h = 0;
  int64_t step = 0;
  if (!frames->begin_read(ptr, w, h, step)) return;
  try {
    if (run.view->tex.recon->upload_device(ptr, w, h)) {
      run.view->shown_step = step;
      run.view->frames_since_preview = 0;
    }
  } catch (const std::exception& e) {
    ui.notify(std::string("GPU preview failed, using host previews: ") + e.what(), true);
    session.enable_device_preview(false);
  }
  frames->end_read();
}

/// Housekeeping each turn besides drawing: GPU previews and the preview cadence the session is told.
/// Previews are no larger than the pane that shows them (run_command::SetPreviewLimit; the
/// window's framebuffer before the canvas is laid out), in steps of 256 pixels so that resizing
/// the window or a panel does not re-render on every frame of a drag.
int32_t preview_limit(float framebuffer_px) { return (std::max(0, int32_t(framebuffer_px)) / 256 + 1) * 256; }

struct LoopState {
  double last_host_request = 0;
  double last_autosave = 0;
  std::string title;
};

/// The runs open now, run A first: each open session's slot with its view in UiState::runs (the
/// session at index i shows as ui.runs[i]; the compared runs' are open while comparing).
std::vector<OpenRun> open_runs(UiState& ui, RunSlots& slots) {
  std::vector<OpenRun> runs;
  for (size_t i = 0; i < slots.size(); ++i)
    if (slots[i]) runs.push_back(OpenRun{slots[i].get(), &ui.runs[i], i});
  return runs;
}

/// Takes what the runs published, each run the same way (its snapshot and messages, run A's first),
/// then the news of what follows run A (the sharp zoom, the insight views, the timelapse); tells
/// the pacing rule what changed.
void take_news(UiState& ui, const std::vector<OpenRun>& runs, CompareSessions& compare, FrameEvents& ev) {
  const int64_t shown_before = ui.run_a().shown_step, timelapse_before = ui.timelapse.shown_step;
  bool fresh = false, new_rows = false;
  for (const OpenRun& run : runs) {
    SessionSnapshot& take = run.slot->take_news();
    run.slot->report_messages(ui, take);
    fresh = fresh || take.has_news();
    new_rows = new_rows || !take.rows.empty();
    take_compare_news(ui, compare, run.index, take);
    fresh = absorb_run(ui, run.index, take) || fresh;
    upload_device_frame(ui, run);
  }
  finish_compare_export(ui, compare);
  const ComparePace pace = ui.settings.compare_same_step ? ComparePace::SameStep : ComparePace::SameSecond;
  if (compare.turns->pace() != pace) compare.turns->set_pace(pace);
  TrainingSession& session = runs[0].slot->session(); // run A's: the zoom, insight and timelapse follow it
  update_zoom(ui, ui.run_a(), session);
  const bool insight_news = update_insight(ui, ui.run_a(), session);
  sync_timelapse(ui, session);
  ev.changed = ev.changed || fresh || ui.run_a().shown_step != shown_before || ui.timelapse.shown_step != timelapse_before;
  ev.minor_change = ev.minor_change || new_rows || insight_news;
}

/// What the runs' sessions should know about the screen: the preview cadence and gap (no faster
/// than frames show them), and, for GPU previews, a host copy about once a second while the error
/// map or the pixel tooltip needs host pixels. The other runs are told A's limit and gap (and keep
/// the default cadence).
void tell_sessions(UiState& ui, const std::vector<OpenRun>& runs, LoopState& st, double frame_s) {
  RunSlot& run_a = *runs[0].slot;
  TrainingSession& session = run_a.session();
  const bool device_path = ui.run_a().tex.recon && std::string_view(ui.run_a().tex.recon->kind()) == "cuda-gl";
  const bool error_shown = ui.view.mode == CanvasMode::SideBySide || ui.view.mode == CanvasMode::Error;
  if (device_path && error_shown && ui.run_a().status.running && ui.now - st.last_host_request > 1.0) {
    session.post(run_command::RequestHostPreview{});
    st.last_host_request = ui.now;
  }
  const ImVec2 fb = ImGui::GetIO().DisplaySize, scale = ImGui::GetIO().DisplayFramebufferScale;
  const bool laid_out = ui.preview_pane[0] > 0 && ui.preview_pane[1] > 0;
  const int32_t max_w = preview_limit(laid_out ? float(ui.preview_pane[0]) : fb.x * scale.x);
  const int32_t max_h = preview_limit(laid_out ? float(ui.preview_pane[1]) : fb.y * scale.y);
  run_a.tell(PreviewAsk{ui.settings.preview_every, max_w, max_h, watch_gap(ui.pacing, frame_s)});
  for (size_t i = 1; i < runs.size(); ++i)
    runs[i].slot->tell(PreviewAsk{-1, run_a.told().max_w, run_a.told().max_h, run_a.told().gap});
}

/// ImGui's frame: new frame, the main window, render into the back buffer.
void draw_frame(GLFWwindow* window, UiState& ui) {
  update_ui_scale(ui);
  const std::vector<int> held = hold_quick_taps(ui);
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  // A scripted run has no user: no pointer hovering (and tooltips) wherever the display left it,
  // only where its script puts the pointer.
  if (ui.scripted) {
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = ui.script_pointer[0] >= 0 ? ImVec2(ui.script_pointer[0] * io.DisplaySize.x,
                                                     ui.script_pointer[1] * io.DisplaySize.y)
                                            : ImVec2(-FLT_MAX, -FLT_MAX);
    io.MouseDown[0] = ui.script_mouse_down && ui.script_pointer[0] >= 0;
  }
  ImGui::NewFrame();
  ui.fps = ImGui::GetIO().Framerate;
  close_menus_on_escape();
  handle_shortcuts(ui);
  draw_main_window(ui);
  ImGui::Render();
  release_held(window, held);
  int fw = 0, fh = 0;
  glfwGetFramebufferSize(window, &fw, &fh);
  glViewport(0, 0, fw, fh);
  const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  glClearColor(bg.x, bg.y, bg.z, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

/// The autosave on quit: into the autosave folder, or, when that fails (a full disk), into the
/// private fallback folder. Returns what happened, in a line for the terminal; with
/// `must_keep` (a run the next launch is to offer) a failure everywhere says what was lost.
std::string autosave_on_quit(TrainingSession& session, AutosaveSession& autosave, bool must_keep) {
  const std::filesystem::path first = autosave.model_path();
  session.post(run_command::Autosave{first.string()});
  if (!session.flush(60.0)) return "the autosave to " + first.string() + " did not finish in time; the run is not saved";
  const std::string why = session.autosave_error();
  if (why.empty()) return "the run was autosaved to " + first.string() + "; the next launch offers to restore it";
  if (!must_keep) return "the autosave to " + first.string() + " failed: " + why;
  if (!autosave.move_to_fallback())
    return "the run could not be autosaved (" + why + "), and there is no private folder to fall back to; its unsaved "
           "training is lost";
  session.post(run_command::Autosave{autosave.model_path().string()});
  if (!session.flush(60.0) || !session.autosave_error().empty())
    return "the run could not be autosaved: " + why + "; and in " + autosave.model_path().parent_path().string() +
           ": " + session.autosave_error() + "; its unsaved training is lost";
  return "the autosave to " + first.string() + " failed (" + why + "); the run was autosaved to " +
         autosave.model_path().string() + " instead, and the next launch offers to restore it";
}

/// The autosave of every open run (the session skips it when nothing changed since the last one),
/// each compared run's beside A's (NAME-B.redraw, ...): a crash loses no run's training.
void autosave_due(UiState& ui, const std::vector<OpenRun>& runs, const AutosaveSession* autosave, LoopState& st) {
  if (!autosave || ui.settings.autosave_minutes <= 0 || ui.now - st.last_autosave < 60.0 * ui.settings.autosave_minutes)
    return;
  st.last_autosave = ui.now;
  for (const OpenRun& run : runs)
    run.slot->post(run_command::Autosave{run.slot->autosave_path(autosave->model_path().string())});
}

/// The window's loop: take the runs' news, decide whether to draw (ui/session/frame_pacing.h: a frame
/// only when something changed, at most 10 a second while training on software GL, 30 on
/// hardware, 60 while the user interacts), draw, swap, apply the frame's intents. Tests and
/// benchmarks act through `hooks` (ui/testing/frame_hooks.h).
int frame_loop(GLFWwindow* window, UiState& ui, RunSlots& slots, CompareSessions& compare,
               const AutosaveSession* autosave, FrameHooks& hooks, const TerminationSignals& signals) {
  TrainingSession& session = slots[k_run_a]->session();
  LoopState st;
  st.last_autosave = st.last_host_request = glfwGetTime();
  FrameEvents ev;    // what the pacing rule sees
  double wait_s = 0; // until the next look, as the rule said last time
  while (!glfwWindowShouldClose(window)) {
    glfwWaitEventsTimeout(wait_s); // returns at once on input
    if (signals.caught()) break;   // run_gui autosaves, then exits
    ui.now = glfwGetTime();
    const auto frame_start = std::chrono::steady_clock::now();
    const std::vector<OpenRun> runs = open_runs(ui, slots); // intents below may open or close B
    take_news(ui, runs, compare, ev);
    tell_sessions(ui, runs, st, ui.frame_ms * 1e-3);
    if (const auto code = hooks.after_news(ui, session)) return *code;

    ev.now = ui.now;
    ev.last_input = ui.last_input;
    ev.item_active = ImGui::IsAnyItemActive();
    ev.animating = ui.timelapse.playing || ui.run_a().status.busy;
    ev.training = ui.run_a().status.busy;
    for (const OpenRun& run : runs) ev.training = ev.training || run.view->status.running;
    ev.forced = hooks.forces_frames() || !ui.intents.empty();
    ev.frame_seconds = ui.frame_ms * 1e-3;
    const FrameDecision decision = decide_frame(ui.pacing, ev);
    wait_s = decision.wait_seconds;
    if (!decision.draw) continue;
    ev.last_frame = ui.now;
    ev.changed = ev.minor_change = false;
    for (const OpenRun& run : runs) ++run.view->frames_since_preview;
    if (const std::string t = window_title(ui); t != st.title) {
      st.title = t;
      glfwSetWindowTitle(window, st.title.c_str());
    }
    if (const auto code = hooks.before_draw(ui)) return *code;
    draw_frame(window, ui);
    int fw = 0, fh = 0;
    glfwGetFramebufferSize(window, &fw, &fh);
    if (const auto code = hooks.after_render(window, ui, fw, fh)) return *code;
    glfwSwapBuffers(window);
    autosave_due(ui, runs, autosave, st);

    std::vector<UiIntent> intents;
    intents.swap(ui.intents);
    for (const auto& in : intents)
      if (!apply_compare_intent(ui, compare, in) && !apply_intent(ui, session, in))
        glfwSetWindowShouldClose(window, GLFW_TRUE);

    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - frame_start).count();
    ui.frame_ms = ui.frame_ms == 0 ? spent * 1e3 : 0.9 * ui.frame_ms + 0.1 * spent * 1e3;
    perf_add_frame(ui.perf, spent * 1e3);
    if (perf_due(ui.perf, ui.now)) perf_tick(ui.perf, ui.now, host_resident_bytes());
    hooks.end_of_turn(ui);
  }
  return hooks.on_close();
}

} // namespace

namespace {
/// The launch's options over the remembered settings.
void apply_options(UiState& ui, const GuiOptions& opts) {
  ui.about.version = opts.about_version;
  ui.about.licences = parse_markdown_blocks(opts.about_licences);
  ui.about.open_requested = opts.show_about;
  if (opts.backend != k_auto_backend || ui.settings.backend.empty()) ui.settings.backend = opts.backend;
  if (!opts.precision.empty()) ui.settings.precision = opts.precision;
  ui.scale.session = opts.ui_scale;
  if (opts.show_perf) ui.settings.show_perf = true;
  ui.image_memory_override_mb = opts.max_image_memory_mb; // this session's, not remembered
  // The thread count set in the window last time, unless --threads chose one for this launch.
  if (cpu_threads_setting() == 0 && ui.settings.cpu_threads > 0) set_cpu_threads(ui.settings.cpu_threads);
}

/// ImGui on the window: its layout file (`ini`, which must outlive the context), the scale and
/// the frame pacing for the renderer found.
void start_imgui(GLFWwindow* window, UiState& ui, const TestOptions& test, const std::string& ini) {
  const char* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  ui.pacing = frame_pacing_for(renderer ? renderer : "");
  if (test.print_stats)
    std::fprintf(stderr, "gui: OpenGL %s on %s (%s GL: %.0f fps while watching)\n",
                 reinterpret_cast<const char*>(glGetString(GL_VERSION)), renderer ? renderer : "?",
                 ui.pacing.software_renderer ? "software" : "hardware", 1.0 / ui.pacing.watch_seconds);
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  // A scripted screenshot neither reads nor writes the user's window layout; no private folder:
  // no files at all.
  ImGui::GetIO().IniFilename = !test.screenshot_run() && !ini.empty() ? ini.c_str() : nullptr;
  if (const std::string notice = user_folder_notice(); !notice.empty()) {
    std::fprintf(stderr, "note: %s\n", notice.c_str());
    ui.notify(notice, autosave_folder().empty());
  }
  ui.scale.content = content_scale(window);
  update_ui_scale(ui);
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");
}

/// Autosave and crash recovery (not for the scripted screenshot runs, which quit by themselves;
/// a test script runs with autosave, its tests pointing XDG_DATA_HOME at a test folder, but is
/// offered no crashed session). Null when autosave is off.
std::unique_ptr<AutosaveSession> start_autosave(UiState& ui, const TestOptions& test) {
  std::unique_ptr<AutosaveSession> autosave;
  if (!test.screenshot_run()) {
    if (test.test_script.empty()) ui.crashed = find_crashed_sessions();
    autosave = std::make_unique<AutosaveSession>();
    if (!autosave->ok()) {
      if (!autosave_folder().empty()) ui.notify("autosave is off: cannot write " + autosave_folder().string(), true);
      autosave.reset();
    }
  }
  // Discarding an unsaved run keeps a copy beside the autosave (confirm_prompt.h).
  if (autosave && ui.settings.autosave_minutes > 0) ui.confirm.keep_folder = autosave_folder().string();
  return autosave;
}

/// The end of a session: the compared runs closed (their unsaved work kept as copies), training
/// stopped at once, the autosave on quit (and what became of it, after a signal); returns the exit
/// code.
int end_session(UiState& ui, TrainingSession& session, CompareSessions& compare, AutosaveSession* autosave,
                int code, int signal) {
  close_compare(ui, compare);
  for (size_t i = 0; autosave && i < k_max_runs; ++i) { // their autosaves served while they ran; the
    std::error_code ec;                                 // copies above hold their unsaved work
    if (i != k_run_a) std::filesystem::remove(compared_model_path(autosave->model_path().string(), i), ec);
  }
  session.post(run_command::SetRunning{false}); // a long step in progress is left: the quit saves its last finished one
  const bool unsaved = signal != 0 && ui.run_a().status.has_run && ui.run_a().status.unsaved;
  if (autosave) { // the autosave on quit, then a clean end: no restore offer next time
    const std::string outcome = autosave_on_quit(session, *autosave, unsaved);
    // Ended by a signal with training not saved: the autosave stays, and the next launch offers it.
    if (unsaved)
      std::fprintf(stderr, "redraw: %s: %s\n", termination_signal_name(signal), escape_control(outcome).c_str());
    else
      autosave->finish_clean();
  } else if (unsaved) {
    std::fprintf(stderr, "redraw: %s: autosave is off; the run's unsaved training is lost\n",
                 termination_signal_name(signal));
  }
  return signal != 0 ? 128 + signal : code;
}

/// The textures one run draws with, owned; its RunView's `tex` points at them. GL context current.
struct RunTextureSet {
  std::unique_ptr<PreviewTexture> truth = make_host_texture(), recon, error = make_host_texture(),
                                  frame = make_host_texture();
  /// `device_recon`: a device-fed preview texture, or null for a host one.
  explicit RunTextureSet(std::unique_ptr<PreviewTexture> device_recon = nullptr)
      : recon(device_recon ? std::move(device_recon) : make_host_texture()) {}
  RunTextures pointers() const { return RunTextures{truth.get(), recon.get(), error.get(), frame.get()}; }
};

/// Run A's preview texture: fed from the device when the backend may be a GPU and interop works
/// (the session is then told to hand GPU frames over), else null (a host one).
std::unique_ptr<PreviewTexture> device_recon_texture(const UiState& ui, const GuiOptions& opts, TrainingSession& a) {
  if (!may_use_gpu(ui.settings.backend)) return nullptr;
  std::string why;
  std::unique_ptr<PreviewTexture> recon = make_device_preview_texture(opts.interop.get(), &why);
  if (recon) a.enable_device_preview(true);
  return recon;
}

/// One session in the open window: the textures, the training sessions, the first load,
/// the frame loop and the end; returns the exit code. The session joins its thread and the
/// textures go before this returns, while the context is current.
int run_session(GLFWwindow* window, UiState& ui, const GuiOptions& opts, AutosaveSession* autosave, FrameHooks& hooks) {
  const TestOptions& test = opts.testing;
  RunSlots slots;                 // run A's session, and the compared runs' while comparing
  CompareSessions compare(slots); // the runs of Training > Compare with... (one device: they take turns)
  compare.make_backend = opts.make_backend;
  slots[k_run_a] = std::make_unique<RunSlot>(
      std::make_unique<TrainingSession>(opts.make_backend, opts.interop, compare.turns), "");
  RunSlot& run_a = *slots[k_run_a];
  TrainingSession& session = run_a.session();
  // Each run's textures, A's first (the others' stay while no comparison is open: RunView::forget).
  std::vector<RunTextureSet> textures;
  textures.reserve(k_max_runs);
  textures.emplace_back(device_recon_texture(ui, opts, session));
  while (textures.size() < k_max_runs)
    textures.emplace_back();
  for (size_t i = 0; i < k_max_runs; ++i)
    ui.runs[i].tex = textures[i].pointers();
  auto zoom = make_host_texture();
  ui.zoom_texture = zoom.get();
  InsightResources insight; // the Spectrum and Neuron maps windows' worker and textures
  ui.insight.res = &insight;
  ui.preset_names = preset_names();

  load_preset_into(ui, opts.preset.empty() ? ui.settings.preset : opts.preset, opts.sets);
  session.post(run_command::SetSnapshotCap{size_t(ui.settings.snapshot_cap_mb) << 20}); // kept for every run
  run_a.tell(PreviewAsk{-1, -1, -1, ui.pacing.watch_seconds});                         // no faster than frames show them
  int fb_w = 0, fb_h = 0;
  glfwGetFramebufferSize(window, &fb_w, &fb_h);
  session.post(run_command::SetPreviewLimit{preview_limit(float(fb_w)), preview_limit(float(fb_h))}); // before the first preview
  LoadRequest req = initial_load_request(opts, ui);                    // `redraw MODEL.redraw` opens the model
  ui.last_image = req.image;
  session.post(run_command::Load{std::move(req)});
  if (test.screenshot_run()) session.post(run_command::StopAt{test.screenshot_after_steps});
  if (opts.autostart || test.screenshot_run()) session.post(run_command::SetRunning{true});

  const TerminationSignals signals([] { glfwPostEmptyEvent(); });
  const int code = frame_loop(window, ui, slots, compare, autosave, hooks, signals);
  return end_session(ui, session, compare, autosave, code, signals.caught());
}
} // namespace

int run_gui(const GuiOptions& opts) {
  glfwSetErrorCallback(on_glfw_error);
  if (!glfwInit()) {
    std::fprintf(stderr, "error: cannot open a window: GLFW failed to start (is there a display? try xvfb-run)\n");
    return 1;
  }
  UiState ui;
  ui.settings = load_settings();
  // The CPU backend's measured team also tries leaving this thread (and the GL driver's work) a
  // core, on machines with 3 or more (engine/thread_budget.h).
  set_cpu_reserved_threads(1);
  const TestOptions& test = opts.testing;
  ui.scripted = test.scripted();
  std::string hook_error;
  const std::unique_ptr<FrameHooks> hooks = make_frame_hooks(test, &hook_error);
  if (!hooks) {
    std::fprintf(stderr, "error: %s\n", hook_error.c_str());
    glfwTerminate();
    return 1;
  }
  apply_options(ui, opts);
  GLFWwindow* window = open_window(ui);
  if (!window) {
    glfwTerminate();
    return 1;
  }
  std::error_code ec;
  const bool has_config = !config_folder().empty(); // no private folder: no files at all
  if (has_config) std::filesystem::create_directories(config_folder(), ec);
  const std::string ini = has_config ? imgui_ini_path().string() : std::string(); // outlives the context
  start_imgui(window, ui, test, ini);
  const std::unique_ptr<AutosaveSession> autosave = start_autosave(ui, test);
  const int code = run_session(window, ui, opts, autosave.get(), *hooks);

  int window_w = 0, window_h = 0;
  glfwGetWindowSize(window, &window_w, &window_h);
  if (!test.screenshot_run()) {
    if (has_config) ImGui::SaveIniSettingsToDisk(ini.c_str());
    if (const std::string err = save_settings(settings_for_save(ui.settings, window_w, window_h)); !err.empty())
      std::fprintf(stderr, "warning: settings not saved: %s\n", err.c_str());
  }
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return code;
}

} // namespace redraw
