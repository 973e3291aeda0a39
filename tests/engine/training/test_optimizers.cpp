// Adam and SGD steps against values worked out by hand; schedules against their formulas.
#include "cpu/cpu_backend.h"
#include "cpu/cpu_hash_grid.h"
#include "cpu/cpu_passes.h"
#include "engine/training/schedule.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

using namespace redraw;

namespace {
std::vector<float> step_twice(const OptimizerSpec& opt, float p0, float g, float lr) {
  CpuBackend cpu;
  std::vector<float> params = {p0}, grads = {g};
  OptimizerState st;
  std::vector<float> out;
  for (int64_t step = 0; step < 2; ++step) {
    cpu.optimizer_update(opt, params, grads, st, lr, step);
    out.push_back(params[0]);
  }
  return out;
}
} // namespace

TEST_CASE("Adam: two steps by hand") {
  // step 1: m = 0.05, v = 0.00025, m^ = 0.5, v^ = 0.25 -> p = 1 - 0.1 * 0.5 / 0.5 = 0.9
  // step 2: m = 0.095, v = 0.00049975, m^ = 0.095 / 0.19 = 0.5, v^ = 0.00049975 / 0.001999 = 0.25 -> 0.8
  OptimizerSpec opt;
  opt.kind = OptimizerKind::Adam;
  opt.adam = {0.9f, 0.999f, 1e-8f, 0.0f};
  const auto p = step_twice(opt, 1.0f, 0.5f, 0.1f);
  CHECK(p[0] == doctest::Approx(0.9).epsilon(1e-6));
  CHECK(p[1] == doctest::Approx(0.8).epsilon(1e-6));
}

TEST_CASE("Adam: epsilon and weight decay") {
  // grad 0 with weight decay 0.5 on p = 2: g = 1; first step moves by lr * 1 / (1 + eps).
  OptimizerSpec opt;
  opt.kind = OptimizerKind::Adam;
  opt.adam = {0.9f, 0.999f, 1.0f, 0.5f};
  CpuBackend cpu;
  std::vector<float> params = {2.0f}, grads = {0.0f};
  OptimizerState st;
  cpu.optimizer_update(opt, params, grads, st, 0.1f, 0);
  CHECK(params[0] == doctest::Approx(2.0 - 0.1 * 1.0 / (1.0 + 1.0)).epsilon(1e-6));
  CHECK(st.first[0] == doctest::Approx(0.1).epsilon(1e-6));
  CHECK(st.second[0] == doctest::Approx(0.001).epsilon(1e-6));
}

namespace {
/// The same float, bit for bit; any NaN matches any NaN (which operand's NaN an operation passes on
/// depends on the order the compiler gives a commutative operation's operands).
bool same_bits(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof a) == 0;
}
} // namespace

TEST_CASE("Adam: the table's AVX2 sweep gives the scalar update's bits, and clears the gradients it read") {
  if (!hash_grid_detail::avx2_available()) {
    MESSAGE("SKIPPED: this CPU has no AVX2 (the scalar sweep runs everywhere)");
    return;
  }
  // Magnitudes from 1e-30 to 1e3, both signs, and the special values: zeros of both signs,
  // subnormals, infinities and NaN, in weights, gradients and moments.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f), exponent(-30.0f, 3.0f);
  const float specials[] = {0.0f, -0.0f, 1e-40f, -1e-40f, std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()};
  const auto value = [&](bool positive) {
    if (rng() % 16 == 0) return specials[rng() % 7];
    const float v = mantissa(rng) * std::pow(10.0f, exponent(rng));
    return positive || rng() % 2 ? v : -v;
  };
  const int64_t n = 1003, i0 = 5, i1 = 998; // unaligned, with a tail of fewer than eight
  std::vector<float> p(n), g(n), m(n), v(n);
  for (int64_t i = 0; i < n; ++i) {
    p[size_t(i)] = value(false);
    g[size_t(i)] = value(false);
    m[size_t(i)] = value(false);
    v[size_t(i)] = value(true);
  }
  for (const float weight_decay : {0.0f, 1e-3f}) {
    CAPTURE(weight_decay);
    const AdamParams a{0.9f, 0.99f, 1e-15f, weight_decay};
    const AdamStep s = adam_step(1e-2f, 1.0f - 0.9f * 0.9f, 1.0f - 0.99f * 0.99f);
    std::vector<float> p2 = p, g2 = g, m2 = m, v2 = v;
    const int64_t done = cpu::adam_clear_rows_avx2(a, s, p2.data(), g2.data(), m2.data(), v2.data(), i0, i1);
    CHECK(done == i0 + (i1 - i0) / 8 * 8);
    int64_t differ = 0;
    for (int64_t i = 0; i < n; ++i) {
      float pe = p[size_t(i)], me = m[size_t(i)], ve = v[size_t(i)], ge = g[size_t(i)];
      if (i >= i0 && i < done) {
        adam_update(a, s, pe, ge, me, ve);
        ge = 0.0f;
      }
      differ += !same_bits(pe, p2[size_t(i)]) || !same_bits(me, m2[size_t(i)]) || !same_bits(ve, v2[size_t(i)]) ||
                !same_bits(ge, g2[size_t(i)]);
    }
    CHECK(differ == 0);
  }
}

TEST_CASE("SGD: plain, momentum and Nesterov by hand") {
  OptimizerSpec opt;
  opt.kind = OptimizerKind::Sgd;
  opt.sgd = {0.0f, 0.0f, false};
  auto p = step_twice(opt, 1.0f, 0.5f, 0.1f);
  CHECK(p[0] == doctest::Approx(0.95));
  CHECK(p[1] == doctest::Approx(0.90));

  opt.sgd = {0.9f, 0.0f, false}; // v = 0.5 -> 0.95; p = 1 - 0.05 = 0.95 -> 0.95 - 0.095 = 0.855
  p = step_twice(opt, 1.0f, 0.5f, 0.1f);
  CHECK(p[0] == doctest::Approx(0.95));
  CHECK(p[1] == doctest::Approx(0.855));

  opt.sgd = {0.9f, 0.0f, true}; // p -= lr * (g + mu * v): 1 - 0.1 * 0.95 = 0.905; v = 0.95 -> 0.905 - 0.1 * 1.355
  p = step_twice(opt, 1.0f, 0.5f, 0.1f);
  CHECK(p[0] == doctest::Approx(0.905));
  CHECK(p[1] == doctest::Approx(0.905 - 0.1355));

  opt.sgd = {0.0f, 0.1f, false}; // g = 0.5 + 0.1 * 1 = 0.6 -> 0.94
  p = step_twice(opt, 1.0f, 0.5f, 0.1f);
  CHECK(p[0] == doctest::Approx(0.94));
}

TEST_CASE("cosine schedule follows the formula and holds at lr_min") {
  const double hi = 0.01, lo = 1e-6;
  CosineSchedule s(hi, lo, 1000);
  for (int64_t t : {0, 1, 250, 500, 999}) {
    const double want = lo + (hi - lo) * 0.5 * (1 + std::cos(M_PI * double(t) / 1000.0));
    CHECK(s.learning_rate(t) == doctest::Approx(want).epsilon(1e-12));
  }
  CHECK(s.learning_rate(500) == doctest::Approx((hi + lo) / 2));
  CHECK(s.learning_rate(1000) == lo);
  CHECK(s.learning_rate(5000) == lo);
}

TEST_CASE("warm restarts (SGDR) restart at lr_max with growing cycles") {
  WarmRestartSchedule s(1.0, 0.0, 10, 2.0); // cycles [0,10) [10,30) [30,70)
  int64_t start = 0, len = 0;
  s.cycle_of(25, start, len);
  CHECK(start == 10);
  CHECK(len == 20);
  s.cycle_of(69, start, len);
  CHECK(start == 30);
  CHECK(len == 40);
  CHECK(s.learning_rate(0) == 1.0);
  CHECK(s.learning_rate(10) == 1.0);
  CHECK(s.learning_rate(30) == 1.0);
  CHECK(s.learning_rate(5) == doctest::Approx(0.5));
  CHECK(s.learning_rate(20) == doctest::Approx(0.5));
  CHECK(s.learning_rate(50) == doctest::Approx(0.5));
  CHECK(s.learning_rate(9) < s.learning_rate(8));
  WarmRestartSchedule flat(1.0, 0.0, 10, 1.0);
  CHECK(flat.learning_rate(15) == doctest::Approx(0.5));
}

TEST_CASE("linear warm-up ramps to the nested schedule's first value") {
  ScheduleSpec spec;
  spec.kind = ScheduleKind::Cosine;
  spec.lr_max = 0.1;
  spec.lr_min = 0.0;
  spec.warmup_steps = 10;
  auto s = make_schedule(spec, 110); // cosine period = 100 after the warm-up
  CHECK(s->learning_rate(0) == doctest::Approx(0.01));
  CHECK(s->learning_rate(4) == doctest::Approx(0.05));
  CHECK(s->learning_rate(9) == doctest::Approx(0.1));
  CHECK(s->learning_rate(10) == doctest::Approx(0.1));
  CHECK(s->learning_rate(60) == doctest::Approx(0.05));
  CHECK(s->learning_rate(110) == doctest::Approx(0.0));
}

TEST_CASE("warm restarts with a non-integer multiplier restart at every cycle's first step") {
  // Cycle k lasts round(10 * 1.37^k) steps: 10, 14, 19, 26, 35, 48, 66, 90. The fifth (35.2275)
  // rounds down, which an implementation mixing the exact and the rounded length gets wrong.
  const double hi = 0.02, lo = 1e-5, mult = 1.37;
  const WarmRestartSchedule s(hi, lo, 10, mult);
  int64_t start = 0;
  for (int k = 0; k < 8; ++k) {
    const int64_t length = std::llround(10.0 * std::pow(mult, k));
    CAPTURE(k);
    CAPTURE(start);
    CAPTURE(length);
    CHECK(s.learning_rate(start) == hi);
    for (int64_t i = 0; i < length; ++i) {
      const double want = lo + (hi - lo) * 0.5 * (1.0 + std::cos(M_PI * double(i) / double(length)));
      REQUIRE(s.learning_rate(start + i) == doctest::Approx(want).epsilon(1e-12));
    }
    CHECK(s.learning_rate(start + length - 1) < lo + 0.03 * (hi - lo)); // just before the restart: near lr_min
    int64_t got_start = 0, got_length = 0;
    s.cycle_of(start + length - 1, got_start, got_length);
    CHECK(got_start == start);
    CHECK(got_length == length);
    start += length;
  }
}
