// Gauss and Gabor (exp(-(s z)^2), and cos(omega z) times it) at the scales the presets use (gauss
// 10, wire's s 30 on its Gabor wavelet), where the bell is sharp and |s z| passes
// k_gauss_bell_reach (engine/activation_math.h) for many units: the bell is clamped there, and the
// case must reach that clamp, not only the bell's top (tests/cuda/test_cuda_parity.cpp's nets use
// scale 2.5). One hidden layer of 48, so the sharp bell's float rounding is not compounded by a
// second; bounds (normalised error, tests/reference_mlp.h): predict 2e-4, gradients 5e-4, loss
// relative 1e-5. That the clamp is reached (6% of the first layer's units at 10, 60% at 30) is
// checked on the host, with or without a device; the rest prints "SKIPPED: no CUDA device".
#if REDRAW_HAVE_CUDA

#include "cuda_test_support.h"
#include "reference_mlp.h"

#include "cpu/cpu_backend.h"
#include "cuda/cuda_backend.h"
#include "engine/activation_math.h"
#include "engine/rng_math.h"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

using namespace redraw;
using redraw::test::normalised_error;

namespace {

struct BellNet {
  ModelSpec model;
  std::vector<float> params;
};

BellNet bell_net(Activation act, float scale) {
  BellNet n;
  n.model.hidden = {48};
  n.model.hidden_activations = {act};
  n.model.output_activation = Activation::Identity;
  n.model.output_channels = 3;
  n.model.gauss_scale = scale;
  n.model.omega_0 = 20.0f;
  n.model.init = paper_init(act, InitKind::Xavier);
  n.params = initial_parameters(n.model, 63);
  return n;
}

std::vector<float> uniform(int64_t count, uint64_t seed, uint64_t stream, double lo, double hi) {
  std::vector<float> v(static_cast<size_t>(count), 0.0f);
  for (size_t i = 0; i < v.size(); ++i) v[i] = float(lo + (hi - lo) * random_unit(seed, stream, i));
  return v;
}

/// The share of (sample, unit) pairs of the first hidden layer whose s z lies past the bell's clamp.
double share_at_bell_clamp(const BellNet& net, const std::vector<float>& coords, int64_t n) {
  const DenseLayer L = dense_layers(net.model).front();
  int64_t past = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int32_t o = 0; o < L.out; ++o) {
      double z = net.params[size_t(L.bias_offset + o)];
      for (int32_t k = 0; k < L.in; ++k)
        z += double(net.params[size_t(L.weight_offset + int64_t(o) * L.in + k)]) * coords[size_t(i * 2 + k)];
      past += std::abs(double(net.model.gauss_scale) * z) >= double(k_gauss_bell_reach);
    }
  return double(past) / double(n * L.out);
}

} // namespace

TEST_CASE("cuda parity: Gauss and Gabor at the presets' scales (10 and 30), the bell's clamp reached") {
  const int64_t n = 1500;
  const auto coords = uniform(n * 2, 61, 11, -1, 1);
  for (Activation act : {Activation::Gauss, Activation::Gabor})
    for (float scale : {10.0f, 30.0f}) {
      const double clamped = share_at_bell_clamp(bell_net(act, scale), coords, n);
      INFO(activation_name(act) << " at scale " << scale << ": " << 100 * clamped << "% of the first layer's units clamped");
      CHECK(clamped >= (scale >= 30 ? 0.3 : 0.02));
    }
  REDRAW_REQUIRE_CUDA_DEVICE();
  auto gpu = test::cuda_backend(CudaPrecision::Fp32);
  CpuBackend cpu;
  const auto targets = uniform(n * 3, 64, 12, 0, 1);
  for (Activation act : {Activation::Gauss, Activation::Gabor})
    for (float scale : {10.0f, 30.0f}) {
      const BellNet net = bell_net(act, scale);
      INFO(activation_name(act) << " at scale " << scale);
      std::vector<float> a(size_t(n) * 3), r(a.size());
      gpu->predict(net.model, net.params, {}, coords.data(), n, a.data());
      cpu.predict(net.model, net.params, {}, coords.data(), n, r.data());
      CHECK(normalised_error(a, r) <= 2e-4);
      const auto both = test::mse_on_both(*gpu, cpu, net.model, net.params, coords, targets, n);
      CHECK(std::abs(both.l_gpu - both.l_cpu) <= 1e-5 * std::abs(both.l_cpu));
      CHECK(both.gradient_error() <= 5e-4);
    }
}

#endif
