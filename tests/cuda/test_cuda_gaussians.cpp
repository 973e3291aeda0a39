// The `gaussians` model on the GPU (cuda/gaussian_kernels.cuh) against the CPU backend
// (cpu/cpu_gaussians.h, itself checked against a float64 all-pairs sum and finite differences in
// tests/engine/bench/test_gaussians.cpp). Both bin the Gaussians the same way and add the same terms in
// the same order, so only expf, sqrtf and FMA contraction differ. Normalised error
// e = max |cuda - cpu| / max |cpu| (reference_mlp.h), with bounds:
//   encode                       1e-5
//   loss gradients               1e-4 (every Gaussian's floats included), and bit-identical reruns
//   100-step training runs       PSNR within 0.1 dB of the CPU's at every metrics row (and a 40-step
//                                full batch of two chunks at 6,000 Gaussians, rerun bit for bit)
//   rendering                    RGBA8 within 1 level
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
#include <limits>

using namespace redraw;
using redraw::test::normalised_error;

namespace {

/// The gaussians preset at `count` Gaussians, 3 channels.
ModelSpec gaussians_model(int64_t count) {
  ModelSpec m = load_preset("gaussians").model;
  m.encoding.gaussians = count;
  m.output_channels = 3;
  return m;
}

/// Its initial parameters with colours of both signs (the preset's start is grey), and the head
/// away from the identity, so every float's gradient is nonzero somewhere.
std::vector<float> params_of(const ModelSpec& m, uint64_t seed) {
  std::vector<float> p = initial_parameters(m, seed);
  for (int64_t i = 0; i < m.encoding.gaussians; ++i)
    for (int32_t k = 0; k < k_gaussian_channels; ++k)
      p[size_t(i * k_gaussian_floats + k_gauss_colour + k)] = float(2 * random_unit(seed, 51, uint64_t(i * 3 + k)) - 1);
  const int64_t lead = encoding_parameter_count(m.encoding);
  for (size_t j = size_t(lead); j < p.size(); ++j) p[j] += float(0.2 * (random_unit(seed, 52, j) - 0.5));
  return p;
}

/// n coordinates in [-1.1, 1.1]^2: some fall outside the picture (the border bins take them).
std::vector<float> coords_of(int64_t n, uint64_t seed) {
  std::vector<float> c(size_t(n) * 2);
  for (size_t i = 0; i < c.size(); ++i) c[i] = float(2.2 * random_unit(seed, 53, i) - 1.1);
  return c;
}

std::vector<float> leading(const std::vector<float>& p, const ModelSpec& m) {
  return {p.begin(), p.begin() + std::ptrdiff_t(encoding_parameter_count(m.encoding))};
}

RunConfig small_run(int64_t count, int64_t batch) {
  RunConfig c = load_preset("gaussians");
  c.model.encoding.gaussians = count;
  c.training.batch_size = batch;
  c.training.cpu_batch_size = -1; // the same batch on both backends
  c.training.steps = 100;
  c.training.metrics_every = 25;
  return c;
}

} // namespace

TEST_CASE("cuda gaussians: encode matches the CPU, with a Gaussian over the whole picture and a NaN one") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  auto gpu = test::cuda_backend(CudaPrecision::Fp32);
  CpuBackend cpu;
  for (int64_t count : {int64_t(1), int64_t(37), int64_t(2000), int64_t(7500)}) {
    const ModelSpec m = gaussians_model(count);
    std::vector<float> g = leading(params_of(m, 4), m);
    if (count > 2) {
      g[k_gauss_l11] = 40.0f; // wider than the picture: every bin lists it
      g[k_gaussian_floats + k_gauss_mx] = std::numeric_limits<float>::quiet_NaN(); // no bin lists it
    }
    const int64_t n = 7000;
    const auto coords = coords_of(n, 5);
    std::vector<float> want(size_t(n) * k_gaussian_channels), got(want.size(), 99.0f);
    cpu.encode(m.encoding, g, coords.data(), n, want.data());
    gpu->encode(m.encoding, g, coords.data(), n, got.data());
    CAPTURE(count);
    CHECK(normalised_error(got, want) <= 1e-5);
  }
}

TEST_CASE("cuda gaussians: loss and gradients match the CPU over several chunks, and reruns are bit-identical") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  auto gpu = test::cuda_backend(CudaPrecision::Fp32);
  CpuBackend cpu;
  const ModelSpec m = gaussians_model(900);
  const auto params = params_of(m, 6);
  const int64_t n = 70000; // more than one stateless chunk (2^16)
  const auto coords = coords_of(n, 7);
  std::vector<float> targets(size_t(n) * 3);
  for (size_t i = 0; i < targets.size(); ++i) targets[i] = float(random_unit(8, 54, i));
  const auto both = test::mse_on_both(*gpu, cpu, m, params, coords, targets, n);
  CHECK(both.l_gpu == doctest::Approx(both.l_cpu).epsilon(1e-5));
  CHECK(both.gradient_error() <= 1e-4);
  // The Gaussians' part alone (the head's few floats could hide it).
  const auto lead = size_t(encoding_parameter_count(m.encoding));
  const std::vector<float> gg(both.g_gpu.begin(), both.g_gpu.begin() + std::ptrdiff_t(lead));
  const std::vector<float> gc(both.g_cpu.begin(), both.g_cpu.begin() + std::ptrdiff_t(lead));
  CHECK(normalised_error(gg, gc) <= 1e-4);
  const auto again = test::mse_on_both(*gpu, cpu, m, params, coords, targets, n);
  CHECK(again.g_gpu == both.g_gpu);
}

TEST_CASE("cuda gaussians: 100-step training runs match the CPU (full batch and minibatch), and render alike") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  const Image img = test::gradient_image(72, 48, 3);
  for (int64_t batch : {int64_t(0), int64_t(1024)}) {
    const RunConfig c = small_run(400, batch);
    Trainer cpu(std::make_unique<CpuBackend>(), c, Dataset{img});
    Trainer gpu(test::cuda_backend(CudaPrecision::Fp32), c, Dataset{img});
    cpu.run(100);
    gpu.run(100);
    const auto& hc = cpu.record().rows();
    const auto& hg = gpu.record().rows();
    REQUIRE(hc.size() == hg.size());
    CAPTURE(batch);
    for (size_t i = 0; i < hc.size(); ++i) CHECK(std::abs(hg[i].psnr_db - hc[i].psnr_db) <= 0.1);
    CHECK(hg.back().psnr_db > hg.front().psnr_db + 3.0); // it learns
    auto* cuda = dynamic_cast<CudaBackend*>(&gpu.backend());
    REQUIRE(cuda);
    const auto params = gpu.parameters();
    CpuBackend reference;
    const NetworkView view{&gpu.config().model, params, {}};
    const Image want = render_image(reference, view, 131, 77);
    CHECK(test::worst_level_difference(cuda->render_rgba8(131, 77), want) <= 1);
  }
}

TEST_CASE("cuda gaussians: a bound full-batch step over several chunks, at 6,000 Gaussians, matches the CPU") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  // 320 x 240 = 76,800 pixels: a full batch is two chunks of the bound step (2^16 rows each).
  const Image img = test::gradient_image(320, 240, 3);
  RunConfig c = small_run(6000, 0);
  c.training.steps = 40;
  c.training.metrics_every = 10;
  Trainer cpu(std::make_unique<CpuBackend>(), c, Dataset{img});
  Trainer gpu(test::cuda_backend(CudaPrecision::Fp32), c, Dataset{img});
  cpu.run(40);
  gpu.run(40);
  const auto& hc = cpu.record().rows();
  const auto& hg = gpu.record().rows();
  REQUIRE(hc.size() == hg.size());
  for (size_t i = 0; i < hc.size(); ++i) {
    CAPTURE(hc[i].step);
    CHECK(std::abs(hg[i].psnr_db - hc[i].psnr_db) <= 0.1);
  }
  CHECK(hg.back().psnr_db > hg.front().psnr_db + 1.0); // it learns
  // A rerun of the same bound steps gives the same bits.
  Trainer again(test::cuda_backend(CudaPrecision::Fp32), c, Dataset{img});
  again.run(40);
  CHECK(again.parameters() == gpu.parameters());
}

TEST_CASE("cuda sanitize: gaussians binning, encode, backward, bound steps and renders") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  // Small: compute-sanitizer (scripts/gpu_check.py run sanitize) runs every kernel of the model.
  const Image img = test::gradient_image(20, 13, 3);
  RunConfig c = small_run(50, 64);
  c.training.steps = 3;
  Trainer gpu(test::cuda_backend(CudaPrecision::Fp32), c, Dataset{img});
  Trainer cpu(std::make_unique<CpuBackend>(), c, Dataset{img});
  gpu.run(3);
  cpu.run(3);
  CHECK(normalised_error(gpu.parameters(), cpu.parameters()) <= 1e-4);
  auto* cuda = dynamic_cast<CudaBackend*>(&gpu.backend());
  REQUIRE(cuda);
  const auto rgba = cuda->render_rgba8(301, 203); // larger than the training chunk
  CHECK(rgba.size() == size_t(301) * 203 * 4);
}

#endif // REDRAW_HAVE_CUDA
