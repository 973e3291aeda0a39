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

using namespace redraw;
using redraw::test::normalised_error;

namespace {

/// The gaussians-wipes preset at `count` Gaussians, 3 channels.
ModelSpec carrier_model(int64_t count) {
  return test::preset_model("gaussians-wipes", &EncodingSpec::gaussians, count);
}

} // namespace

TEST_CASE("cuda gaussian carrier: encode matches the CPU") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  auto gpu = test::cuda_backend(CudaPrecision::Fp32);
  CpuBackend cpu;
  for (int64_t count : {int64_t(1), int64_t(37), int64_t(2000)}) {
    const ModelSpec m = carrier_model(count);
    const std::vector<float> all = test::gaussian_test_params(m, 4);
    const std::vector<float> g = test::encoding_floats(all, m);
    CAPTURE(count);
    test::check_same_encoding(*gpu, cpu, m.encoding, g, test::border_coords(7000, 5, 53));
  }
}

TEST_CASE("cuda gaussian carrier: loss and gradients match the CPU over several chunks, and reruns are bit-identical") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  const ModelSpec m = carrier_model(900);
  const test::EncodingGradients e = test::check_primitive_gradients(m, test::gaussian_test_params(m, 6), 53, 54);
  std::vector<float> fx, fc; // the frequencies' gradient alone
  for (size_t i = 0; i < e.gpu.size(); i += k_gaussian_carrier_floats)
    for (int32_t f : {k_gauss_wx, k_gauss_wy}) fx.push_back(e.gpu[i + size_t(f)]), fc.push_back(e.cpu[i + size_t(f)]);
  CHECK(normalised_error(fx, fc) <= 1e-4);
}

TEST_CASE("cuda gaussian carrier: 100-step training runs match the CPU (full batch and minibatch), and render alike") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  const Image img = test::gradient_image(72, 48, 3);
  for (int64_t batch : {int64_t(0), int64_t(1024)}) {
    CAPTURE(batch);
    test::check_parity_run(test::parity_run("gaussians-wipes", &EncodingSpec::gaussians, 400, batch), img);
  }
}

#endif // REDRAW_HAVE_CUDA
