/// The desktop app's pure logic: parameter counts and memory estimates, schedule previews,
/// colour maps, plot ticks, settings in XDG folders. Built when the GUI is (REDRAW_TEST_UI).
#include <doctest/doctest.h>

#if REDRAW_TEST_UI
#include "ui/window/app_actions.h"
#include "ui/panels/config_summary.h"
#include "ui/session/frame_pacing.h"
#include "ui/window/gui_app.h"
#include "ui/widgets/image_views.h"
#include "ui/widgets/machine_fit.h"
#include "ui/widgets/plot_widgets.h"
#include "ui/state/settings_store.h"

#include "engine/backend_names.h"
#include "engine/backend.h"
#include "engine/thread_budget.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace redraw;

TEST_CASE("ui: the instant preset's summary counts its hash table") {
  const RunConfig c = load_preset("instant");
  const ConfigSummary s = summarize_config(c, 512, 512, 3);
  REQUIRE(s.valid);
  CHECK(s.table_parameters == encoding_parameter_count(c.model.encoding));
  CHECK(s.parameters == s.table_parameters + 6467);
  CHECK(s.table_bytes == uint64_t(s.table_parameters) * 4);
  // On the GPU the table has its gradients, m and v; the CPU's minibatch keeps no table gradients.
  CHECK(summarize_config(c, 512, 512, 3, "cuda").table_state_bytes == s.table_bytes * 4);
  CHECK(s.table_state_bytes < s.table_bytes * 4);
  CHECK(s.total_bytes() >= s.table_state_bytes);
  // Closed forms: the rollback point holds the parameters and both moments; the CPU keeps the
  // targets only (3 floats a pixel), the GPU the coordinates too.
  CHECK(s.recovery_bytes == uint64_t(s.parameters) * 4 * 3);
  CHECK(s.dataset_bytes == uint64_t(512) * 512 * 3 * 4);
  CHECK(summarize_config(c, 512, 512, 3, "cuda").dataset_bytes == uint64_t(512) * 512 * 5 * 4);
  CHECK(s.total_bytes() == s.parameter_bytes + s.recovery_bytes + s.activation_bytes + s.dataset_bytes);
  // The batch is the backend's: 2^14 pixels a step on the CPU, 2^18 (here the whole 512 x 512) on the GPU.
  CHECK(s.batch == backend_batch(c.training, "cpu"));
  CHECK(s.batch == 16384);
  CHECK(summarize_config(c, 512, 512, 3, "cuda").batch == 512 * 512);
  CHECK(summarize_config(c, 512, 512, 3, "cuda").gflop_per_step == doctest::Approx(s.gflop_per_step * 16));
}

TEST_CASE("ui: a CPU hash-grid minibatch's estimate holds a group of levels' gradients, not the table's") {
  RunConfig c = load_preset("instant");
  // Every level hashed: 16 levels of 2^14 entries x 2 features (resolutions 128 to 512).
  EncodingSpec& e = c.model.encoding;
  e.log2_hashmap_size = 14;
  e.auto_table_size = false;
  e.base_resolution = 128;
  e.finest_resolution = 512;
  e.auto_finest_resolution = false;
  const uint64_t table = 16 * 16384 * 2, params = table + 6467;
  const ConfigSummary cpu = summarize_config(c, 1000, 1000, 3, "cpu"), gpu = summarize_config(c, 1000, 1000, 3, "cuda");
  REQUIRE(cpu.valid);
  REQUIRE(gpu.valid);
  CHECK(cpu.table_parameters == int64_t(table));
  CHECK(gpu.parameter_bytes == params * 4 * 4); // weights, gradients, m, v
  // The CPU: a group of one level per core (at most 16), the 2^14 rows' dLoss/dEncoding (32 floats
  // each) and their coordinates (2) in place of the table's 2^19 gradients.
  const uint64_t group = uint64_t(std::min(cpu_core_count(), 16)) * 16384 * 2;
  const uint64_t deferred = group + 16384 * (32 + 2);
  CHECK(cpu.parameter_bytes == (params * 4 - table + deferred) * 4);
  CHECK(cpu.table_state_bytes == (table * 3 + deferred) * 4);
  // A full batch keeps the table's gradients.
  c.training.cpu_batch_size = 0;
  CHECK(summarize_config(c, 1000, 1000, 3, "cpu").parameter_bytes == params * 4 * 4);
}

TEST_CASE("ui: a CPU gaussians minibatch's estimate keeps its Gaussians' gradients (they never wait)") {
  RunConfig c = load_preset("gaussians");
  c.training.cpu_batch_size = 4096;
  const ConfigSummary cpu = summarize_config(c, 256, 256, 3, "cpu");
  REQUIRE(cpu.valid);
  REQUIRE(cpu.batch == 4096);
  const uint64_t gaussians = uint64_t(c.model.encoding.gaussians) * 8;
  CHECK(cpu.table_parameters == int64_t(gaussians));
  const int arrays = optimizer_state_arrays(c.optimizer);
  CHECK(cpu.parameter_bytes == uint64_t(cpu.parameters) * 4 * uint64_t(2 + arrays));
  CHECK(cpu.table_state_bytes == gaussians * 4 * uint64_t(2 + arrays));
}

TEST_CASE("ui: the classic-sgd preset's summary counts 99,457 parameters and Adam's state") {
  RunConfig c = load_preset("classic-sgd");
  ConfigSummary s = summarize_config(c, 200, 200, 1);
  REQUIRE(s.valid);
  CHECK(s.parameters == 99457);
  CHECK(s.samples == 40000);
  CHECK(s.batch == 40000);
  CHECK(s.parameter_bytes == uint64_t(99457) * 4 * 2); // SGD without momentum: params + grads
  CHECK(s.recovery_bytes == uint64_t(99457) * 4);      // and a copy of the params to roll back to
  c.optimizer.kind = OptimizerKind::Adam;
  s = summarize_config(c, 200, 200, 1);
  CHECK(s.parameter_bytes == uint64_t(99457) * 4 * 4); // + m and v
  c.training.batch_size = 1000;
  CHECK(summarize_config(c, 200, 200, 1).batch == 1000);
  c.model.hidden.clear();
  c.model.hidden_activations.clear();
  CHECK(summarize_config(c, 200, 200, 1).valid); // no hidden layer: a linear model is still valid
  c.model.hidden = {0};
  CHECK_FALSE(summarize_config(c, 200, 200, 1).valid);
}

TEST_CASE("ui: the schedule preview follows the cosine formula") {
  ScheduleSpec s;
  s.kind = ScheduleKind::Cosine;
  s.lr_max = 1e-2;
  s.lr_min = 1e-4;
  const auto lr = sample_schedule(s, 1000, 100);
  REQUIRE(lr.size() == 100);
  CHECK(lr.front() == doctest::Approx(1e-2));
  CHECK(lr[50] == doctest::Approx(1e-4 + (1e-2 - 1e-4) * 0.5 * (1 + std::cos(M_PI * 0.5))).epsilon(1e-4));
  CHECK(lr.back() < 2e-4);
  s.kind = ScheduleKind::Constant;
  for (float v : sample_schedule(s, 10, 5))
    CHECK(v == doctest::Approx(1e-2));
}

TEST_CASE("ui: byte formatting and scaled training sizes") {
  CHECK(format_count(99457) == "99,457");
  CHECK(format_count(1234567) == "1,234,567");
  CHECK(format_count(999) == "999");
  CHECK(format_count(-1200) == "-1,200");
  CHECK(format_bytes(512) == "512 B");
  CHECK(format_bytes(1536) == "1.5 KB");
  CHECK(format_bytes(uint64_t(3) << 30) == "3.0 GB");
  int32_t w = 0, h = 0;
  scaled_size(400, 328, 200, w, h);
  CHECK(w == 200);
  CHECK(h == 164);
  scaled_size(100, 50, 200, w, h); // never upscaled
  CHECK(w == 100);
  CHECK(h == 50);
  // The footer's size: a 400x328 image under max_side 512 trains at its own size (it showed 512x420).
  DataSpec d;
  d.max_side = 512;
  edited_training_size(400, 328, 400, 328, d, w, h);
  CHECK(w == 400);
  CHECK(h == 328);
  // Lowering max_side scales from the image file, not from the running (already reduced) size.
  d.max_side = 100;
  edited_training_size(800, 656, 400, 328, d, w, h);
  CHECK(w == 100);
  CHECK(h == 82);
  d.max_side = 600; // raised again: back up towards the image, never past it
  edited_training_size(800, 656, 100, 82, d, w, h);
  CHECK(w == 600);
  CHECK(h == 492);
  edited_training_size(0, 0, 300, 200, d, w, h); // a model without its image: its own size
  CHECK(w == 300);
  CHECK(h == 200);
  d.width = 64; // an explicit size wins
  d.height = 48;
  edited_training_size(800, 656, 400, 328, d, w, h);
  CHECK(w == 64);
  CHECK(h == 48);
}

TEST_CASE("ui: RGBA views of grey and RGB images, and the error heat map") {
  Image g;
  g.width = 2;
  g.height = 1;
  g.channels = 1;
  g.pixels = {0.0f, 1.0f};
  const auto rgba = to_rgba8(g);
  CHECK(rgba == std::vector<uint8_t>{0, 0, 0, 255, 255, 255, 255, 255});
  const auto same = error_heat_map(g, g, 4.0f);
  REQUIRE(same.size() == 8);
  const auto black = heat_color(0.0f);
  CHECK(same[0] == black[0]);
  CHECK(same[1] == black[1]);
  Image other = g;
  other.pixels = {1.0f, 0.0f};
  const auto err = error_heat_map(other, g, 1.0f);
  const auto hot = heat_color(1.0f);
  CHECK(err[0] == hot[0]);
  CHECK(err[2] == hot[2]);
  CHECK(mean_abs_error(other, g) == doctest::Approx(1.0));
  Image wrong = g;
  wrong.width = 1;
  wrong.pixels = {0.0f};
  CHECK(error_heat_map(wrong, g, 1.0f).empty());
  CHECK(error_quantile(wrong, g, 0.5f) < 0);
}

TEST_CASE("ui: the automatic error scale keeps the heat map from saturating early in training") {
  // Early in training: errors spread over [0, 0.5). A fixed gain of 4 paints half the picture the
  // brightest colour; the automatic scale (99th percentile) keeps ~1% there and shows structure.
  Image truth, pred;
  truth.width = pred.width = 100;
  truth.height = pred.height = 100;
  truth.channels = pred.channels = 1;
  truth.pixels.assign(10000, 0.0f);
  pred.pixels.resize(10000);
  for (size_t i = 0; i < pred.pixels.size(); ++i)
    pred.pixels[i] = 0.5f * float(i) / 10000.0f;
  CHECK(error_quantile(pred, truth, 0.5f) == doctest::Approx(0.25f).epsilon(0.01));
  const float full = auto_error_full_scale(pred, truth);
  CHECK(full == doctest::Approx(0.495f).epsilon(0.01));
  const auto top = heat_color(1.0f);
  auto saturated = [&](const std::vector<uint8_t>& rgba) {
    size_t n = 0;
    for (size_t i = 0; i < rgba.size(); i += 4)
      n += rgba[i] == top[0] && rgba[i + 1] == top[1] && rgba[i + 2] == top[2];
    return double(n) / double(rgba.size() / 4);
  };
  CHECK(saturated(error_heat_map(pred, truth, 4.0f)) > 0.4);
  CHECK(saturated(error_heat_map(pred, truth, 1.0f / full)) < 0.02);
  // Late in training the scale stops at one 8-bit level, so noise is not magnified without end.
  for (auto& v : pred.pixels)
    v *= 1e-4f;
  CHECK(auto_error_full_scale(pred, truth) == doctest::Approx(1.0f / 255.0f));
}

TEST_CASE("ui: a positional .redraw path opens the model, any other path the image") {
  UiState ui;
  GuiOptions o;
  o.image = "/tmp/models/cat.ReDraw";
  LoadRequest r = initial_load_request(o, ui);
  CHECK(r.model == o.image);
  CHECK(r.image.empty());
  o.image = "/tmp/cat.png";
  r = initial_load_request(o, ui);
  CHECK(r.image == o.image);
  CHECK(r.model.empty());
  o.image.clear();
  CHECK(initial_load_request(o, ui).image == default_image_path().string());
  o.model = "/tmp/a.redraw"; // --model with an image to train it on
  o.image = "/tmp/b.png";
  r = initial_load_request(o, ui);
  CHECK(r.model == "/tmp/a.redraw");
  CHECK(r.image == "/tmp/b.png");
  CHECK(is_model_path("x.REDRAW"));
  CHECK_FALSE(is_model_path("x.redraw.png"));
}

TEST_CASE("ui: the export dialog's bit depth reaches a PNG-frames timelapse") {
  FileDialogState d;
  TimelapseState tl;
  d.purpose = FileDialogPurpose::Export;
  d.export_width = 640;
  d.export_height = 480;
  d.export_bit_depth = 16;
  d.export_kind = 2;
  d.timelapse_fps = 24;
  d.timelapse_overlay = false;
  d.path = "/tmp/frames/";
  UiIntent in = export_intent(d, tl);
  REQUIRE(in.is<intent::ExportTimelapse>());
  const TimelapseOptions o = timelapse_options(*in.get<intent::ExportTimelapse>());
  CHECK(o.bit_depth == 16);
  CHECK(o.width == 640);
  CHECK(o.height == 480);
  CHECK(o.fps == doctest::Approx(24));
  CHECK_FALSE(o.overlay);
  d.path = "/tmp/lapse.gif"; // GIF is 8-bit whatever the radio button said
  CHECK(timelapse_options(*export_intent(d, tl).get<intent::ExportTimelapse>()).bit_depth == 8);
  d.export_kind = 0;
  d.path = "/tmp/x.png";
  in = export_intent(d, tl);
  REQUIRE(in.is<run_command::ExportImage>());
  CHECK(in.get<run_command::ExportImage>()->bit_depth == 16);
  CHECK(in.get<run_command::ExportImage>()->frame_step == -1);
  d.export_kind = 1;
  CHECK(export_intent(d, tl).is<run_command::ExportComparison>());
}

TEST_CASE("ui: gui --set edits the preset it starts with; a field it cannot set is said and changes nothing") {
  UiState ui;
  load_preset_into(ui, "gaussians", {"model.gaussians=5000", "schedule.lr_max=0.003"});
  REQUIRE(ui.edit.preset == "gaussians");
  CHECK(ui.edit.config.model.encoding.gaussians == 5000);
  CHECK(ui.edit.config.schedule.lr_max == doctest::Approx(0.003).epsilon(1e-12));
  CHECK(ui.edit.preset_config.model.encoding.gaussians == load_preset("gaussians").model.encoding.gaussians);
  CHECK(preset_for_run(ui.edit, ui.edit.config).empty()); // another count: shown as custom
  CHECK(ui.messages.empty());

  const RunConfig before = ui.edit.config;
  load_preset_into(ui, "siren", {"model.omega=3"});
  REQUIRE(ui.messages.size() == 1);
  CHECK(ui.messages[0].error);
  CHECK(ui.messages[0].text.find("model.omega: unknown key") != std::string::npos);
  CHECK(ui.edit.preset == "gaussians"); // as it was
  CHECK(to_json(ui.edit.config) == to_json(before));
}

TEST_CASE("ui: the preset combo says custom for a model of another shape; saved models become recent") {
  char tmpl[] = "/tmp/redraw_ui_preset_XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  setenv("XDG_CONFIG_HOME", tmpl, 1);
  setenv("XDG_DATA_HOME", tmpl, 1);
  UiState ui;
  load_preset_into(ui, "siren");
  REQUIRE(ui.edit.preset == "siren");
  RunConfig same = load_preset("siren");
  same.training.steps = 777; // a schedule or step edit keeps the preset's name
  same.schedule.lr_max = 0.5;
  CHECK(preset_for_run(ui.edit, same) == "siren");
  CHECK(preset_for_run(ui.edit, load_preset("classic")).empty());

  // A new trainer (a model made with the classic preset) while "siren" was selected.
  SessionSnapshot take;
  take.status.has_run = true;
  take.status.trainer_id = 7;
  take.status.config = load_preset("classic");
  take.saved_models = {"/tmp/somewhere/saved.redraw"};
  absorb_snapshot(ui, std::move(take));
  CHECK(ui.edit.preset.empty()); // shown as "custom"
  CHECK(ui.edit.config.model.hidden == load_preset("classic").model.hidden);
  REQUIRE_FALSE(ui.settings.recent.empty());
  CHECK(ui.settings.recent.front() == "/tmp/somewhere/saved.redraw");
  unsetenv("XDG_CONFIG_HOME");
  unsetenv("XDG_DATA_HOME");
  std::filesystem::remove_all(tmpl);
}

TEST_CASE("ui: plot ticks are 1, 2 or 5 times a power of ten") {
  CHECK(nice_tick_step(100, 5) == doctest::Approx(20));
  CHECK(nice_tick_step(1, 4) == doctest::Approx(0.2));
  CHECK(nice_tick_step(7000, 3) == doctest::Approx(2000));
  CHECK(nice_tick_step(0, 3) == doctest::Approx(1));
}

TEST_CASE("ui: the step axis shows at least two labelled ticks when they fit") {
  // 170 steps on a 130 px axis: a step of 100 would label "100" alone; 50 gives 50, 100, 150.
  CHECK(step_axis_tick(1, 170, 130, 34, 1) == doctest::Approx(50));
  // A wide axis keeps the coarse step it asked for.
  CHECK(step_axis_tick(1, 2000, 900, 40, 6) == doctest::Approx(200));
  // Finer ticks that would crowd their labels are not used: one label rather than overlaps.
  CHECK(step_axis_tick(1, 170, 60, 40, 1) == doctest::Approx(100));
  // Never below one step, and a degenerate range gives 1.
  CHECK(step_axis_tick(0, 3, 500, 20, 8) >= 1);
  CHECK(step_axis_tick(5, 5, 100, 20, 2) == doctest::Approx(1));
}

namespace {
/// Ticks strictly inside [lo, hi] (a little slack), increasing, and no two neighbours alike.
void check_ticks(double lo, double hi, bool log_axis, int target) {
  const std::vector<AxisTick> ticks = axis_ticks(lo, hi, log_axis, target);
  INFO("range [" << lo << ", " << hi << "] log " << log_axis << " target " << target);
  REQUIRE(ticks.size() >= 2);
  for (size_t i = 0; i < ticks.size(); ++i) {
    INFO("tick " << i << " '" << ticks[i].label << "'");
    CHECK(ticks[i].pos >= lo - 1e-6 * (hi - lo));
    CHECK(ticks[i].pos <= hi + 1e-6 * (hi - lo));
    CHECK_FALSE(ticks[i].label.empty());
    if (i > 0) {
      CHECK(ticks[i].pos > ticks[i - 1].pos);
      CHECK(ticks[i].label != ticks[i - 1].label);
    }
  }
}
} // namespace

TEST_CASE("ui: adjacent plot tick labels differ, on linear and log axes of any range") {
  // The audit's cases: a nearly constant learning rate and a PSNR that barely moves.
  double lo = std::log10(0.0099), hi = std::log10(0.0101);
  widen_to_min_span(lo, hi, true);
  CHECK(hi - lo == doctest::Approx(std::log10(2.0)));
  check_ticks(lo, hi, true, 4);
  lo = 22.18;
  hi = 22.31;
  widen_to_min_span(lo, hi, false);
  CHECK(hi - lo == doctest::Approx(0.02 * 22.31 + 0.0).epsilon(0.01));
  check_ticks(lo, hi, false, 4);
  for (const auto& t : axis_ticks(lo, hi, false, 4))
    CHECK(t.label.find('.') != std::string::npos); // 22.0, 22.2, ... not 22, 22, ...

  // Many ranges: every magnitude, every width from a sliver to many decades, 2 to 6 ticks.
  for (int target = 2; target <= 6; ++target)
    for (double start = -9; start <= 7; start += 0.37)
      for (double width : {1e-7, 1e-4, 0.003, 0.05, 0.2, 0.31, 0.5, 0.8, 1.0, 1.3, 1.7, 2.5, 4.0, 9.0}) {
        double a = start, b = start + width; // log axis: powers of ten
        widen_to_min_span(a, b, true);
        check_ticks(a, b, true, target);
        double la = std::pow(10.0, start), lb = la * (1 + width); // linear axis
        widen_to_min_span(la, lb, false);
        check_ticks(la, lb, false, target);
        check_ticks(-lb, -la, false, target);
        check_ticks(-la, lb, false, target); // across zero
      }
  // Labels read as numbers of the right size.
  const auto decades = axis_ticks(-4.2, -0.9, true, 4);
  CHECK(decades.front().label == "1e-04");
  const auto small = axis_ticks(std::log10(8e-6), std::log10(1.6e-5), true, 4);
  CHECK(small.front().label.find("e-0") != std::string::npos);
  const auto psnr = axis_ticks(21.9, 23.3, false, 4);
  CHECK(psnr.front().label == "22.0");
}

TEST_CASE("ui: settings and recent files round-trip through the XDG folders") {
  char tmpl[] = "/tmp/redraw_ui_settings_XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::filesystem::path dir = tmpl;
  setenv("XDG_CONFIG_HOME", (dir / "config").c_str(), 1);
  setenv("XDG_DATA_HOME", (dir / "data").c_str(), 1);
  Settings s = load_settings(); // nothing there yet: the defaults
  CHECK(s.preview_every == 10);
  CHECK(s.preset == first_launch_preset()); // a first launch: the preset that fits any machine
  s.preset = "classic";
  s.preview_every = 25;
  s.controls_width = 420;
  CHECK(s.precision == "auto");
  s.precision = "bf16";
  CHECK(s.cpu_threads == 0); // measured, until the user sets a count
  s.cpu_threads = 3;
  for (int i = 0; i < 12; ++i)
    add_recent(s, "/tmp/image" + std::to_string(i) + ".png");
  add_recent(s, "/tmp/image5.png"); // moves to the front, no duplicate
  CHECK(s.recent.size() == 10);
  CHECK(s.recent.front() == "/tmp/image5.png");
  CHECK(save_settings(s).empty());
  CHECK(std::filesystem::exists(dir / "config/redraw/settings.json"));
  CHECK(std::filesystem::exists(dir / "data/redraw/recent.json"));
  const Settings t = load_settings();
  CHECK(t.preset == "classic");
  CHECK(t.preview_every == 25);
  CHECK(t.controls_width == doctest::Approx(420));
  CHECK(t.precision == "bf16");
  CHECK(t.cpu_threads == 3);
  CHECK(t.recent == s.recent);
  CHECK(imgui_ini_path() == dir / "config/redraw/imgui.ini");
  // A corrupt file gives the defaults, never an exception.
  { std::ofstream(dir / "config/redraw/settings.json") << "{ not json"; }
  CHECK(load_settings().preview_every == 10);
  // An unknown precision in a hand-edited file falls back to auto.
  { std::ofstream(dir / "config/redraw/settings.json") << R"({"precision": "fp8"})"; }
  CHECK(load_settings().precision == "auto");
  // A negative or absurd thread count is clamped, never passed to OpenMP.
  { std::ofstream(dir / "config/redraw/settings.json") << R"({"cpu_threads": -4})"; }
  CHECK(load_settings().cpu_threads == 0);
  { std::ofstream(dir / "config/redraw/settings.json") << R"({"cpu_threads": 100000})"; }
  CHECK(load_settings().cpu_threads == k_max_cpu_threads);
  unsetenv("XDG_CONFIG_HOME");
  unsetenv("XDG_DATA_HOME");
  std::filesystem::remove_all(dir);
}
#endif
