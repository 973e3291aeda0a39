// When the window draws (ui/session/frame_pacing.h): only when something changed, capped while training,
// at full rate while the user interacts, a heartbeat otherwise. Built when the GUI is (REDRAW_TEST_UI).
#include <doctest/doctest.h>

#if REDRAW_TEST_UI
#include "ui/session/frame_pacing.h"

using namespace redraw;

namespace {
/// Training on software GL, nothing new, the last frame at t = 10 s.
FrameEvents training_at(double now) {
  FrameEvents e;
  e.now = now;
  e.last_frame = 10.0;
  e.training = true;
  return e;
}
} // namespace

TEST_CASE("frame pacing: the renderer decides the watch rate (30 fps hardware, 10 on software GL)") {
  const FramePacing hw = frame_pacing_for("NVIDIA GeForce RTX 3080/PCIe/SSE2");
  CHECK_FALSE(hw.software_renderer);
  CHECK(1.0 / hw.watch_seconds == doctest::Approx(30));
  CHECK(1.0 / hw.interact_seconds == doctest::Approx(60));
  for (const char* sw : {"llvmpipe (LLVM 15.0.6, 256 bits)", "softpipe"}) {
    const FramePacing p = frame_pacing_for(sw);
    CHECK(p.software_renderer);
    CHECK(1.0 / p.watch_seconds == doctest::Approx(10));
    CHECK(p.poll_seconds == doctest::Approx(p.watch_seconds));
    CHECK(1.0 / p.interact_seconds == doctest::Approx(60));
  }
  CHECK_FALSE(frame_pacing_for("").software_renderer);
}

TEST_CASE("frame pacing: training with nothing new draws no frame until the heartbeat") {
  const FramePacing p = frame_pacing_for("llvmpipe");
  FrameEvents e = training_at(10.2);
  FrameDecision d = decide_frame(p, e);
  CHECK_FALSE(d.draw);
  // It wakes to look for the training thread's news at the poll rate, not the frame rate.
  CHECK(d.wait_seconds == doctest::Approx(p.poll_seconds));
  e.now = 10.95;
  d = decide_frame(p, e);
  CHECK_FALSE(d.draw);
  CHECK(d.wait_seconds == doctest::Approx(0.05)); // the heartbeat is sooner than the next poll
  e.now = 11.0;
  CHECK(decide_frame(p, e).draw); // the heartbeat: the status bar's clock moves once a second
}

TEST_CASE("frame pacing: a new preview while training is drawn, but not faster than the watch rate") {
  const FramePacing p = frame_pacing_for("llvmpipe");
  FrameEvents e = training_at(10.04);
  e.changed = true;
  FrameDecision d = decide_frame(p, e);
  CHECK_FALSE(d.draw);                             // 40 ms after the last frame: too soon on software GL
  CHECK(d.wait_seconds == doctest::Approx(0.06)); // it wakes when the change may be drawn
  e.now = 10.1;
  d = decide_frame(p, e);
  CHECK(d.draw);
  CHECK(d.wait_seconds == doctest::Approx(p.poll_seconds));
  // On a hardware renderer the same change is drawn at once.
  const FramePacing hw = frame_pacing_for("AMD Radeon");
  e.now = 10.04;
  CHECK(decide_frame(hw, e).draw);
}

TEST_CASE("frame pacing: input is answered at 60 fps, also while training, for half a second after it") {
  const FramePacing p = frame_pacing_for("llvmpipe");
  FrameEvents e = training_at(10.02);
  e.last_input = 10.01;
  FrameDecision d = decide_frame(p, e);
  CHECK(d.draw); // 20 ms after the last frame: a key or a click is not held back for the watch rate
  CHECK(d.wait_seconds == doctest::Approx(p.interact_seconds));
  e.now = 10.01;
  CHECK_FALSE(decide_frame(p, e).draw); // but not twice within 1/60 s
  e.now = 10.45;
  e.last_frame = 10.43;
  CHECK(decide_frame(p, e).draw); // still inside the 0.5 s after the input
  e.now = 10.6;
  e.last_frame = 10.58;
  CHECK_FALSE(decide_frame(p, e).draw); // the input is 0.59 s old: back to the training pace
  e.item_active = true;                 // a slider held still is still an interaction
  CHECK(decide_frame(p, e).draw);
}

TEST_CASE("frame pacing: idle, the loop draws only on change or heartbeat and sleeps between looks") {
  const FramePacing p = frame_pacing_for("llvmpipe");
  FrameEvents e;
  e.now = 10.5;
  e.last_frame = 10.0;
  FrameDecision d = decide_frame(p, e);
  CHECK_FALSE(d.draw);
  CHECK(d.wait_seconds == doctest::Approx(p.idle_poll_seconds));
  e.changed = true; // a notice, a finished save: drawn at once when nothing trains
  d = decide_frame(p, e);
  CHECK(d.draw);
  CHECK(d.wait_seconds == doctest::Approx(p.idle_poll_seconds));
  e.changed = false;
  e.animating = true; // timelapse playback, paused: the full rate, next frame soon
  d = decide_frame(p, e);
  CHECK(d.draw);
  CHECK(d.wait_seconds == doctest::Approx(p.interact_seconds));
}

TEST_CASE("frame pacing: a test script or a pending command draws at every wake-up, at full rate") {
  const FramePacing p = frame_pacing_for("llvmpipe");
  FrameEvents e = training_at(10.0 + 1.0 / 60.0);
  e.forced = true;
  const FrameDecision d = decide_frame(p, e);
  CHECK(d.draw);
  CHECK(d.wait_seconds == doctest::Approx(p.interact_seconds));
  e.now = 10.005;
  CHECK_FALSE(decide_frame(p, e).draw);
  CHECK(decide_frame(p, e).wait_seconds > 0);
}

TEST_CASE("frame pacing: while training, new curve points and insight results wait for a frame there is anyway") {
  const FramePacing p = frame_pacing_for("llvmpipe");
  FrameEvents e = training_at(10.5);
  e.minor_change = true;
  FrameDecision d = decide_frame(p, e);
  CHECK_FALSE(d.draw); // no frame of its own...
  CHECK(d.wait_seconds == doctest::Approx(p.poll_seconds));
  e.changed = true; // ...but a new preview takes it along
  CHECK(decide_frame(p, e).draw);
  e.changed = false;
  e.now = 11.0; // or the heartbeat, a second after the last frame
  CHECK(decide_frame(p, e).draw);
  // Paused, the same news is drawn at once.
  FrameEvents idle;
  idle.now = 10.5;
  idle.last_frame = 10.0;
  idle.minor_change = true;
  CHECK(decide_frame(p, idle).draw);
}

TEST_CASE("frame pacing: on software GL, slow frames are spaced so drawing takes at most 5% of the time") {
  const FramePacing sw = frame_pacing_for("llvmpipe");
  CHECK(watch_gap(sw, 0.002) == doctest::Approx(0.1));  // fast frames: the 10 fps watch rate
  CHECK(watch_gap(sw, 0.030) == doctest::Approx(0.6));  // 30 ms frames: one every 0.6 s
  CHECK(watch_gap(sw, 0.200) == doctest::Approx(1.0));  // never rarer than the heartbeat
  const FramePacing hw = frame_pacing_for("NVIDIA");
  CHECK(watch_gap(hw, 0.030) == doctest::Approx(1.0 / 30.0)); // hardware GL: no share limit
  FrameEvents e = training_at(10.3);
  e.changed = true;
  e.frame_seconds = 0.030;
  FrameDecision d = decide_frame(sw, e);
  CHECK_FALSE(d.draw); // a new preview 0.3 s after a 30 ms frame waits...
  CHECK(d.wait_seconds == doctest::Approx(0.3));
  e.last_input = 10.25; // ...unless the user is at it: input is never held back
  CHECK(decide_frame(sw, e).draw);
}

TEST_CASE("preview budget: the gap a preview's cost asks for keeps previews within their share of the time") {
  // Closed form: a 40 ms preview at 15% asks for 40 * 0.85 / 0.15 = 226.7 ms before the next one.
  CHECK(preview_cost_gap(0.040) == doctest::Approx(0.040 * 0.85 / 0.15));
  CHECK(preview_cost_gap(0.040, 0.5) == doctest::Approx(0.040));
  CHECK(preview_cost_gap(0.0) == 0.0);
  CHECK(preview_cost_gap(0.040, 0.0) == 0.0); // no share given: no limit from the cost
  CHECK(preview_cost_gap(0.040, 1.0) == 0.0);
  // The training thread's loop, simulated: 12 ms steps, a preview due every 10 steps when the
  // gap since the last one allows it. Whatever the preview costs, previews take at most the share
  // (the first one aside), and a cheap one (a GPU's) is not held back: one every 10 steps.
  for (const double render : {0.002, 0.040, 0.400}) {
    CAPTURE(render);
    double now = 0, preview_time = 0, last_end = -1e9, gap = 0;
    int previews = 0;
    for (int step = 1; step <= 20000; ++step) {
      now += 0.012;
      if (step % 10 == 0 && now - last_end >= gap) {
        now += render;
        preview_time += render;
        last_end = now;
        gap = preview_cost_gap(render);
        ++previews;
      }
    }
    CHECK(preview_time / now <= k_preview_share + render / now);
    if (render == 0.002) CHECK(previews == 2000);
    else CHECK(preview_time / now >= 0.8 * k_preview_share); // the share is used, not wasted
  }
}

TEST_CASE("preview pacing: every n steps, no faster than the interval or the previews' cost allows") {
  PreviewPacing p;
  CHECK(p.due(10, 1.0)); // defaults: every 10 steps, 1/30 s apart
  CHECK_FALSE(p.due(11, 1.0));
  CHECK_FALSE(p.due(20, 0.01));
  p.set_every(0); // at least 1
  CHECK(p.due(7, 1.0));
  p.set_every(5);
  p.set_min_interval(-1); // clamped to 0..10
  CHECK(p.due(5, 0.0));
  p.set_min_interval(100);
  CHECK_FALSE(p.due(5, 9.9));
  CHECK(p.due(5, 10.0));
  p.set_min_interval(0);
  p.begin();
  p.rendered(0.040); // a 40 ms preview at the 15% share asks for its gap (preview_cost_gap)
  const double gap = preview_cost_gap(0.040);
  CHECK_FALSE(p.due(5, gap * 0.99));
  CHECK(p.due(5, gap * 1.01));
  p.set_share(1.0); // no limit from the cost: the gap starts over
  CHECK(p.due(5, 0.0));
}

TEST_CASE("preview pacing: a new size limit or a host copy asked for wants a preview, once") {
  PreviewPacing p;
  CHECK(p.limit() == PreviewSize{0, 0});
  CHECK_FALSE(p.host_wanted());
  p.set_limit(PreviewSize{320, 200});
  CHECK(p.limit() == PreviewSize{320, 200});
  p.limit_posted(PreviewSize{320, 200}); // no preview made yet at any limit: one is wanted
  CHECK(p.host_wanted());
  CHECK(p.begin() == PreviewSize{320, 200});
  p.rendered(0.001);
  CHECK_FALSE(p.host_wanted());
  p.limit_posted(PreviewSize{320, 200}); // the last preview had it: nothing new
  CHECK_FALSE(p.host_wanted());
  p.set_limit(PreviewSize{640, 400});
  p.limit_posted(PreviewSize{640, 400});
  CHECK(p.host_wanted());
  p.begin();
  p.rendered(0.001);
  p.want_host();
  CHECK(p.host_wanted());
}
#endif
