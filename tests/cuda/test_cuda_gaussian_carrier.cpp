// The Gaussians with the cosine carrier (model.encoding.carrier) on the GPU (cuda/gaussian_kernels.cuh)
// against the CPU backend (itself checked against float64 and finite differences in
// tests/engine/bench/test_gaussian_carrier.cpp), with tests/cuda/test_cuda_gaussians.cpp's bounds:
//   encode                       1e-5
//   loss gradients               1e-4 (every Gaussian's ten floats included), and bit-identical reruns
//   100-step training runs       PSNR within 0.1 dB of the CPU's at every metrics row
//   rendering                    RGBA8 within 1 level
// The GPU's cos and sin are CUDA's, the CPU's gaussian_cpu_cos_sin: only rounding differs.
// Without a device every case prints "SKIPPED: no CUDA device: <why>" and checks nothing.
#if REDRAW_HAVE_CUDA

#include "cuda_test_support.h"
#include "reference_mlp.h"
#include "test_support.h"

#include "cuda/cuda_backend.h"
#include "cpu/cpu_backend.h"
#include "engine/frames/renderer.h"
#include "engine/rng_math.h"
#include "engine/training/trainer.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace redraw;
using redraw::test::normalised_error;

namespace {

/// The gaussians-wipes preset at `count` Gaussians, 3 channels.
ModelSpec carrier_model(int64_t count) {
  ModelSpec m = load_preset("gaussians-wipes").model;
  m.encoding.gaussians = count;
  m.output_channels = 3;
  return m;
}

/// Its initial parameters with colours of both signs, frequencies up to 3 radians per standard
/// deviation (the start's are near 0), and the head away from the identity.
std::vector<float> carrier_params(const ModelSpec& m, uint64_t seed) {
  std::vector<float> p = initial_parameters(m, seed);
  for (int64_t i = 0; i < m.encoding.gaussians; ++i) {
    float* g = p.data() + i * k_gaussian_carrier_floats;
    for (int32_t k = 0; k < k_gaussian_channels; ++k)
      g[k_gauss_colour + k] = float(2 * random_unit(seed, 51, uint64_t(i * 3 + k)) - 1);
    g[k_gauss_wx] = float((6 * random_unit(seed, 55, uint64_t(2 * i)) - 3) / k_gaussian_carrier_step);
    g[k_gauss_wy] = float((6 * random_unit(seed, 55, uint64_t(2 * i + 1)) - 3) / k_gaussian_carrier_step);
  }
  const int64_t lead = encoding_parameter_count(m.encoding);
  for (size_t j = size_t(lead); j < p.size(); ++j) p[j] += float(0.2 * (random_unit(seed, 52, j) - 0.5));
  return p;
}

std::vector<float> carrier_coords_of(int64_t n, uint64_t seed) {
  std::vector<float> c(size_t(n) * 2);
  for (size_t i = 0; i < c.size(); ++i) c[i] = float(2.2 * random_unit(seed, 53, i) - 1.1);
  return c;
}

} // namespace

TEST_CASE("cuda gaussian carrier: encode matches the CPU") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  auto gpu = test::cuda_backend(CudaPrecision::Fp32);
  CpuBackend cpu;
  for (int64_t count : {int64_t(1), int64_t(37), int64_t(2000)}) {
    const ModelSpec m = carrier_model(count);
    const std::vector<float> all = carrier_params(m, 4);
    const std::vector<float> g(all.begin(), all.begin() + std::ptrdiff_t(encoding_parameter_count(m.encoding)));
    const int64_t n = 7000;
    const auto coords = carrier_coords_of(n, 5);
    std::vector<float> want(size_t(n) * k_gaussian_channels), got(want.size(), 99.0f);
    cpu.encode(m.encoding, g, coords.data(), n, want.data());
    gpu->encode(m.encoding, g, coords.data(), n, got.data());
    CAPTURE(count);
    CHECK(normalised_error(got, want) <= 1e-5);
  }
}

TEST_CASE("cuda gaussian carrier: loss and gradients match the CPU over several chunks, and reruns are bit-identical") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  auto gpu = test::cuda_backend(CudaPrecision::Fp32);
  CpuBackend cpu;
  const ModelSpec m = carrier_model(900);
  const auto params = carrier_params(m, 6);
  const int64_t n = 70000; // more than one stateless chunk (2^16)
  const auto coords = carrier_coords_of(n, 7);
  std::vector<float> targets(size_t(n) * 3);
  for (size_t i = 0; i < targets.size(); ++i) targets[i] = float(random_unit(8, 54, i));
  const auto both = test::mse_on_both(*gpu, cpu, m, params, coords, targets, n);
  CHECK(both.l_gpu == doctest::Approx(both.l_cpu).epsilon(1e-5));
  CHECK(both.gradient_error() <= 1e-4);
  const auto lead = size_t(encoding_parameter_count(m.encoding));
  const std::vector<float> gg(both.g_gpu.begin(), both.g_gpu.begin() + std::ptrdiff_t(lead));
  const std::vector<float> gc(both.g_cpu.begin(), both.g_cpu.begin() + std::ptrdiff_t(lead));
  CHECK(normalised_error(gg, gc) <= 1e-4);
  std::vector<float> fx, fc; // the frequencies' gradient alone
  for (size_t i = 0; i < lead; i += k_gaussian_carrier_floats)
    for (int32_t f : {k_gauss_wx, k_gauss_wy}) fx.push_back(gg[i + size_t(f)]), fc.push_back(gc[i + size_t(f)]);
  CHECK(normalised_error(fx, fc) <= 1e-4);
  const auto again = test::mse_on_both(*gpu, cpu, m, params, coords, targets, n);
  CHECK(again.g_gpu == both.g_gpu);
}

TEST_CASE("cuda gaussian carrier: 100-step training runs match the CPU (full batch and minibatch), and render alike") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  const Image img = test::gradient_image(72, 48, 3);
  for (int64_t batch : {int64_t(0), int64_t(1024)}) {
    RunConfig c = load_preset("gaussians-wipes");
    c.model.encoding.gaussians = 400;
    c.training.batch_size = batch;
    c.training.cpu_batch_size = -1;
    c.training.steps = 100;
    c.training.metrics_every = 25;
    Trainer cpu(std::make_unique<CpuBackend>(), c, Dataset{img});
    Trainer gpu(test::cuda_backend(CudaPrecision::Fp32), c, Dataset{img});
    cpu.run(100);
    gpu.run(100);
    const auto& hc = cpu.record().rows();
    const auto& hg = gpu.record().rows();
    REQUIRE(hc.size() == hg.size());
    CAPTURE(batch);
    for (size_t i = 0; i < hc.size(); ++i) CHECK(std::abs(hg[i].psnr_db - hc[i].psnr_db) <= 0.1);
    CHECK(hg.back().psnr_db > hg.front().psnr_db + 3.0);
    auto* cuda = dynamic_cast<CudaBackend*>(&gpu.backend());
    REQUIRE(cuda);
    const auto params = gpu.parameters();
    CpuBackend reference;
    const NetworkView view{&gpu.config().model, params, {}};
    const Image want = render_image(reference, view, 131, 77);
    CHECK(test::worst_level_difference(cuda->render_rgba8(131, 77), want) <= 1);
  }
}

#endif // REDRAW_HAVE_CUDA
