// The vectorised CPU kernels (cpu/cpu_kernels.h) against the shared REDRAW_HD math they
// replace in the hot loops, and against a float64 evaluation; the thread team (cpu/team_sizer.h, engine/thread_budget.h).
#include "test_support.h"

#include "cpu/cpu_backend.h"
#include "cpu/cpu_kernels.h"
#include "cpu/team_sizer.h"
#include "engine/thread_budget.h"
#include "engine/rng_math.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <utility>

using namespace redraw;

namespace {

/// Distance in units in the last place of a float (the spacing at |ref|; the smallest normal's near 0).
double ulps(float got, double ref) {
  const double spacing = std::ldexp(1.0, std::max(std::ilogb(float(ref)), -126) - 23);
  return std::abs(double(got) - ref) / spacing;
}

constexpr Activation k_all[] = {Activation::Identity, Activation::Relu,     Activation::LeakyRelu, Activation::Tanh,
                                Activation::Sigmoid,  Activation::Softplus, Activation::Sine,      Activation::Finer,
                                Activation::Gauss,    Activation::Gabor};

/// The float arguments the kernels hand to sin, cos and exp (as the float code rounds them), so the
/// float64 formulas below are evaluated at the same points: a rounded phase of 100 moves sin by
/// 1e-5, far more than an ulp of the result.
float finer_phase(float omega, float z) { return omega * ((std::fabs(z) + 1.0f) * z); }
float gauss_exponent(float s, float z) {
  const float sz = s * z;
  return -(sz * sz);
}

/// y = f(z) in float64 from the papers' formulas (not engine/activation_math.h), for the
/// activations with a frequency or a scale; other activations: activate<double>.
double activation_f64(Activation a, float z, float omega, float s) {
  switch (a) {
  case Activation::Sine: return std::sin(double(omega * z));
  case Activation::Finer: return std::sin(double(finer_phase(omega, z)));
  case Activation::Gauss: return std::exp(double(gauss_exponent(s, z)));
  case Activation::Gabor: return std::cos(double(omega * z)) * std::exp(double(gauss_exponent(s, z)));
  default: return activate<double>(a, double(z), 1.0, 1.0);
  }
}

/// dy/dz in float64 (y: the float forward value, as the kernels get it), and the size of the
/// terms it sums (its float error is a few ulp of those, not of a small, cancelled result).
std::pair<double, double> derivative_f64(Activation a, float z, float y, float omega, float s) {
  const double zd = z, w = omega, sd = s, m = std::fabs(zd);
  switch (a) {
  case Activation::Sine: return {w * std::cos(double(omega * z)), w};
  case Activation::Finer: return {w * (2 * m + 1) * std::cos(double(finer_phase(omega, z))), w * (2 * m + 1)};
  case Activation::Gauss: return {-2 * sd * sd * zd * double(y), 2 * sd * sd * m * std::fabs(double(y))};
  case Activation::Gabor: {
    const double e = std::exp(double(gauss_exponent(s, z))), phase = double(omega * z);
    return {-e * (w * std::sin(phase) + 2 * sd * sd * zd * std::cos(phase)), e * (w + 2 * sd * sd * m)};
  }
  default: return {activate_derivative<double>(a, zd, double(y), 1.0, 1.0), 1.0};
  }
}

/// Inputs that cover each function's interesting ranges: saturation, zero crossings, large phases.
std::vector<float> inputs(Activation a, int n, uint32_t seed) {
  std::mt19937 rng(seed);
  // sin(30 z): phases up to 120; FINER's up to 30 * 3 * 2; Gauss and Gabor (s = 10) to exp(-16).
  const float range = a == Activation::Sine    ? 4.0f
                      : a == Activation::Finer ? 2.0f
                      : a == Activation::Gauss || a == Activation::Gabor ? 0.4f
                                                                        : 25.0f;
  std::uniform_real_distribution<float> u(-range, range);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v)
    x = u(rng);
  v[0] = 0.0f;
  v[1] = 1e-6f;
  v[2] = -1e-3f;
  return v;
}

} // namespace

TEST_CASE("every kernel variant matches the shared activation math within 4 ulp (Gabor 6), and float64 too") {
  const auto variants = cpu_kernel_variants();
  REQUIRE(!variants.empty());
  MESSAGE("kernel variants on this CPU: " << variants.size() << ", chosen: " << std::string(cpu_kernels().isa));
  const int32_t out = 37; // not a multiple of any vector width: the remainder loop is checked too
  const int64_t rows = 29;
  const float omega = 30.0f, scale = 10.0f;
  for (const CpuKernels* k : variants) {
    for (Activation a : k_all) {
      const std::string isa = k->isa, name = activation_name(a);
      CAPTURE(isa);
      CAPTURE(name);
      const std::vector<float> z0 = inputs(a, int(rows * out), 7);
      std::vector<float> bias(static_cast<size_t>(out));
      for (int32_t j = 0; j < out; ++j)
        bias[size_t(j)] = 0.01f * float(j - out / 2);
      std::vector<float> z = z0, y(z0.size(), -7.0f);
      k->bias_activate(a, z.data(), y.data(), bias.data(), 1, rows, out, omega, scale); // row 0 untouched
      double worst_ref = 0, worst_f64 = 0;
      for (int64_t r = 0; r < rows; ++r)
        for (int32_t j = 0; j < out; ++j) {
          const size_t e = size_t(r * out + j);
          if (r == 0) {
            CHECK(y[e] == -7.0f);
            CHECK(z[e] == z0[e]);
            continue;
          }
          const float v = z0[e] + bias[size_t(j)];
          REQUIRE(z[e] == v);
          const float ref = activate<float>(a, v, omega, scale);
          // float64 at the same argument (the float product omega * v, as both float paths take it).
          const double ref64 = activation_f64(a, v, omega, scale);
          worst_ref = std::max(worst_ref, ulps(y[e], double(ref)));
          worst_f64 = std::max(worst_f64, ulps(y[e], ref64));
        }
      // Gabor multiplies two results of libmvec's SIMD cosf and expf and rounds the product: two
      // errors, not one (measured: 4 ulp from the scalar float code, 3.4 from float64, avx2).
      const double bound = a == Activation::Gabor ? 6.0 : 4.0;
      CHECK(worst_ref <= bound);
      CHECK(worst_f64 <= bound);

      // The derivative, with y from the reference.
      std::vector<float> g(z0.size()), yv(z0.size());
      for (size_t e = 0; e < z0.size(); ++e) {
        yv[e] = activate<float>(a, z0[e], omega, scale);
        g[e] = 0.5f + 0.001f * float(e % 97);
      }
      std::vector<float> g_out = g;
      k->activation_backward(a, g_out.data(), z0.data(), yv.data(), 3, int64_t(z0.size()) - 2, omega, scale);
      double worst_d = 0, worst_d64 = 0;
      for (size_t e = 0; e < z0.size(); ++e) {
        if (e < 3 || e >= z0.size() - 2) {
          CHECK(g_out[e] == g[e]);
          continue;
        }
        const float ref = g[e] * activate_derivative<float>(a, z0[e], yv[e], omega, scale);
        const auto [d64, size] = derivative_f64(a, z0[e], yv[e], omega, scale);
        // Derivatives such as 1 - y^2 cancel: their float error is a few ulp of the terms (|g|, or
        // |g| omega for the sine), not of the small result; FMA contraction may also fuse them.
        const double terms = std::abs(double(g[e])) * size;
        const double floor = 4.0 * std::numeric_limits<float>::epsilon() * terms;
        const double spacing = std::ldexp(1.0, std::max(std::ilogb(ref), -126) - 23);
        worst_d = std::max(worst_d, std::abs(double(g_out[e]) - double(ref)) / (4.0 * spacing + floor));
        worst_d64 = std::max(worst_d64, std::abs(double(g_out[e]) - double(g[e]) * d64) / (6.0 * spacing + floor));
      }
      CHECK(worst_d <= 1.0);
      CHECK(worst_d64 <= 1.0);
    }
  }
}

TEST_CASE("the vectorised Fourier encoding matches encoding_value and a float64 evaluation") {
  EncodingSpec spec;
  spec.kind = EncodingKind::Fourier;
  spec.features = 19;
  spec.sigma = 10.0f;
  const std::vector<float> b = fourier_matrix(spec, 5);
  const int64_t n = 41;
  std::vector<float> coords(size_t(2 * n));
  for (int64_t i = 0; i < n; ++i) {
    coords[size_t(2 * i)] = pixel_centre<float>(i, n);
    coords[size_t(2 * i + 1)] = pixel_centre<float>((i * 7) % n, n);
  }
  const int32_t w = 2 * spec.features;
  for (const CpuKernels* k : cpu_kernel_variants()) {
    const std::string isa = k->isa;
    CAPTURE(isa);
    std::vector<float> out(size_t(n * w), -9.0f);
    k->fourier_encode(b.data(), spec.features, coords.data(), 0, n, out.data());
    double worst = 0, worst64 = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int32_t j = 0; j < w; ++j) {
        const float x = coords[size_t(2 * i)], y = coords[size_t(2 * i + 1)];
        const float got = out[size_t(i * w + j)];
        const float ref = encoding_value<float>(spec.params(), b.data(), x, y, j);
        const int32_t f = j % spec.features;
        const double phase = k_pi * (double(b[size_t(2 * f)]) * x + double(b[size_t(2 * f + 1)]) * y);
        const double ref64 = j < spec.features ? std::sin(phase) : std::cos(phase);
        // The float phase itself is within a few ulp of |phase| (FMA may fuse it): the bound scales with it.
        const double tol = 8.0 * std::numeric_limits<float>::epsilon() * std::max(1.0, std::abs(phase));
        worst = std::max(worst, std::abs(double(got) - double(ref)) / tol);
        worst64 = std::max(worst64, std::abs(double(got) - ref64) / tol);
      }
    CHECK(worst <= 1.0);
    CHECK(worst64 <= 1.0);
  }
  // The backend's encode() goes through the kernels.
  CpuBackend cpu;
  std::vector<float> via_backend(size_t(n * w));
  cpu.encode(spec, b, coords.data(), n, via_backend.data());
  std::vector<float> direct(size_t(n * w));
  cpu_kernels().fourier_encode(b.data(), spec.features, coords.data(), 0, n, direct.data());
  CHECK(via_backend == direct);
}

TEST_CASE("the thin-layer kernels match a float64 product for every shape with a side of at most 4") {
  // (in, out): the 2 coordinates in, 1 or 3 colours out, both thin, and odd wide sides that leave
  // a vector remainder. 1100 rows: more than two of the weight gradient's 512-row blocks.
  const int32_t shapes[][2] = {{2, 256}, {2, 37}, {3, 5}, {4, 17}, {256, 3}, {37, 1}, {19, 4}, {1, 1}, {4, 4}};
  const int64_t rows = 1100;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (const auto& shape : shapes) {
    const int32_t in = shape[0], out = shape[1];
    CAPTURE(in);
    CAPTURE(out);
    REQUIRE(is_thin_layer(in, out));
    std::vector<float> x(size_t(rows * in)), w(size_t(out) * size_t(in)), g(size_t(rows * out));
    for (auto* v : {&x, &w, &g})
      for (float& e : *v)
        e = u(rng);
    // float64 references: z = x W^T, dx = g W, dW = g^T x.
    std::vector<double> z64(size_t(rows * out), 0.0), dx64(size_t(rows * in), 0.0), dw64(w.size(), 0.0);
    for (int64_t r = 0; r < rows; ++r)
      for (int32_t o = 0; o < out; ++o)
        for (int32_t i = 0; i < in; ++i) {
          const double xv = x[size_t(r * in + i)], wv = w[size_t(o * in + i)], gv = g[size_t(r * out + o)];
          z64[size_t(r * out + o)] += xv * wv;
          dx64[size_t(r * in + i)] += gv * wv;
          dw64[size_t(o * in + i)] += gv * xv;
        }
    // Error bound of a float sum of n terms of size <= 1 (with room for FMA and the block sums).
    const auto bound = [](int64_t n) { return 2.0 * double(n) * std::numeric_limits<float>::epsilon(); };
    const int32_t wide = out <= k_thin_width ? in : out;
    for (const CpuKernels* k : cpu_kernel_variants()) {
      const std::string isa = k->isa;
      CAPTURE(isa);
      std::vector<float> z(z64.size(), -7.0f), dx(dx64.size(), -7.0f);
      // Two row ranges, as two threads would split them.
      k->thin_forward(x.data(), w.data(), z.data(), 0, 500, in, out);
      k->thin_forward(x.data(), w.data(), z.data(), 500, rows, in, out);
      k->thin_input_grad(g.data(), w.data(), dx.data(), 0, 700, in, out);
      k->thin_input_grad(g.data(), w.data(), dx.data(), 700, rows, in, out);
      double zerr = 0, dxerr = 0, dwerr = 0;
      for (size_t e = 0; e < z.size(); ++e)
        zerr = std::max(zerr, std::abs(double(z[e]) - z64[e]) / bound(in));
      for (size_t e = 0; e < dx.size(); ++e)
        dxerr = std::max(dxerr, std::abs(double(dx[e]) - dx64[e]) / bound(out));
      CHECK(zerr <= 1.0);
      CHECK(dxerr <= 1.0);
      // The weight gradient, whole and split over the wide side in three: bit-identical, and
      // accumulate adds to what is there.
      std::vector<float> whole(w.size(), -7.0f), split(w.size(), -7.0f);
      k->thin_weight_grad(g.data(), x.data(), whole.data(), rows, in, out, 0, wide, false);
      const int32_t a = wide / 3, b = 2 * wide / 3;
      k->thin_weight_grad(g.data(), x.data(), split.data(), rows, in, out, 0, a, false);
      k->thin_weight_grad(g.data(), x.data(), split.data(), rows, in, out, a, b, false);
      k->thin_weight_grad(g.data(), x.data(), split.data(), rows, in, out, b, wide, false);
      CHECK(whole == split);
      for (size_t e = 0; e < whole.size(); ++e)
        dwerr = std::max(dwerr, std::abs(double(whole[e]) - dw64[e]) / bound(512 + rows / 512));
      CHECK(dwerr <= 1.0);
      std::vector<float> twice = whole;
      k->thin_weight_grad(g.data(), x.data(), twice.data(), rows, in, out, 0, wide, true);
      for (size_t e = 0; e < whole.size(); ++e)
        CHECK(twice[e] == doctest::Approx(2.0 * whole[e]).epsilon(1e-6));
    }
  }
}

TEST_CASE("TeamSizer: measures every candidate, keeps the fastest, prefers a smaller team on a near tie") {
  SUBCASE("fixed") {
    TeamSizer t(8, 3);
    for (int i = 0; i < 50; ++i) {
      CHECK(t.team() == 3);
      t.record(1.0);
    }
  }
  SUBCASE("one core: nothing to measure") {
    TeamSizer t(1);
    CHECK(t.candidates() == std::vector<int>{1});
    t.record(1.0);
    CHECK(t.team() == 1);
  }
  // A machine where a step takes `cost(team)` seconds.
  auto settle = [](TeamSizer& t, auto cost) {
    for (int i = 0; i < 3 * TeamSizer::k_probe_steps; ++i)
      t.record(cost(t.team()));
    return t.team();
  };
  SUBCASE("two quiet cores: two threads") {
    TeamSizer t(2);
    CHECK(t.candidates() == std::vector<int>{2, 1});
    CHECK(settle(t, [](int n) { return n == 2 ? 0.55 : 1.0; }) == 2);
  }
  SUBCASE("a busy neighbour: one thread") {
    TeamSizer t(2);
    CHECK(settle(t, [](int n) { return n == 2 ? 3.0 : 1.0; }) == 1);
  }
  SUBCASE("within 5%: the smaller team leaves the neighbour its share") {
    TeamSizer t(2);
    CHECK(settle(t, [](int n) { return n == 2 ? 0.98 : 1.0; }) == 1);
  }
  SUBCASE("eight cores: the half team wins") {
    TeamSizer t(8);
    CHECK(t.candidates() == std::vector<int>{8, 4, 1});
    CHECK(settle(t, [](int n) { return n == 8 ? 0.5 : (n == 4 ? 0.3 : 1.0); }) == 4);
  }
  SUBCASE("a reserved thread (the GUI's): all cores but one is measured too, never forced") {
    CHECK(TeamSizer(8, 0, 1).candidates() == std::vector<int>{8, 7, 4, 1});
    CHECK(TeamSizer(4, 0, 1).candidates() == std::vector<int>{4, 3, 2, 1});
    CHECK(TeamSizer(3, 0, 1).candidates() == std::vector<int>{3, 2, 1});
    CHECK(TeamSizer(2, 0, 1).candidates() == std::vector<int>{2, 1}); // two cores: one thread is already a candidate
    CHECK(TeamSizer(4, 0, 2).candidates() == std::vector<int>{4, 2, 1});
    // Four candidates: one probe is 4 x k_probe_steps steps.
    const auto settle4 = [](TeamSizer& t, double t8, double t7) {
      for (int i = 0; i < 4 * TeamSizer::k_probe_steps; ++i)
        t.record(t.team() == 8 ? t8 : (t.team() == 7 ? t7 : (t.team() == 4 ? 0.3 : 1.0)));
      return t.team();
    };
    TeamSizer busy(8, 0, 1); // the window's drawing stalls a full team: seven threads win
    CHECK(settle4(busy, 0.5, 0.2) == 7);
    TeamSizer quiet(8, 0, 1); // nothing to leave room for: the full team stays
    CHECK(settle4(quiet, 0.15, 0.2) == 8);
  }
}

TEST_CASE("TeamSizer: the first step at a size is not counted, and a choice is measured again later") {
  SUBCASE("the first step at a size is not counted, and the choice is measured again later") {
    TeamSizer t(2);
    int previous = -1;
    // Switching sizes costs the first step 100x (waking threads); counted steps: 2 threads faster.
    for (int i = 0; i < 2 * TeamSizer::k_probe_steps; ++i) {
      const int n = t.team();
      t.record((n != previous ? 100.0 : 1.0) * (n == 2 ? 0.5 : 1.0));
      previous = n;
    }
    CHECK(!t.probing());
    CHECK(t.team() == 2);
    // Conditions change (a neighbour starts): after the exploit period it probes again and switches.
    int probes = 0;
    for (int i = 0; i < 500; ++i) {
      probes += t.probing();
      t.record(t.team() == 2 ? 5.0 : 1.0);
    }
    CHECK(probes > 0);
    CHECK(t.team() == 1);
  }
  SUBCASE("a smaller team picked once is checked again soon; confirmed, it is measured less often") {
    TeamSizer t(2);
    const int probe_len = 2 * TeamSizer::k_probe_steps;
    // Steps of 1 s until `sizer` probes again (or leaves `team`, or 10000 steps pass).
    const auto steps_until_probe = [](TeamSizer& sizer, int team) {
      int steps = 0;
      while (sizer.team() == team && !sizer.probing() && steps < 10000) {
        sizer.record(1.0);
        ++steps;
      }
      return steps;
    };
    // One burst during the first probe: two threads look slow, one thread wins.
    for (int i = 0; i < probe_len; ++i)
      t.record(t.team() == 2 ? 3.0 : 1.0);
    REQUIRE(!t.probing());
    REQUIRE(t.team() == 1);
    // The burst is over (two threads twice as fast): the recheck comes after k_recheck_factor
    // probes' worth of steps, not k_exploit_factor.
    CHECK(steps_until_probe(t, 1) == TeamSizer::k_recheck_factor * probe_len);
    for (int i = 0; i < probe_len; ++i)
      t.record(t.team() == 2 ? 0.5 : 1.0);
    CHECK(t.team() == 2);
    // A neighbour that stays: one thread is picked, confirmed at the recheck, then kept longer.
    TeamSizer busy(2);
    for (int i = 0; i < probe_len; ++i)
      busy.record(busy.team() == 2 ? 3.0 : 1.0);
    REQUIRE(busy.team() == 1);
    CHECK(steps_until_probe(busy, 1) == TeamSizer::k_recheck_factor * probe_len);
    for (int i = 0; i < probe_len; ++i)
      busy.record(busy.team() == 2 ? 3.0 : 1.0);
    REQUIRE(busy.team() == 1);
    CHECK(steps_until_probe(busy, 1) == 2 * TeamSizer::k_exploit_factor * probe_len); // backoff 2
  }
}

TEST_CASE("the thread count never changes the weights: 1 to 4 threads, measured or fixed") {
  // Run under every OpenBLAS kernel family (ctest's unit_tests_openblas_*): Haswell's rounds a
  // row differently depending on the call's M split, which a split by thread count exposed.
  RunConfig cfg = test::small_config(OptimizerKind::Adam, 0);
  Image img;
  SUBCASE("one chunk: Fourier features, sine and tanh layers") {
    cfg.model.hidden = {24, 16};
    cfg.model.hidden_activations = {Activation::Sine, Activation::Tanh};
    cfg.model.encoding.kind = EncodingKind::Fourier;
    cfg.model.encoding.features = 8;
    img = test::gradient_image(40, 37, 3);
  }
  SUBCASE("three chunks of rows, thin input and output layers, several gradient slots") {
    cfg.model.hidden = {64, 48};
    cfg.model.hidden_activations = {Activation::Relu, Activation::Tanh};
    img = test::gradient_image(130, 130, 3);
    REQUIRE(int64_t(130) * 130 > 2 * cpu_chunk_rows(dense_layers(cfg.model), cfg.model.encoding.width()));
  }
  std::vector<std::vector<float>> results;
  for (int threads : {1, 2, 3, 4, 0}) {
    set_cpu_threads(threads);
    Trainer t = test::small_trainer(cfg, img);
    t.run(8);
    results.push_back(t.parameters());
  }
  set_cpu_threads(0);
  for (size_t i = 1; i < results.size(); ++i)
    CHECK(results[i] == results[0]);
}

TEST_CASE("set_cpu_threads: the setting, and the backend's team follows it") {
  set_cpu_threads(2);
  CHECK(cpu_threads_setting() == 2);
  CpuBackend cpu;
  CHECK(cpu.team_size() == 2);
  CHECK(cpu.device_description().find("2 threads") != std::string::npos);
  set_cpu_threads(-5);
  CHECK(cpu_threads_setting() == 0);
  CHECK(cpu.team_size() == cpu_core_count());
  CHECK(cpu.device_description().find("measured") != std::string::npos);
}
