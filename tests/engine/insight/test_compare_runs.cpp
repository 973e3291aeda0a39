// Compare runs (engine/insight/compare_runs.h): run B's config, the turns two runs take on one device,
// the split view's geometry and the side-by-side picture's pixel placement.
#include "engine/insight/compare_runs.h"
#include "engine/errors.h"
#include "engine/export/overlay_text.h"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <limits>
#include <string>
#include <thread>
#include <vector>

using namespace redraw;

namespace {
RunConfig config_a() {
  RunConfig a;
  a.name = "a";
  a.model.hidden = {32, 32};
  a.model.hidden_activations = {Activation::Sine, Activation::Sine};
  a.model.omega_0 = 30.0f;
  a.schedule.lr_max = 1e-4;
  a.schedule.lr_min = 1e-5;
  a.training.seed = 77;
  a.data.max_side = 96;
  a.data.color_mode = ColorMode::Gray;
  return a;
}
} // namespace

TEST_CASE("config_with_change changes exactly one thing of run A") {
  const RunConfig a = config_a();
  CompareChange c;
  c.kind = CompareChangeKind::Activation;
  c.activation = Activation::Tanh;
  RunConfig b = config_with_change(a, c);
  CHECK(b.model.hidden_activations == std::vector<Activation>{Activation::Tanh, Activation::Tanh});
  CHECK(b.model.omega_0 == 30.0f);
  CHECK(b.schedule.lr_max == 1e-4);
  CHECK(describe_change(c) == "Tanh");

  c.kind = CompareChangeKind::Omega0;
  c.omega_0 = 60.0f;
  b = config_with_change(a, c);
  CHECK(b.model.omega_0 == 60.0f);
  CHECK(b.model.hidden_activations == a.model.hidden_activations);
  CHECK(describe_change(c) == "omega_0 60");

  c.kind = CompareChangeKind::LrMax;
  c.lr_max = 1e-6; // below A's lr_min: lr_min follows it down
  b = config_with_change(a, c);
  CHECK(b.schedule.lr_max == 1e-6);
  CHECK(b.schedule.lr_min == 1e-6);
  CHECK(b.model.omega_0 == 30.0f);
  c.lr_max = 0;
  CHECK_THROWS_AS(config_with_change(a, c), ConfigError);
}

TEST_CASE("a preset change keeps A's data spec and seed, so both runs train on the same pixels") {
  const RunConfig a = config_a();
  CompareChange c;
  c.kind = CompareChangeKind::Preset;
  c.preset_name = "fourier";
  CHECK_THROWS_AS(config_with_change(a, c), ConfigError); // no config loaded
  RunConfig p;
  p.name = "fourier";
  p.model.hidden = {256, 256, 256, 256};
  p.model.hidden_activations.assign(4, Activation::Relu);
  p.schedule.lr_max = 1e-3;
  p.training.seed = 5;
  p.data.max_side = 512;
  p.data.color_mode = ColorMode::Rgb;
  c.preset = p;
  const RunConfig b = config_with_change(a, c);
  CHECK(b.name == "fourier");
  CHECK(b.model.hidden == std::vector<int32_t>{256, 256, 256, 256});
  CHECK(b.schedule.lr_max == 1e-3);
  CHECK(b.data.max_side == 96);
  CHECK(b.data.color_mode == ColorMode::Gray);
  CHECK(b.training.seed == 77);
  CHECK(describe_change(c) == "fourier");
}

TEST_CASE("SliceTurns: a waiting run gets the device before the run that just had it") {
  SliceTurns turns;
  std::vector<char> order;
  std::mutex order_mutex;
  auto record = [&](char who) {
    std::lock_guard lock(order_mutex);
    order.push_back(who);
  };
  turns.begin_slice(); // A holds the device
  std::thread b([&] {
    turns.begin_slice();
    record('B');
    turns.end_slice();
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (turns.waiting() < 1 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK(turns.waiting() == 1); // B waits while A holds the device
  record('A');
  turns.end_slice();
  turns.begin_slice(); // A asks again at once: B, who waited, must go first
  record('A');
  turns.end_slice();
  b.join();
  CHECK(order == std::vector<char>{'A', 'B', 'A'});
  CHECK(turns.waiting() == 0);
}

TEST_CASE("SliceTurns: two runs training at once both progress, never both on the device") {
  // Stops on progress, not on time: each run must reach k_slices slices before a generous
  // deadline (a starved run fails it), and no two slices may overlap. How the scheduler spreads
  // the slices over time is its business (the order when both wait is the test above).
  constexpr int64_t k_slices = 300;
  SliceTurns turns;
  std::atomic<int> inside{0}, overlap{0};
  std::atomic<int64_t> slices[2] = {0, 0};
  std::atomic<bool> stop{false};
  auto train = [&](int who) {
    while (!stop) {
      turns.begin_slice();
      if (++inside > 1) ++overlap;
      ++slices[who];
      --inside;
      turns.end_slice();
    }
  };
  std::thread a(train, 0), b(train, 1);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while ((slices[0] < k_slices || slices[1] < k_slices) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  stop = true;
  a.join();
  b.join();
  CHECK(overlap == 0);
  CHECK(slices[0] >= k_slices);
  CHECK(slices[1] >= k_slices);
}

TEST_CASE("SliceTurns pace: same step bounds the run ahead by the other's step; same second never does") {
  SliceTurns turns;
  constexpr int64_t none = std::numeric_limits<int64_t>::max();
  turns.report(0, 10, true);
  turns.report(1, 3, true);
  CHECK(turns.pace() == ComparePace::SameSecond);
  CHECK(turns.step_bound(0) == none); // equal turns: each trains as many seconds, whatever the steps
  CHECK(turns.step_bound(1) == none);
  turns.set_pace(ComparePace::SameStep);
  CHECK(turns.step_bound(0) == 4); // A (at 10) waits: it may step only while below 4
  CHECK(turns.step_bound(1) == 11);
  CHECK_FALSE(turns.wait_to_step(0, 10, std::chrono::milliseconds(0)));
  CHECK(turns.wait_to_step(1, 3, std::chrono::milliseconds(0)));
  turns.report(1, 3, false); // B paused, finished or closed: A is not held back
  CHECK(turns.step_bound(0) == none);
  CHECK(turns.wait_to_step(0, 10, std::chrono::milliseconds(0)));
  turns.report(1, 10, true);
  CHECK(turns.step_bound(0) == 11); // level: each may go one past the other, so neither waits forever
  CHECK(turns.step_bound(1) == 11);
  CHECK(std::string(compare_pace_name(ComparePace::SameStep)) == "same step");
}

TEST_CASE("SliceTurns pace: with several runs at the same step each waits for the slowest other that trains") {
  SliceTurns turns;
  constexpr int64_t none = std::numeric_limits<int64_t>::max();
  turns.set_pace(ComparePace::SameStep);
  turns.report(0, 10, true);
  turns.report(1, 3, true);
  turns.report(2, 7, true);
  turns.report(3, 12, false); // paused: holds no one back
  CHECK(turns.step_bound(0) == 4);  // behind B (3)
  CHECK(turns.step_bound(1) == 8);  // B, the slowest, may go one past C (7)
  CHECK(turns.step_bound(2) == 4);  // behind B
  CHECK(turns.step_bound(3) == 4);  // were it to train, behind B too
  CHECK(turns.wait_to_step(1, 3, std::chrono::milliseconds(0)));
  CHECK_FALSE(turns.wait_to_step(2, 7, std::chrono::milliseconds(0)));
  turns.report(1, 3, false); // B stops: the slowest training run is C
  CHECK(turns.step_bound(0) == 8);
  CHECK(turns.step_bound(2) == 11);
  turns.report(0, 10, false);
  turns.report(2, 7, false);
  CHECK(turns.step_bound(2) == none); // alone
  CHECK(turns.step_bound(SliceTurns::k_slots) == none); // no such slot: never bound
}

TEST_CASE("SliceTurns pace: at the same step a cheap run and a dear one stay within a step, and both finish") {
  // Run A's step costs 1 unit of work, B's 20: under same second A would run far ahead. Counted
  // in steps, not time: each run ends after k_steps (then reports it no longer trains); the
  // deadline only turns a deadlock into a failure.
  constexpr int64_t k_steps = 150;
  SliceTurns turns;
  turns.set_pace(ComparePace::SameStep);
  std::atomic<int64_t> step[2] = {0, 0};
  std::atomic<int64_t> widest{0};
  std::atomic<bool> give_up{false};
  turns.report(0, 0, true);
  turns.report(1, 0, true);
  auto train = [&](int who, int cost) {
    volatile double sink = 0;
    while (step[who] < k_steps && !give_up) {
      if (!turns.wait_to_step(who, step[who], std::chrono::milliseconds(5))) continue;
      const SliceTurn turn(&turns);
      while (step[who] < std::min(k_steps, turns.step_bound(who))) {
        for (int i = 0; i < cost * 1000; ++i)
          sink = sink + 1e-9 * i;
        const int64_t now = ++step[who];
        const int64_t gap = now - step[1 - who];
        int64_t w = widest;
        while (gap > w && !widest.compare_exchange_weak(w, gap)) {
        }
        turns.report(who, now, now < k_steps);
        if (now % 4 == 0) break; // a slice's end, as the app's 30 ms slices end
      }
    }
  };
  std::thread a(train, 0, 1), b(train, 1, 20);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while ((step[0] < k_steps || step[1] < k_steps) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  give_up = true;
  a.join();
  b.join();
  CHECK(step[0] == k_steps);
  CHECK(step[1] == k_steps);
  CHECK(widest <= 1); // a run never stood more than one step past the other
}

TEST_CASE("split_view: A left of the divider, B right, the divider clamped inside the pane") {
  SplitGeometry g = split_view(100, 400, 0.25f);
  CHECK(g.divider_x == doctest::Approx(200));
  CHECK(g.a_min == 100);
  CHECK(g.a_max == doctest::Approx(200));
  CHECK(g.b_min == doctest::Approx(200));
  CHECK(g.b_max == 500);
  g = split_view(100, 400, 1.5f);
  CHECK(g.divider_x == doctest::Approx(100 + 0.98f * 400));
  g = split_view(100, 400, -1);
  CHECK(g.divider_x == doctest::Approx(100 + 0.02f * 400));
  CHECK(split_fraction_at(100, 400, 300) == doctest::Approx(0.5f));
  CHECK(split_fraction_at(100, 400, 0) == doctest::Approx(0.02f));
  CHECK(split_fraction_at(100, 400, 900) == doctest::Approx(0.98f));
  CHECK(split_fraction_at(100, 0, 300) == doctest::Approx(0.5f));
}

TEST_CASE("compose_side_by_side places A, the gap and B pixel for pixel") {
  Image a{3, 2, 1, std::vector<float>(3 * 2, 0.0f)}, b{2, 3, 3, std::vector<float>(2 * 3 * 3, 0.0f)};
  for (int32_t y = 0; y < a.height; ++y)
    for (int32_t x = 0; x < a.width; ++x)
      a.at(x, y, 0) = 0.1f * float(x + 10 * y);
  for (int32_t y = 0; y < b.height; ++y)
    for (int32_t x = 0; x < b.width; ++x)
      for (int32_t c = 0; c < 3; ++c)
        b.at(x, y, c) = 0.01f * float(c + 3 * x + 10 * y);
  const Image out = compose_side_by_side(a, b, "", "", 2, 0.5f);
  REQUIRE(out.width == 3 + 2 + 2);
  REQUIRE(out.height == 3);
  REQUIRE(out.channels == 3);
  for (int32_t y = 0; y < 3; ++y)
    for (int32_t x = 0; x < 7; ++x)
      for (int32_t c = 0; c < 3; ++c) {
        CAPTURE(x);
        CAPTURE(y);
        CAPTURE(c);
        float want = 0.5f; // the gap, and below the shorter A
        if (x < 3 && y < 2) want = 0.1f * float(x + 10 * y); // grey repeated into R, G, B
        if (x >= 5) want = 0.01f * float(c + 3 * (x - 5) + 10 * y);
        CHECK(out.at(x, y, c) == doctest::Approx(want));
      }
}

TEST_CASE("compose_side_by_side draws each label inside its own half only") {
  Image a{80, 40, 1, std::vector<float>(80 * 40, 0.0f)}, b{80, 40, 1, std::vector<float>(80 * 40, 0.0f)};
  const Image plain = compose_side_by_side(a, b, "", "", 4, 0.0f);
  const Image labelled = compose_side_by_side(a, b, "", "siren", 4, 0.0f);
  int64_t changed_a = 0, changed_b = 0;
  for (int32_t y = 0; y < plain.height; ++y)
    for (int32_t x = 0; x < plain.width; ++x) {
      const bool diff = plain.at(x, y, 0) != labelled.at(x, y, 0);
      if (x < 84) changed_a += diff;
      else changed_b += diff;
    }
  CHECK(changed_a == 0);
  CHECK(changed_b > 20);
}

TEST_CASE("run labels: every lower-case letter and the capitals of activation names draw something") {
  for (const char c : std::string("abcdefghijklmnopqrstuvwxyzABILNPRSTU_")) {
    Image img{8, 9, 1, std::vector<float>(8 * 9, 0.0f)};
    draw_text(img, 1, 1, std::string(1, c), 1);
    int lit = 0;
    for (float v : img.pixels)
      lit += v == 1.0f;
    CAPTURE(c);
    CHECK(lit >= 3);
  }
}
