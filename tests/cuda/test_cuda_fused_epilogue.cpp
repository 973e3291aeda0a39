// The fused MLP's two epilogues (cuda/fused_mlp_rules.h: staged, the first kernels, and fragment:
// bias in the accumulators, activation on the fragments, 16-byte stores, two tiles per warp)
// against the CPU and each other, at every width, on batches that end inside a tile, and in a
// 100-step training run. Bounds as in test_cuda_hash_grid.cpp (predict 1e-2, gradients 3e-2,
// PSNR within 1 dB); the two epilogues round the same products, so they agree far closer.
// Which is faster is measured by `scripts/gpu_check.py run instant`; not measured yet.
// Without a device every case prints "SKIPPED: no CUDA device: <why>" and checks nothing.
#if REDRAW_HAVE_CUDA

#include "cuda_test_support.h"
#include "reference_mlp.h"
#include "test_support.h"

#include "cuda/cuda_backend.h"
#include "cuda/fused_mlp_rules.h"
#include "cpu/cpu_backend.h"
#include "engine/rng_math.h"
#include "engine/training/trainer.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace redraw;
using namespace redraw::cuda;
using redraw::test::normalised_error;

using redraw::test::EpilogueScope;

namespace {

std::vector<float> uniform(size_t n, uint64_t seed, float lo, float hi) {
  return test::uniform_values(n, seed, 61, lo, hi);
}

} // namespace

TEST_CASE("cuda fused epilogues: predict and gradients at every width match the CPU and each other") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  CudaBackend gpu(0);
  gpu.set_precision(CudaPrecision::Auto);
  CpuBackend cpu;
  struct Case {
    int32_t width, layers;
    Activation act, out;
    int32_t channels;
  };
  for (const Case k : {Case{16, 2, Activation::Tanh, Activation::Sigmoid, 3},
                       Case{32, 3, Activation::LeakyRelu, Activation::Sigmoid, 3},
                       Case{64, 2, Activation::Relu, Activation::Identity, 1},
                       Case{128, 2, Activation::Relu, Activation::Sigmoid, 3}}) {
    CAPTURE(k.width);
    const EncodingSpec grid = test::hash_grid_spec(k.width == 16 ? 8 : 16, 2, 12, 8);
    const ModelSpec m = test::mlp_on(grid, k.width, k.layers, k.act, k.out, k.channels);
    REQUIRE(gpu.uses_fused_mlp(m));
    std::vector<float> params = initial_parameters(m, 7);
    const auto table = uniform(size_t(encoding_parameter_count(m.encoding)), 8, -0.5f, 0.5f);
    std::copy(table.begin(), table.end(), params.begin());
    const int64_t n = 20000 + 37;
    const auto coords = uniform(size_t(n) * 2, 9, -1.0f, 1.0f);
    const auto targets = uniform(size_t(n) * size_t(k.channels), 10, 0.0f, 1.0f);
    std::vector<float> want(size_t(n) * size_t(k.channels)), g_cpu(params.size());
    const LossParams mse{};
    cpu.predict(m, params, {}, coords.data(), n, want.data());
    cpu.loss_and_gradients(m, mse, params, {}, coords.data(), targets.data(), n, g_cpu);
    const size_t t = table.size();
    const std::vector<float> mlp_cpu(g_cpu.begin() + std::ptrdiff_t(t), g_cpu.end());
    std::vector<float> out[2], mlp[2];
    for (int i = 0; i < 2; ++i) {
      const FusedEpilogue e = i == 0 ? FusedEpilogue::Staged : FusedEpilogue::Fragment;
      EpilogueScope scope(e);
      CAPTURE(fused_epilogue_name(e));
      out[i].resize(want.size());
      gpu.predict(m, params, {}, coords.data(), n, out[i].data());
      CHECK(normalised_error(out[i], want) <= 1e-2);
      std::vector<float> g(params.size());
      gpu.loss_and_gradients(m, mse, params, {}, coords.data(), targets.data(), n, g);
      CHECK(normalised_error(g, g_cpu) <= 3e-2);
      mlp[i].assign(g.begin() + std::ptrdiff_t(t), g.end());
      CHECK(normalised_error(mlp[i], mlp_cpu) <= 3e-2);
    }
    CHECK(normalised_error(out[1], out[0]) <= 5e-3); // fp16 roundings of hidden values may differ by an ulp
    CHECK(normalised_error(mlp[1], mlp[0]) <= 1e-2);
  }
}

TEST_CASE("cuda fused epilogues: a 100-step instant run with the fragment epilogue trains like the CPU") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  EpilogueScope scope(FusedEpilogue::Fragment);
  const RunConfig c = test::small_instant(14, 4096, 100, 25);
  const Image img = redraw::test::gradient_image(96, 64, 3);
  Trainer cpu(std::make_unique<CpuBackend>(), c, Dataset{img});
  Trainer gpu(test::cuda_backend(CudaPrecision::Auto), c, Dataset{img});
  cpu.run(100);
  gpu.run(100);
  REQUIRE(cpu.record().rows().size() == gpu.record().rows().size());
  for (size_t i = 0; i < cpu.record().rows().size(); ++i)
    CHECK(std::abs(gpu.record().rows()[i].psnr_db - cpu.record().rows()[i].psnr_db) <= 1.0);
  CHECK(gpu.record().rows().back().psnr_db > 25.0);
}

#endif // REDRAW_HAVE_CUDA
