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
#include "primitive_fixtures.h"
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
ModelSpec gaussians_model(int64_t count) { return test::preset_model("gaussians", &EncodingSpec::gaussians, count); }

RunConfig small_run(int64_t count, int64_t batch) {
  return test::parity_run("gaussians", &EncodingSpec::gaussians, count, batch);
}

} // namespace

TEST_CASE("cuda gaussians: encode matches the CPU, with a Gaussian over the whole picture and a NaN one") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  auto gpu = test::cuda_backend(CudaPrecision::Fp32);
  CpuBackend cpu;
  for (int64_t count : {int64_t(1), int64_t(37), int64_t(2000), int64_t(7500)}) {
    const ModelSpec m = gaussians_model(count);
    std::vector<float> g = test::encoding_floats(test::gaussian_test_params(m, 4), m);
    if (count > 2) {
      g[k_gauss_l11] = 40.0f; // wider than the picture: every bin lists it
      g[k_gaussian_floats + k_gauss_mx] = std::numeric_limits<float>::quiet_NaN(); // no bin lists it
    }
    CAPTURE(count);
    test::check_same_encoding(*gpu, cpu, m.encoding, g, test::border_coords(7000, 5, 53));
  }
}

TEST_CASE("cuda gaussians: loss and gradients match the CPU over several chunks, and reruns are bit-identical") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  const ModelSpec m = gaussians_model(900);
  (void)test::check_primitive_gradients(m, test::gaussian_test_params(m, 6), 53, 54);
}

TEST_CASE("cuda gaussians: 100-step training runs match the CPU (full batch and minibatch), and render alike") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  const Image img = test::gradient_image(72, 48, 3);
  for (int64_t batch : {int64_t(0), int64_t(1024)}) {
    CAPTURE(batch);
    test::check_parity_run(small_run(400, batch), img);
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
