#include "ui/testing/test_script.h"

#include "engine/display_text.h"
#include "ui/widgets/image_views.h"
#include "ui/widgets/preview_texture.h"
#include "ui/state/shown_runs.h"
#include "ui/panels/sweep_browser.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace redraw {
namespace {
constexpr double k_wait_timeout_s = 120;

/// GLFW key codes for a SPEC such as "ctrl+o"; empty when unknown.
std::vector<int> keys_for(std::string spec) {
  std::vector<int> keys;
  if (spec.rfind("ctrl+", 0) == 0) {
    keys.push_back(GLFW_KEY_LEFT_CONTROL);
    spec = spec.substr(5);
  }
  int k = -1;
  if (spec.size() == 1 && spec[0] >= 'a' && spec[0] <= 'z')
    k = GLFW_KEY_A + (spec[0] - 'a');
  else if (spec.size() == 1 && spec[0] >= '0' && spec[0] <= '9')
    k = GLFW_KEY_0 + (spec[0] - '0');
  else if (spec == "space")
    k = GLFW_KEY_SPACE;
  else if (spec == "escape")
    k = GLFW_KEY_ESCAPE;
  else if (spec == "enter")
    k = GLFW_KEY_ENTER;
  else if (spec == "period")
    k = GLFW_KEY_PERIOD;
  if (k < 0) return {};
  keys.push_back(k);
  return keys;
}

bool compare(const std::string& cond, const std::string& name, int64_t value, bool& known, std::string& error) {
  for (const char* op : {">=", "<=", "=="}) {
    const std::string prefix = name + op;
    if (cond.rfind(prefix, 0) != 0) continue;
    known = true;
    int64_t n = 0;
    try {
      n = std::stoll(cond.substr(prefix.size()));
    } catch (const std::exception&) {
      error = "not a number in \"" + cond + "\"";
      return false;
    }
    const std::string o = op;
    return o == ">=" ? value >= n : o == "<=" ? value <= n : value == n;
  }
  return false;
}

int64_t discarded_copies(const UiState& ui) {
  if (ui.confirm.keep_folder.empty()) return 0;
  std::error_code ec;
  int64_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(ui.confirm.keep_folder, ec))
    n += e.path().filename().string().rfind("discarded-", 0) == 0;
  return n;
}
/// Standard deviation of an image's values (0 for a blank, one-colour picture).
double spread(const Image& img) {
  double sum = 0, sq = 0;
  for (float v : img.pixels) {
    sum += v;
    sq += double(v) * v;
  }
  const double n = double(std::max<size_t>(1, img.pixels.size())), mean = sum / n;
  return std::sqrt(std::max(0.0, sq / n - mean * mean));
}

/// Runs `a` and `b` (places in UiState::runs) show different pictures, and neither is blank.
bool runs_differ(const UiState& ui, size_t a_index, size_t b_index) {
  const Image* a = ui.runs[a_index].reconstruction.get();
  const Image* b = ui.runs[b_index].reconstruction.get();
  if (!ui.compare.open || !a || !b || a->pixels.size() != b->pixels.size()) return false;
  double diff = 0;
  for (size_t i = 0; i < a->pixels.size(); ++i)
    diff += std::abs(double(a->pixels[i]) - b->pixels[i]);
  diff /= double(std::max<size_t>(1, a->pixels.size()));
  // Identical pictures (one run's shown twice) give 0; two runs of different models never do, however
  // close both come to the picture (a Gaussians run at 57 dB and a Fourier one at 39 dB differ by
  // about 0.004 on the drawing), so the bound is far below any real difference, not a quality gap.
  return diff > 1e-5 && spread(*a) > 0.02 && spread(*b) > 0.02;
}

/// compare_differs: every two runs shown show different pictures, and none is blank (false while
/// not comparing).
bool shown_runs_differ(const UiState& ui) {
  const std::vector<ShownRun> runs = shown_runs(ui);
  for (size_t i = 0; i < runs.size(); ++i)
    for (size_t k = i + 1; k < runs.size(); ++k)
      if (!runs_differ(ui, runs[i].index, runs[k].index)) return false;
  return runs.size() > 1;
}

/// compare_error_maps: the canvas shows the runs' error maps, and every run shown has one made from
/// its own picture (its error texture is the size of its picture).
bool compared_error_maps_made(const UiState& ui) {
  if (!compared_error_maps_shown(ui)) return false;
  for (const ShownRun& r : shown_runs(ui)) {
    const PreviewTexture* t = r.view->tex.error;
    const Image* picture = r.view->reconstruction.get();
    if (!t || t->empty() || !picture || t->width() != picture->width || t->height() != picture->height) return false;
  }
  return true;
}

/// The prefix of the conditions on the run at `index` of UiState::runs (run_condition): "compare_"
/// for run B (the first compared run), "run_C_" for run C, and so on.
std::string run_condition_prefix(size_t index) {
  return index == 1 ? std::string("compare_") : std::string("run_") + run_letter(index) + "_";
}

/// PREFIXstep>=N (the run's step), PREFIXshown>=N (the step of its picture on screen), PREFIXgap<=N
/// (its step and run A's apart, either way), PREFIXframe<=N (its timelapse frame on screen while
/// A's is scrubbed; -1 when none), for every run beside A (run_condition_prefix). `known`: `cond`
/// was one of them.
bool run_condition(const UiState& ui, const std::string& cond, bool& known, std::string& error) {
  bool r = false;
  for (size_t index = 0; index < k_max_runs; ++index) {
    if (index == k_run_a) continue;
    const RunView& run = ui.runs[index];
    const std::string p = run_condition_prefix(index);
    if (!known) r = compare(cond, p + "step", run.status.step, known, error);
    if (!known) r = compare(cond, p + "shown", run.shown_step, known, error);
    if (!known) r = compare(cond, p + "gap", std::abs(ui.run_a().status.step - run.status.step), known, error);
    if (!known) r = compare(cond, p + "frame", run_frame(ui, index).step, known, error);
  }
  return r;
}
} // namespace

std::string load_test_script(const std::string& path, TestScript& out) {
  std::ifstream in(path);
  if (!in) return path + ": cannot read the test script";
  std::string line;
  while (std::getline(in, line)) {
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    line = trim_blanks(line);
    if (!line.empty()) out.lines.push_back(line);
  }
  return {};
}

/// The ground truth's texture, read back from GL, holds exactly to_rgba8 of the training image.
bool truth_texels_match(const UiState& ui, std::string& error) {
  if (!ui.run_a().tex.truth || !ui.run_a().ground_truth) return false;
  std::vector<uint8_t> texels;
  if (!ui.run_a().tex.truth->read_rgba(texels)) {
    error = "the ground truth's texture cannot be read back";
    return false;
  }
  return texels == to_rgba8(*ui.run_a().ground_truth);
}

bool test_condition(const UiState& ui, const std::string& cond, std::string& error) {
  const SessionStatus& st = ui.run_a().status;
  const bool prompt = ui.confirm.holding && ui.confirm.save_path.empty();
  if (cond == "prompt") return prompt;
  if (cond == "has_run") return st.has_run && !st.busy && ui.run_a().shown_step >= 0;
  if (cond == "no_prompt") return !prompt;
  if (cond == "budget_offer") return ui.budget_offer.has_value();
  if (cond == "running") return st.running;
  if (cond == "paused") return st.has_run && !st.running;
  if (cond == "unsaved") return st.unsaved;
  if (cond == "saved") return st.has_run && !st.unsaved;
  if (cond == "scrubbed") return ui.timelapse.active;
  if (cond == "frame_shown") // the scrubbed frame's picture has arrived
    return ui.timelapse.active && ui.timelapse.frame && ui.timelapse.shown_step == ui.timelapse.wanted_step();
  if (cond == "live") return !ui.timelapse.active;
  if (cond == "comparing") return ui.compare.open;
  if (cond == "not_comparing") return !ui.compare.open;
  if (cond == "compare_differs") return shown_runs_differ(ui);
  if (cond == "compare_error_maps") return compared_error_maps_made(ui);
  if (cond == "truth_texels") return truth_texels_match(ui, error);
  if (cond == "sharp") return ui.zoom.sharp();
  if (cond == "not_sharp") return !ui.zoom.sharp();
  if (cond == "no_hover") return ui.hover_text.empty();
  if (cond.rfind("hover_has ", 0) == 0) return ui.hover_text.find(cond.substr(10)) != std::string::npos;
  if (cond.rfind("source_has ", 0) == 0) return st.source_path.find(cond.substr(11)) != std::string::npos;
  if (cond.rfind("message_has ", 0) == 0)
    return std::any_of(ui.message_log.begin(), ui.message_log.end(),
                       [&](const UiMessage& m) { return m.text.find(cond.substr(12)) != std::string::npos; });
  if (cond.rfind("file_exists ", 0) == 0) {
    std::error_code ec;
    return std::filesystem::exists(trim_blanks(cond.substr(12)), ec);
  }
  bool known = false;
  const int64_t last = ui.run_a().history.empty() ? -1 : ui.run_a().history.back().step;
  bool r = compare(cond, "step", st.step, known, error);
  if (!known) r = compare(cond, "lines", int64_t(st.lines.size()), known, error);
  if (!known) r = compare(cond, "history_last", last, known, error);
  if (!known) r = compare(cond, "discarded_copies", discarded_copies(ui), known, error);
  if (!known) r = run_condition(ui, cond, known, error);
  if (!known) r = compare(cond, "runs_shown", int64_t(shown_runs(ui).size()), known, error);
  // The cosine carrier in the edited settings (the controls) and in run A's model.
  if (!known) r = compare(cond, "edited_carrier", int64_t(ui.edit.config.model.encoding.carrier), known, error);
  if (!known) r = compare(cond, "run_carrier", int64_t(st.config.model.encoding.carrier), known, error);
  // The Gaussians or Sites view: ellipses outlined over run A's picture last frame, and the view's step.
  if (!known) r = compare(cond, "gaussians_outlined", ui.insight.primitives.drawn, known, error);
  const PrimitiveView* gv = ui.insight.primitives.view.get();
  if (!known) r = compare(cond, "gaussians_step", gv ? gv->step : -1, known, error);
  // The Sites view: the step of the owner map's texture, and the sites owning no pixel of it.
  if (!known) r = compare(cond, "owner_map_step", ui.insight.primitives.owner_shown, known, error);
  if (!known) r = compare(cond, "sites_idle", gv && gv->sites ? gv->idle : -1, known, error);
  // The growth events run A has, and the marks and ticks drawn of them last frame.
  if (!known) r = compare(cond, "growth_events", int64_t(ui.run_a().growth.size()), known, error);
  if (!known) r = compare(cond, "growth_marks", ui.growth_probe.plot_marks, known, error);
  if (!known) r = compare(cond, "growth_ticks", ui.growth_probe.slider_ticks, known, error);
  if (!known) r = compare(cond, "scrubbed_step", ui.timelapse.active ? ui.timelapse.wanted_step() : -1, known, error);
  if (!known) r = compare(cond, "frames", int64_t(ui.timelapse.frames.size()), known, error);
  if (!known) r = compare(cond, "sweep_cells", int64_t(ui.sweep.plan.cells.size()), known, error);
  const auto thumbs =
      std::count_if(ui.sweep.thumbs.begin(), ui.sweep.thumbs.end(), [](const auto& t) { return t != nullptr; });
  if (!known) r = compare(cond, "sweep_thumbs", int64_t(thumbs), known, error);
  const int64_t newest_frame = ui.timelapse.frames.empty() ? -1 : ui.timelapse.frames.back().step;
  if (!known) r = compare(cond, "frame_last", newest_frame, known, error);
  // The step of the weights the sharp zoom drew, as the training thread reported it.
  if (!known) r = compare(cond, "zoom_step", ui.zoom.shown_step, known, error);
  const Image* preview = ui.run_a().reconstruction.get();
  if (!known) r = compare(cond, "preview_w", preview ? int64_t(preview->width) : -1, known, error);
  const Image* truth = ui.run_a().ground_truth.get();
  if (!known) r = compare(cond, "truth_w", truth ? int64_t(truth->width) : -1, known, error);
  if (!known) {
    r = compare(cond, "shown", ui.run_a().shown_step, known, error);
    r = r && !ui.timelapse.active;
  }
  if (!known && error.empty()) error = "unknown condition \"" + cond + "\"";
  return r;
}

namespace {
/// What a command did: go on to the next line now, try this line again next frame, go on to the
/// next line next frame, failed (TestScript::failure says why), or was not one of this group's.
enum class Done { Next, Again, NextFrame, Failed, NotMine };

/// One script line split into its command and argument, and a failure named after it.
struct Line {
  TestScript& s;
  const std::string& text;
  std::string cmd, arg;
  Done fail(const std::string& why) const {
    s.failure = "test script line \"" + text + "\": " + why;
    return Done::Failed;
  }
};

/// The commands that wait, pace or count frames.
Done timing_command(const Line& l, UiState& ui) {
  TestScript& s = l.s;
  std::string error;
  if (l.cmd == "wait" || l.cmd == "wait_within") {
    std::string cond = l.arg;
    double timeout = k_wait_timeout_s;
    if (l.cmd == "wait_within") {
      const size_t cut = l.arg.find(' ');
      if (cut == std::string::npos) return l.fail("expected: wait_within SECONDS CONDITION");
      timeout = std::stod(l.arg.substr(0, cut));
      cond = trim_blanks(l.arg.substr(cut + 1));
    }
    if (s.wait_started < 0) s.wait_started = ui.now;
    const bool ok = test_condition(ui, cond, error);
    if (!error.empty()) return l.fail(error);
    if (!ok) {
      if (ui.now - s.wait_started > timeout)
        return l.fail("timed out after " + std::to_string(ui.now - s.wait_started) + " s");
      return Done::Again;
    }
    s.wait_started = -1;
  } else if (l.cmd == "pace") {
    if (l.arg != "real") return l.fail("expected: pace real");
    s.paced = true;
  } else if (l.cmd == "idle") {
    if (s.wait_started < 0) s.wait_started = ui.now;
    if (ui.now - s.wait_started < std::stod(l.arg)) return Done::Again;
    s.wait_started = -1;
  } else if (l.cmd == "expect_fps_at_most") {
    if (double(s.drawn.size()) > std::stod(l.arg))
      return l.fail(std::to_string(s.drawn.size()) + " frames in the last second");
  } else if (l.cmd == "expect") {
    const bool ok = test_condition(ui, l.arg, error);
    if (!error.empty()) return l.fail(error);
    if (!ok) return l.fail("does not hold");
  } else if (l.cmd == "frames") {
    s.frames_left = std::max(0, std::stoi(l.arg));
    return Done::NextFrame;
  } else if (l.cmd == "screenshot") {
    s.screenshot = l.arg; // taken after this frame is drawn
    return Done::NextFrame;
  } else if (l.cmd == "expect_quit") {
    s.expecting_quit = true;
    s.wait_started = ui.now;
    return Done::NextFrame;
  } else {
    return Done::NotMine;
  }
  return Done::Next;
}

/// The commands that act on the run: keys, drops, the timelapse, comparisons, saves.
Done run_script_command(const Line& l, UiState& ui) {
  const std::string& cmd = l.cmd;
  const std::string& arg = l.arg;
  if (cmd == "key") {
    const std::vector<int> keys = keys_for(arg);
    if (keys.empty()) return l.fail("unknown key");
    for (int k : keys)
      ui.keys_changed.push_back(k);
    ui.last_input = ui.now; // as the key callback does for a real key
    return Done::NextFrame; // one key press per frame
  } else if (cmd == "drop") {
    ui.push(intent::OpenPath{arg});
  } else if (cmd == "scrub") {
    TimelapseState& tl = ui.timelapse;
    if (tl.frames.empty()) return l.fail("no timelapse frames");
    const int64_t step = std::stoll(arg);
    int32_t i = 0;
    for (size_t k = 0; k < tl.frames.size(); ++k)
      if (tl.frames[k].step <= step) i = int32_t(k);
    tl.index = i;
    tl.active = true;
    tl.playing = false;
  } else if (cmd == "accept_budget") { // the budget offer's "Open with N MiB" button
    if (!ui.budget_offer) return l.fail("no image memory offer is open");
    ui.push(intent::OpenWithBudget{});
  } else if (cmd == "resume_here") {
    if (!ui.timelapse.active) return l.fail("no frame is scrubbed");
    ui.push(run_command::Branch{ui.timelapse.wanted_step()});
  } else if (cmd == "stop_at") { // stop_at STEP: training pauses by itself at STEP
    ui.push(run_command::StopAt{std::stoll(arg)});
  } else if (cmd == "switch_line") {
    ui.push(run_command::SwitchLine{int32_t(std::stoll(arg))});
  } else if (cmd == "exec") {
    if (const int rc = std::system(arg.c_str()); rc != 0) return l.fail("exited with " + std::to_string(rc));
  } else if (cmd == "save") { // what File > Save model does with PATH
    ui.push(intent::SaveModel{arg});
  } else if (cmd == "open_run_tree") {
    ui.timelapse.tree_open_requested = true;
  } else {
    return Done::NotMine;
  }
  return Done::Next;
}

/// The commands that set up comparisons and the view.
Done view_command(const Line& l, UiState& ui) {
  const std::string& cmd = l.cmd;
  const std::string& arg = l.arg;
  if (cmd == "compare") { // compare KIND VALUE: KIND is preset, activation, omega_0 or lr_max
    const size_t k = arg.find(' ');
    const std::string kind = arg.substr(0, k), value = k == std::string::npos ? "" : trim_blanks(arg.substr(k + 1));
    const char* kinds[] = {"preset", "activation", "omega_0", "lr_max"};
    int64_t i = 0;
    while (i < 4 && kind != kinds[i])
      ++i;
    if (i == 4 || value.empty()) return l.fail("expected compare preset|activation|omega_0|lr_max VALUE");
    ui.push(intent::OpenCompare{CompareChangeKind(i), value});
  } else if (cmd == "export_compare") { // export_compare PATH W H: File > Export, Runs side by side
    std::istringstream in(arg);
    std::string path;
    int64_t w = 0, h = 0;
    if (!(in >> path >> w >> h)) return l.fail("expected export_compare PATH W H");
    ui.push(intent::ExportCompare{path, int32_t(w), int32_t(h)});
  } else if (cmd == "compare_pace") { // compare_pace same_step|same_second: Training > Compare at the same step
    if (arg != "same_step" && arg != "same_second") return l.fail("expected compare_pace same_step|same_second");
    ui.settings.compare_same_step = arg == "same_step";
  } else if (cmd == "close_compare") { // close_compare [LETTER]: the run that goes on (a by default)
    size_t keep = k_max_runs;
    for (size_t i = 0; i < k_max_runs; ++i)
      if (arg.empty() ? i == k_run_a : arg.size() == 1 && std::toupper(static_cast<unsigned char>(arg[0])) == run_letter(i)[0])
        keep = i;
    if (keep == k_max_runs) return l.fail("expected close_compare a|b|... (a run's letter)");
    ui.push(intent::CloseCompare{keep});
  } else if (cmd == "pointer") { // pointer FX FY: the pointer there (fractions of the window); pointer off
    std::istringstream in(arg);
    float fx = -1, fy = -1; // "off" keeps these
    if (arg != "off" && (!(in >> fx >> fy) || !(fx >= 0 && fx <= 1 && fy >= 0 && fy <= 1)))
      return l.fail("expected pointer FX FY (0..1) or pointer off");
    ui.script_pointer[0] = fx;
    ui.script_pointer[1] = fy;
    return Done::NextFrame; // hovering is read when the next frame starts
  } else if (cmd == "mouse") { // mouse down|up: the left button at the script's pointer
    if (arg != "down" && arg != "up") return l.fail("expected mouse down|up");
    if (ui.script_pointer[0] < 0) return l.fail("mouse needs a pointer first (pointer FX FY)");
    ui.script_mouse_down = arg == "down";
    return Done::NextFrame; // the button is read when the next frame starts
  } else if (cmd == "compare_errors") { // compare_errors on|off: the compare toolbar's "error maps"
    if (arg != "on" && arg != "off") return l.fail("expected compare_errors on|off");
    ui.settings.compare_errors = arg == "on";
    ui.view.error_dirty = ui.view.fit_requested = true;
  } else if (cmd == "owner_map") { // owner_map off|colours|distinct [ALPHA]: the Sites window's owner map
    std::istringstream in(arg);
    std::string mode;
    float alpha = ui.insight.primitives.owner_alpha;
    in >> mode;
    const char* modes[] = {"off", "colours", "distinct"};
    int32_t m = 0;
    while (m < 3 && mode != modes[m])
      ++m;
    if (m == 3 || (!(in >> alpha) && !in.eof()) || !(alpha > 0 && alpha <= 1))
      return l.fail("expected owner_map off|colours|distinct [ALPHA in (0, 1]]");
    ui.insight.primitives.owner_mode = m;
    ui.insight.primitives.owner_alpha = alpha;
    ui.insight.primitives.owner_dirty = true;
  } else if (cmd == "outline") { // outline on|off: the Gaussians or Sites window's outlines
    if (arg != "on" && arg != "off") return l.fail("expected outline on|off");
    ui.insight.primitives.overlay = arg == "on";
  } else if (cmd == "sharp_zoom") { // sharp_zoom on|off: the toolbar's checkbox
    if (arg != "on" && arg != "off") return l.fail("expected sharp_zoom on|off");
    ui.zoom.enabled = arg == "on";
  } else if (cmd == "view") { // view MODE ZOOM CX CY: MODE is side, truth, recon or error
    std::istringstream in(arg);
    std::string mode;
    float zoom = 0, cx = 0, cy = 0;
    if (!(in >> mode >> zoom >> cx >> cy) || !(zoom > 0)) return l.fail("expected view side|truth|recon|error ZOOM CX CY");
    const char* modes[] = {"side", "truth", "recon", "error"};
    int32_t m = 0;
    while (m < 4 && mode != modes[m])
      ++m;
    if (m == 4) return l.fail("unknown view mode");
    ui.view.mode = CanvasMode(m);
    ui.view.zoom = zoom;
    ui.view.center_x = cx;
    ui.view.center_y = cy;
    ui.view.fit_requested = false;
  } else {
    return Done::NotMine;
  }
  return Done::Next;
}
} // namespace

/// File > Open sweep: the sweep browser's folder, its cells' click and Ctrl+click, Compare selected.
Done sweep_command(const Line& l, UiState& ui) {
  const std::string& cmd = l.cmd;
  int64_t cell = -1;
  if (cmd == "sweep_click" || cmd == "sweep_select") {
    try {
      cell = std::stoll(l.arg);
    } catch (const std::exception&) {
    }
    if (cell < 0 || cell >= int64_t(ui.sweep.plan.cells.size()))
      return l.fail("expected " + cmd + " CELL (an open sweep's)");
  }
  if (cmd == "open_sweep") { // open_sweep DIR: File > Open sweep, DIR typed and opened
    ui.sweep.open = true;
    ui.sweep.folder_field = l.arg;
    load_sweep_browser(ui.sweep, l.arg);
    if (!ui.sweep.error.empty()) return l.fail(ui.sweep.error);
  } else if (cmd == "sweep_sort") { // sweep_sort COLUMN asc|desc
    std::istringstream in(l.arg);
    std::string column, way;
    in >> column >> way;
    int32_t c = 0;
    while (c < k_sweep_column_count && column != sweep_column_name(SweepColumn(c)))
      ++c;
    if (c == k_sweep_column_count || (way != "asc" && way != "desc"))
      return l.fail("expected sweep_sort COLUMN asc|desc");
    ui.sweep.sort_column = c;
    ui.sweep.descending = way == "desc";
    sort_sweep_browser(ui.sweep);
  } else if (cmd == "sweep_click") {
    open_sweep_cell(ui, cell);
  } else if (cmd == "sweep_select") {
    toggle_sweep_selection(ui.sweep, cell);
  } else if (cmd == "sweep_compare") {
    if (ui.sweep.selected.size() != 2) return l.fail("sweep_compare: select two cells first");
    compare_sweep_selection(ui);
  } else {
    return Done::NotMine;
  }
  return Done::Next;
}

void run_test_script(TestScript& s, UiState& ui) {
  if (!s.failure.empty() || s.finished || s.expecting_quit) return;
  s.drawn.push_back(ui.now); // called once per drawn frame
  while (s.drawn.front() < ui.now - 1.0)
    s.drawn.pop_front();
  if (s.frames_left > 0) {
    --s.frames_left;
    return;
  }
  while (s.next < s.lines.size()) {
    const std::string& text = s.lines[s.next];
    const size_t sp = text.find(' ');
    const Line l{s, text, text.substr(0, sp), sp == std::string::npos ? std::string() : trim_blanks(text.substr(sp + 1))};
    Done done = timing_command(l, ui);
    if (done == Done::NotMine) done = run_script_command(l, ui);
    if (done == Done::NotMine) done = view_command(l, ui);
    if (done == Done::NotMine) done = sweep_command(l, ui);
    if (done == Done::NotMine) done = l.fail("unknown command");
    if (done == Done::Failed || done == Done::Again) return;
    if (done == Done::NextFrame) {
      ++s.next;
      return;
    }
    std::fprintf(stderr, "test script: %s\n", text.c_str());
    ++s.next;
  }
  s.finished = true;
}

} // namespace redraw
