// Subnormal floats kept out of the CPU backend's arithmetic (cpu/flushed_team.h): inside a
// FlushedTeam every thread of the team flushes, the caller's own mode comes back after; and
// through the backend, a Gauss network whose window sits at its clamp (2.7e-38) times small
// weights gives 0, not a subnormal, in its outputs and its gradients: the same bits on every CPU,
// and none of the microcode path that costs Intel cores 10-60x in sgemm.
#include "test_support.h"

#include "cpu/cpu_backend.h"
#include "cpu/flushed_team.h"
#include "engine/thread_budget.h"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

using namespace redraw;

namespace {

/// 1e-20 squared: 1e-40, subnormal in IEEE arithmetic, 0 when flushed. Volatile so the compiler
/// cannot fold it.
float tiny_product() {
  volatile float a = 1e-20f;
  return a * a;
}

int64_t count_subnormal(const std::vector<float>& v) {
  int64_t n = 0;
  for (float x : v) n += std::fpclassify(x) == FP_SUBNORMAL ? 1 : 0;
  return n;
}

/// 2 -> 8 Gauss (s = 30) -> C linear: the first layer's weights drive every unit's s z far past the
/// bell's clamp, so each hidden value is exp(-9.3^2) = 2.7e-38; the head's weights of 0.01 make
/// each of its products 2.7e-40 (subnormal in IEEE arithmetic).
ModelSpec clamped_gauss(int32_t channels) {
  ModelSpec m;
  m.hidden = {8};
  m.hidden_activations = {Activation::Gauss};
  m.output_activation = Activation::Identity;
  m.init = InitKind::Linear;
  m.gauss_scale = 30.0f;
  m.output_channels = channels;
  return m;
}

std::vector<float> clamped_gauss_params(const ModelSpec& m) {
  const auto layers = dense_layers(m);
  std::vector<float> p(size_t(parameter_count(m)), 0.0f);
  for (int64_t i = 0; i < int64_t(layers[0].in) * layers[0].out; ++i) p[size_t(layers[0].weight_offset + i)] = 50.0f;
  for (int32_t i = 0; i < layers[0].out; ++i) p[size_t(layers[0].bias_offset + i)] = 50.0f;
  for (int64_t i = 0; i < int64_t(layers[1].in) * layers[1].out; ++i) p[size_t(layers[1].weight_offset + i)] = 0.01f;
  return p;
}

} // namespace

TEST_CASE("flushed team: every thread of the team flushes subnormals, the caller's mode comes back") {
  REQUIRE(std::fpclassify(tiny_product()) == FP_SUBNORMAL); // this thread computes in IEEE mode
  {
    const FlushedTeam flushed(4);
    CHECK(subnormals_flushed_here());
    CHECK(tiny_product() == 0.0f);
    const TeamFlushProbe probe = probe_team_flush(4);
    CHECK(probe.threads == 4);
    CHECK(probe.not_flushed == 0);
  }
  CHECK_FALSE(subnormals_flushed_here()); // a Python program's numpy keeps IEEE subnormals
  CHECK(std::fpclassify(tiny_product()) == FP_SUBNORMAL);
}

TEST_CASE("flushed team: a Gauss window at its clamp times small weights gives 0, not a subnormal, at any team") {
  const ModelSpec m = clamped_gauss(3);
  const std::vector<float> p = clamped_gauss_params(m);
  const int64_t n = 300;
  const std::vector<float> coords = test::uniform_values(size_t(2 * n), 5, 6, 0.2f, 1.0f);
  const std::vector<float> targets(size_t(n * 3), 0.1f); // the head's weight gradient, 2e-39 in IEEE arithmetic
  for (int threads : {1, 2, 3}) {
    CAPTURE(threads);
    set_cpu_threads(threads);
    CpuBackend cpu;
    std::vector<float> out(size_t(n * 3), -1.0f);
    cpu.predict(m, p, {}, coords.data(), n, out.data());
    CHECK(count_subnormal(out) == 0);
    CHECK(out[0] == 0.0f); // 8 x 2.7e-38 x 0.01: every product flushed
    std::vector<float> grads(p.size(), 0.0f);
    cpu.loss_and_gradients(m, LossParams{}, p, {}, coords.data(), targets.data(), n, grads);
    CHECK(count_subnormal(grads) == 0);
    CHECK_FALSE(subnormals_flushed_here()); // the backend gave this thread its mode back
  }
  set_cpu_threads(0);
}
