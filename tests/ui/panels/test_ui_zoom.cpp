/// The sharp zoom without a window: the region on screen against hand-computed cases, and the
/// session's window render against the engine's render at twice the size. Built when the GUI is
/// (REDRAW_TEST_UI).
#include <doctest/doctest.h>

#if REDRAW_TEST_UI
#include "ui/session/training_session.h"
#include "ui/panels/zoom_view.h"

#include "app/backend_registry.h"
#include "engine/training/open_run.h"
#include "test_support.h"

#include <chrono>
#include <thread>

using namespace redraw;

TEST_CASE("zoom_region: the visible rect, its image pixels and the samples (by hand)") {
  // A 100 x 50 picture at 4 units a pixel, image point (30, 10) at the centre (210, 120) of the
  // pane (10, 20)-(410, 220): the picture's top left is at (210 - 120, 120 - 40) = (90, 80) and its
  // bottom right at (490, 280). Visible: screen x 90..410, y 80..220; image x 0..80, y 0..35.
  const ZoomRegion r = zoom_region(30, 10, 4, 10, 20, 410, 220, 1, 1, 100, 50, 1 << 20);
  CHECK(r.screen_x0 == 90);
  CHECK(r.screen_y0 == 80);
  CHECK(r.screen_x1 == 410);
  CHECK(r.screen_y1 == 220);
  CHECK(r.window.x0 == doctest::Approx(0));
  CHECK(r.window.x1 == doctest::Approx(80));
  CHECK(r.window.y0 == doctest::Approx(0));
  CHECK(r.window.y1 == doctest::Approx(35));
  CHECK(r.window.image_w == 100);
  CHECK(r.window.image_h == 50);
  CHECK(r.width == 320);
  CHECK(r.height == 140);
  CHECK(r.same_view(r));

  // HiDPI: twice the framebuffer pixels over the same rect.
  const ZoomRegion hi = zoom_region(30, 10, 4, 10, 20, 410, 220, 2, 2, 100, 50, 1 << 20);
  CHECK(hi.width == 640);
  CHECK(hi.height == 280);
  CHECK_FALSE(hi.same_view(r));
  // A cap of 1000 samples scales both sides by sqrt(1000 / 44800): 47 x 20, the same image rect.
  const ZoomRegion capped = zoom_region(30, 10, 4, 10, 20, 410, 220, 1, 1, 100, 50, 1000);
  CHECK(capped.width == 47);
  CHECK(capped.height == 20);
  CHECK(capped.window.x1 == doctest::Approx(80));
  // A fractional edge: image point (30.1, 10) puts the picture's left at 210 - 120.4 = 89.6; the
  // rect is widened outwards to the framebuffer grid, x 89..410, and the image rect follows it:
  // x0 = (89 - 89.6) / 4 = -0.15.
  const ZoomRegion frac = zoom_region(30.1f, 10, 4, 10, 20, 410, 220, 1, 1, 100, 50, 1 << 20);
  CHECK(frac.screen_x0 == 89);
  CHECK(frac.width == 321);
  CHECK(frac.window.x0 == doctest::Approx(-0.15).epsilon(1e-4));
  // The picture wholly outside the pane: nothing to render.
  CHECK(zoom_region(500, 10, 4, 10, 20, 410, 220, 1, 1, 100, 50, 1 << 20).empty());
  // Past the texels only beyond one framebuffer pixel a training pixel.
  CHECK_FALSE(zoomed_past_texels(1.0f, 1.0f));
  CHECK(zoomed_past_texels(1.5f, 1.0f));
  CHECK(zoomed_past_texels(0.75f, 2.0f));
  CHECK_FALSE(zoomed_past_texels(0.5f, 1.0f));
}

namespace {
/// Loads a 12 x 8 gradient, trained at its size on the CPU, into `session`.
void load_gradient(TrainingSession& session, const test::TempDir& dir) {
  write_png(dir.path / "src.png", test::gradient_image(12, 8, 3));
  LoadRequest req;
  req.image = (dir.path / "src.png").string();
  req.config = test::small_config(OptimizerKind::Adam, 0);
  req.config.data.max_side = 12;
  req.backend = "cpu";
  session.post(run_command::Load{req});
}

/// Takes the session's snapshots until done(snapshot) holds; false after 60 s.
template <class Done> bool step_until(TrainingSession& session, Done done) {
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(60)) {
    SessionSnapshot t = session.take();
    if (done(t)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}
} // namespace

TEST_CASE("ui session: a window render is the network drawn at twice the size, cropped; a newer request cancels") {
  test::TempDir dir;
  TrainingSession session(backend_factory());
  load_gradient(session, dir);
  auto wait = [&](auto done) { return step_until(session, done); };
  REQUIRE(wait([](const SessionSnapshot& t) { return t.status.has_run && !t.status.busy; }));
  // The top-left quarter (image 0..6 x 0..4) on a 12 x 8 grid: two samples a pixel.
  const RenderWindow quarter{0, 0, 6, 4, 12, 8};
  session.post(run_command::RenderZoom{RenderWindow{0, 0, 12, 8, 12, 8}, 300, 200, 1}); // superseded at once
  session.post(run_command::RenderZoom{quarter, 12, 8, 2});
  std::shared_ptr<const Image> got;
  uint64_t generation = 0;
  REQUIRE(wait([&](SessionSnapshot& t) {
    if (t.zoom) {
      got = t.zoom;
      generation = t.zoom_generation;
    }
    return got != nullptr;
  }));
  CHECK(generation == 2);
  REQUIRE(got->width == 12);
  REQUIRE(got->height == 8);
  // The same weights drawn whole at 24 x 16 by the command line's path.
  const std::string model = (dir.path / "m.redraw").string();
  session.post(run_command::Save{model});
  REQUIRE(session.flush(60));
  OpenRunOptions cpu;
  cpu.backend = "cpu";
  OpenedRun cli = open_run({"", model}, backend_factory(), cpu);
  const Image big = cli.trainer->render(24, 16);
  double worst = 0;
  for (int32_t y = 0; y < 8; ++y)
    for (int32_t x = 0; x < 12; ++x)
      for (int32_t c = 0; c < 3; ++c) worst = std::max(worst, double(std::abs(got->at(x, y, c) - big.at(x, y, c))));
  CHECK(worst <= 1e-6);
}

TEST_CASE("ui session: a window render of a timelapse frame draws that frame's weights; a frame not kept draws nothing") {
  test::TempDir dir;
  TrainingSession session(backend_factory());
  load_gradient(session, dir);
  std::vector<MetricsRow> frames;
  std::shared_ptr<const Image> got;
  uint64_t generation = 0;
  int64_t got_step = -1;
  auto wait = [&](auto done) { // every snapshot's frame list and window render are kept
    return step_until(session, [&](SessionSnapshot& t) {
      if (t.snapshots_changed) frames = t.snapshots;
      if (t.zoom) {
        got = t.zoom;
        generation = t.zoom_generation;
        got_step = t.zoom_step;
      }
      return done(t);
    });
  };
  REQUIRE(wait([](const SessionSnapshot& t) { return t.status.has_run && !t.status.busy; }));
  for (int i = 0; i < 12; ++i) session.post(run_command::StepOnce{});
  REQUIRE(wait([&](const SessionSnapshot& t) { return t.status.step >= 12 && frames.size() >= 3; }));
  const int64_t frame_step = frames[1].step; // an early frame: not the current weights
  REQUIRE(frame_step > 0);
  REQUIRE(frame_step < 12);
  // No frame at this step: nothing comes (the enlarged picture stays), then the frame's render.
  const RenderWindow quarter{0, 0, 6, 4, 12, 8};
  session.post(run_command::RenderZoom{quarter, 12, 8, 1, frame_step + 1000});
  REQUIRE(session.flush(60)); // the request has been served
  REQUIRE(wait([](const SessionSnapshot&) { return true; }));
  CHECK(got == nullptr);
  session.post(run_command::RenderZoom{quarter, 12, 8, 2, frame_step});
  REQUIRE(wait([&](const SessionSnapshot&) { return got != nullptr; }));
  CHECK(generation == 2);
  CHECK(got_step == frame_step);
  REQUIRE(got->width == 12);
  REQUIRE(got->height == 8);
  // The frame's weights drawn whole at 24 x 16 by the export path (float OpenEXR), and the current
  // network the same way.
  const std::string frame_exr = (dir.path / "frame.exr").string(), live_exr = (dir.path / "live.exr").string();
  session.post(run_command::ExportImage{frame_exr, 24, 16, 16, frame_step});
  session.post(run_command::ExportImage{live_exr, 24, 16, 16});
  REQUIRE(session.flush(60));
  const Image frame_big = load_image(frame_exr), live_big = load_image(live_exr);
  REQUIRE(frame_big.width == 24);
  double worst = 0, from_live = 0;
  for (int32_t y = 0; y < 8; ++y)
    for (int32_t x = 0; x < 12; ++x)
      for (int32_t c = 0; c < 3; ++c) {
        worst = std::max(worst, double(std::abs(got->at(x, y, c) - frame_big.at(x, y, c))));
        from_live = std::max(from_live, double(std::abs(got->at(x, y, c) - live_big.at(x, y, c))));
      }
  // The EXR holds linear light: its sRGB round trip moves a value by up to about 1e-4. A pixel off
  // by one in the window moves it by about 0.08 on this gradient, the current network by 0.28.
  CHECK(worst <= 1e-3);
  CHECK(from_live > 1e-2); // the frame is not the current network
}
#endif
