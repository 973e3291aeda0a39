// The hash grid's alternative kernels (cuda/hash_grid_choice.h) against the CPU: one thread per
// sample (16-byte stores where the row allows, scalar stores where its width leaves a remainder)
// and one per (sample, level); atomic and warp-aggregated backward scatters; fp16 features
// written straight into the fused MLP's input against fp32 ones it converts itself. Bounds as in
// test_cuda_hash_grid.cpp: encode 1e-5, fp32 gradients 1e-4 (atomic sums in any order).
// Which is faster is measured by `scripts/gpu_check.py run instant` with REDRAW_HASH_GRID_ENCODE /
// REDRAW_HASH_GRID_BACKWARD set; not measured yet.
// Without a device every case prints "SKIPPED: no CUDA device: <why>" and checks nothing.
#if REDRAW_HAVE_CUDA

#include "cuda_test_support.h"
#include "reference_mlp.h"
#include "test_support.h"

#include "cuda/cuda_backend.h"
#include "cuda/hash_grid_choice.h"
#include "cpu/cpu_backend.h"
#include "engine/rng_math.h"
#include "engine/training/trainer.h"

#include <doctest/doctest.h>

using namespace redraw;
using namespace redraw::cuda;
using redraw::test::normalised_error;

using redraw::test::mse_on_both;
using redraw::test::KernelScope;

namespace {

EncodingSpec grid(int32_t levels, int32_t features) { return test::hash_grid_spec(levels, features, 12, 8); }

std::vector<float> uniform(size_t n, uint64_t seed, float lo, float hi) {
  return test::uniform_values(n, seed, 51, lo, hi);
}

const HashGridKernels k_all[] = {
    {HashGridEncodeKernel::PerSample, HashGridBackwardKernel::Atomic, true},
    {HashGridEncodeKernel::PerLevel, HashGridBackwardKernel::Atomic, false},
    {HashGridEncodeKernel::PerSample, HashGridBackwardKernel::WarpAggregated, false},
    {HashGridEncodeKernel::PerLevel, HashGridBackwardKernel::WarpAggregated, true},
    {HashGridEncodeKernel::PerSample, HashGridBackwardKernel::PerSample, true},
    {HashGridEncodeKernel::PerLevel, HashGridBackwardKernel::PerSample, false},
};

} // namespace

TEST_CASE("cuda hash grid kernels: every encode and backward kernel matches the CPU") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  CudaBackend gpu(0);
  gpu.set_precision(CudaPrecision::Fp32);
  CpuBackend cpu;
  for (const HashGridKernels& k : k_all) {
    KernelScope scope(k);
    CAPTURE(hash_grid_encode_kernel_name(k.encode));
    CAPTURE(hash_grid_backward_kernel_name(k.backward));
    for (int32_t levels : {16, 5}) {   // rows of 4k floats, and rows with a remainder
      for (int32_t f : {1, 2, 4, 8}) {
        CAPTURE(levels);
        CAPTURE(f);
        const EncodingSpec e = grid(levels, f);
        const int64_t n = 4099;
        const auto coords = uniform(size_t(n) * 2, 1, -1.0f, 1.0f);
        const auto table = uniform(size_t(encoding_parameter_count(e)), 2, -1.0f, 1.0f);
        std::vector<float> want(size_t(n) * size_t(e.width())), got(want.size());
        cpu.encode(e, table, coords.data(), n, want.data());
        gpu.encode(e, table, coords.data(), n, got.data());
        CHECK(normalised_error(got, want) <= 1e-5);

        const ModelSpec m = test::mlp_on(e, 64, 1, Activation::Relu, Activation::Sigmoid, 3);
        std::vector<float> params = initial_parameters(m, 3);
        std::copy(table.begin(), table.end(), params.begin());
        const auto targets = uniform(size_t(n) * 3, 4, 0.0f, 1.0f);
        CHECK(mse_on_both(gpu, cpu, m, params, coords, targets, n).gradient_error() <= 1e-4);
      }
    }
  }
}

TEST_CASE("cuda hash grid kernels: fp16 features written by the encoder give the fused MLP the same inputs") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  CudaBackend gpu(0);
  gpu.set_precision(CudaPrecision::Auto);
  CpuBackend cpu;
  for (int32_t levels : {16, 5}) { // 32 features (no padding), 10 (padded to 16)
    CAPTURE(levels);
    const ModelSpec m = test::mlp_on(grid(levels, 2), 64, 2, Activation::Relu, Activation::Sigmoid, 3);
    REQUIRE(gpu.uses_fused_mlp(m));
    std::vector<float> params = initial_parameters(m, 5);
    const auto table = uniform(size_t(encoding_parameter_count(m.encoding)), 6, -0.5f, 0.5f);
    std::copy(table.begin(), table.end(), params.begin());
    const int64_t n = 70001; // over one stateless chunk, ending inside a tile
    const auto coords = uniform(size_t(n) * 2, 7, -1.0f, 1.0f);
    const auto targets = uniform(size_t(n) * 3, 8, 0.0f, 1.0f);
    std::vector<float> out[2], grads[2];
    for (int half = 0; half < 2; ++half) {
      KernelScope scope({HashGridEncodeKernel::PerSample, HashGridBackwardKernel::Atomic, half == 1});
      out[half].resize(size_t(n) * 3);
      gpu.predict(m, params, {}, coords.data(), n, out[half].data());
      grads[half].resize(params.size());
      const LossParams mse{};
      gpu.loss_and_gradients(m, mse, params, {}, coords.data(), targets.data(), n, grads[half]);
    }
    // Both round the same fp32 features to fp16 (round to nearest): the same outputs.
    CHECK(normalised_error(out[1], out[0]) <= 1e-6);
    CHECK(normalised_error(grads[1], grads[0]) <= 1e-4); // the table's atomic sums in any order
    std::vector<float> want(size_t(n) * 3);
    cpu.predict(m, params, {}, coords.data(), n, want.data());
    CHECK(normalised_error(out[1], want) <= 1e-2);
  }
}

TEST_CASE("cuda hash grid kernels: renders agree across the encoders, and a fused instant run trains with each") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  const RunConfig c = test::small_instant(12, 2048, 60, 20);
  const Image img = redraw::test::gradient_image(48, 40, 3);
  std::vector<double> psnr;
  for (const HashGridKernels& k : k_all) {
    KernelScope scope(k);
    Trainer t(test::cuda_backend(CudaPrecision::Auto), c, Dataset{img});
    t.run(60);
    psnr.push_back(t.history().back().psnr_db);
  }
  for (size_t i = 1; i < psnr.size(); ++i) CHECK(std::abs(psnr[i] - psnr[0]) <= 0.5); // atomics' order, no more
  // One network drawn by each encoder (render_grid on pixel centres, below and above the chunk).
  auto b = test::cuda_backend(CudaPrecision::Auto);
  CudaBackend* gpu = b.get();
  Trainer t(std::move(b), c, Dataset{img});
  t.run(20);
  for (const auto& [w, h] : {std::pair{40, 30}, std::pair{301, 203}}) {
    std::vector<uint8_t> per_sample, per_level;
    {
      KernelScope scope({HashGridEncodeKernel::PerSample, HashGridBackwardKernel::Atomic, false});
      per_sample = gpu->render_rgba8(w, h);
    }
    {
      KernelScope scope({HashGridEncodeKernel::PerLevel, HashGridBackwardKernel::Atomic, false});
      per_level = gpu->render_rgba8(w, h);
    }
    int worst = 0;
    for (size_t j = 0; j < per_sample.size(); ++j) worst = std::max(worst, std::abs(int(per_sample[j]) - int(per_level[j])));
    CAPTURE(w);
    CHECK(worst <= 1);
  }
}

#endif // REDRAW_HAVE_CUDA
