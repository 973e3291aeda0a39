/// The insight views' logic without a window: the worker's spectrum and neuron-map jobs against the
/// engine computed directly, the session's parameter snapshot, the grid's order and layout, and
/// the remembered open views. Built when the GUI is (REDRAW_TEST_UI).
#include <doctest/doctest.h>

#if REDRAW_TEST_UI
#include "ui/panels/insight_views.h"
#include "ui/panels/primitives_view.h"
#include "ui/session/insight_worker.h"
#include "ui/state/settings_store.h"
#include "ui/session/training_session.h"

#include "app/backend_registry.h"
#include "ui/state/settings_flags_check.h"
#include "ui/ui_test_support.h"

#include <chrono>
#include <thread>

using namespace redraw;

namespace {
/// Polls `take` until it returns a value (at most 60 s; no timing is asserted).
template <class Take> auto wait_result(Take take) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    auto r = take();
    if (r || std::chrono::steady_clock::now() - start > std::chrono::seconds(60)) return r;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}
} // namespace

TEST_CASE("insight worker: a spectrum job gives the engine's band powers and three pictures") {
  auto truth = std::make_shared<Image>(test::gradient_image(24, 16, 3));
  auto recon = std::make_shared<Image>(*truth);
  for (size_t i = 0; i < recon->pixels.size(); ++i)
    recon->pixels[i] = 0.5f;
  InsightWorker worker;
  worker.submit(SpectrumJob{truth, recon, 7, 3});
  const auto r = wait_result([&] { return worker.take_spectrum(); });
  REQUIRE(r.has_value());
  CHECK(r->error.empty());
  CHECK(r->step == 7);
  CHECK(r->run_id == 3);
  CHECK(r->truth_rgba.size() == size_t(24 * 16 * 4));
  CHECK(r->error_rgba.size() == r->truth_rgba.size());
  SpectrumAnalyzer a(24, 16);
  const std::vector<double> want = a.error_band_power(*truth, *recon);
  REQUIRE(r->band_power.size() == want.size());
  for (size_t b = 0; b < want.size(); ++b)
    CHECK(r->band_power[b] == doctest::Approx(want[b]));
  // A mismatched preview is an error, not a crash.
  worker.submit(SpectrumJob{truth, std::make_shared<Image>(test::gradient_image(8, 8, 3)), 8, 3});
  const auto bad = wait_result([&] { return worker.take_spectrum(); });
  REQUIRE(bad.has_value());
  CHECK(!bad->error.empty());
}

TEST_CASE("insight worker: neuron maps equal the engine's, and display order and page layout") {
  RunConfig cfg = test::small_config(OptimizerKind::Adam, 0);
  auto net = std::make_shared<NetworkSnapshot>();
  net->model = cfg.model;
  net->params = initial_parameters(cfg.model, 9);
  net->step = 12;
  InsightWorker worker;
  worker.submit(NeuronJob{net, 1, 1, 10, 6, false, nullptr});
  const auto r = wait_result([&] { return worker.take_neurons(); });
  REQUIRE(r.has_value());
  REQUIRE(r->maps);
  CHECK(r->step == 12);
  const NeuronMaps want = compute_neuron_maps(net->model, net->params, {}, 1, 10, 6);
  CHECK(r->maps->values == want.values);

  const std::vector<int32_t> order = neuron_display_order(want, true);
  for (size_t i = 1; i < order.size(); ++i)
    CHECK(want.variance[size_t(order[i - 1])] >= want.variance[size_t(order[i])]);
  int32_t cols = 0, rows = 0;
  const Image page = neuron_page_image(want, order, 0, 64, false, cols, rows);
  CHECK(cols * rows >= want.units);
  CHECK(page.width == cols * (10 + k_neuron_gap) - k_neuron_gap);
  CHECK(page.height == rows * (6 + k_neuron_gap) - k_neuron_gap);
  float lo = 0, hi = 0;
  neuron_unit_range(want, 0, true, lo, hi);
  CHECK(lo == *std::min_element(want.lo.begin(), want.lo.end()));
  CHECK(hi == *std::max_element(want.hi.begin(), want.hi.end()));
}

TEST_CASE("insight: the session hands out a copy of the running network's parameters") {
  TrainingSession session(backend_factory());
  LoadRequest req;
  req.image = default_image_path().string();
  req.config = load_run_config(std::filesystem::path(REDRAW_TEST_ASSET_DIR) / "../tests/gui/gui_tiny.json");
  req.config.data.max_side = 24;
  req.backend = "cpu";
  session.post(run_command::Load{req});
  SessionStatus status;
  std::shared_ptr<const NetworkSnapshot> net;
  const auto start = std::chrono::steady_clock::now();
  bool asked = false;
  while (!net && std::chrono::steady_clock::now() - start < std::chrono::seconds(60)) {
    SessionSnapshot t = session.take();
    status = t.status;
    if (status.has_run && !asked) {
      session.post(run_command::RequestNetwork{});
      asked = true;
    }
    net = t.network;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  REQUIRE(net);
  CHECK(int64_t(net->params.size()) == parameter_count(net->model));
  CHECK(net->fourier_b.size() == size_t(net->model.encoding.features) * 2);
  CHECK(net->step == 0);
}

TEST_CASE("insight: exports write the spectrum history, the curves and the neuron grid") {
  test::TempDir dir;
  UiState ui;
  CHECK(!export_spectrum_csv(ui, (dir.path / "s.csv").string()).empty()); // nothing yet: an error, no file
  CHECK(!std::filesystem::exists(dir.path / "s.csv"));
  ui.insight.spectrum.bins = {1, 2, 3};
  ui.insight.spectrum.history = {SpectrumRow{0, {0.1, 0.2, 0.3}}, SpectrumRow{10, {0.01, 0.02, 0.03}}};
  CHECK(export_spectrum_csv(ui, (dir.path / "s.csv").string()).empty());
  CHECK(test::read_bytes(dir.path / "s.csv").size() > 20);
  ui.run_a().history = {MetricsRow{5, 0.5, 10, 1e-3, 1}, MetricsRow{10, 0.25, 12, 1e-3, 2}};
  CHECK(export_curves_csv(ui, (dir.path / "m.csv").string()).empty());
  const std::vector<uint8_t> m = test::read_bytes(dir.path / "m.csv");
  CHECK(std::count(m.begin(), m.end(), '\n') == 3);
  CHECK(std::string(m.begin(), m.end()) == metrics_csv(ui.run_a().history, {})); // metrics.csv's one writer
  RunConfig cfg = test::small_config(OptimizerKind::Adam, 0);
  auto maps =
      std::make_shared<NeuronMaps>(compute_neuron_maps(cfg.model, initial_parameters(cfg.model, 2), {}, 1, 8, 8));
  ui.insight.neurons.order = neuron_display_order(*maps, false);
  ui.insight.neurons.maps = maps;
  CHECK(export_neuron_png(ui, (dir.path / "n.png").string()).empty());
  const Image png = load_image(dir.path / "n.png");
  int32_t cols = 0, rows = 0;
  const Image page = neuron_page_image(*maps, ui.insight.neurons.order, 0, 64, false, cols, rows);
  CHECK(png.width == page.width * 4);
  CHECK(png.height == page.height * 4);
}

TEST_CASE("insight worker: a primitives job gives the engine's view of the sites, owner map and all") {
  auto net = std::make_shared<NetworkSnapshot>();
  net->model.encoding.kind = EncodingKind::Sad;
  net->model.encoding.sites = 20;
  net->model.hidden = {};
  net->model.hidden_activations = {};
  net->model.output_activation = Activation::Identity;
  net->model.output_channels = 3;
  net->params.assign(size_t(parameter_count(net->model)), 0.0f);
  for (int64_t i = 0; i < 20; ++i) { // a row of sites across the picture
    net->params[size_t(i * k_sad_floats + k_sad_mx)] = float(-0.95 + 0.1 * double(i));
    net->params[size_t(i * k_sad_floats + k_sad_colour)] = float(i) / 20.0f;
  }
  net->step = 5;
  InsightWorker worker;
  worker.submit(NeuronJob{net, 3, 0, 40, 20, true, nullptr});
  const auto r = wait_result([&] { return worker.take_neurons(); });
  REQUIRE(r.has_value());
  REQUIRE(r->error.empty());
  REQUIRE(r->primitives);
  CHECK_FALSE(r->maps);
  CHECK(r->trainer_id == 3);
  const PrimitiveView want = primitive_view(*net, 40, 20, nullptr);
  CHECK(r->primitives->owner == want.owner);
  CHECK(r->primitives->map_w == 40);
  CHECK(r->primitives->idle == want.idle);
  // Sites on a row, each 0.1 apart: each owns the columns nearest it, so the first pixel's owner is 0.
  CHECK(want.owner[0] == 0);
  CHECK(want.owner[39] == 19);
}

TEST_CASE("primitives view: the owner map's pixels are the owners' colours, the diagram's edges darkened") {
  PrimitiveView v;
  v.sites = true;
  v.map_w = 3;
  v.map_h = 2;
  v.owner = {0, 0, 1, 0, 1, -1};
  v.ellipses.resize(2);
  v.ellipses[0].rgb[0] = 1.0f, v.ellipses[0].rgb[1] = 0.5f, v.ellipses[0].rgb[2] = 0.0f;
  v.ellipses[1].rgb[0] = 0.0f, v.ellipses[1].rgb[1] = 0.2f, v.ellipses[1].rgb[2] = 1.0f;
  const std::vector<uint8_t> own = owner_map_rgba(v, 1);
  REQUIRE(own.size() == 3 * 2 * 4);
  const auto px = [&](const std::vector<uint8_t>& m, int i, int k) { return int(m[size_t(i * 4 + k)]); };
  // (0, 0): 0 to its right and below: inside, the site's colour.
  CHECK(px(own, 0, 0) == 255);
  CHECK(px(own, 0, 1) == 128);
  CHECK(px(own, 0, 3) == 255);
  // (1, 0): 1 to its right: an edge, darkened.
  CHECK(px(own, 1, 0) == 89);
  // (2, 0): 1 below is -1: an edge too; (1, 1): -1 to its right.
  CHECK(px(own, 2, 2) == 89);
  CHECK(px(own, 4, 2) == 89);
  // (0, 1): the last row, 1 to its right: an edge.
  CHECK(px(own, 3, 0) == 89);
  // No site: transparent.
  CHECK(px(own, 5, 3) == 0);
  // Distinct colours: site 0's hue is 0, so (0.55 + 0.4 cos(2 pi (0 - k / 3))) = (0.95, 0.35, 0.35).
  const std::vector<uint8_t> distinct = owner_map_rgba(v, 2);
  CHECK(px(distinct, 0, 0) == 242);
  CHECK(px(distinct, 0, 1) == 89);
  CHECK(px(distinct, 0, 2) == 89);
  CHECK(px(distinct, 0, 3) == 255);
  // A view whose map does not match its size gives a transparent picture, not a read past the end.
  v.owner.pop_back();
  const std::vector<uint8_t> broken = owner_map_rgba(v, 1);
  CHECK(std::all_of(broken.begin(), broken.end(), [](uint8_t b) { return b == 0; }));
}

TEST_CASE("insight: the open views are remembered in settings.json") {
  test::check_flags_remembered({&Settings::show_spectrum, &Settings::show_neuron_maps});
}
#endif
