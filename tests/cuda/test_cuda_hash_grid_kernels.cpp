// The hash grid's alternative kernels (cuda/hash_grid_choice.h) against the CPU: one thread per
// sample (16-byte stores where the row allows, scalar stores where its width leaves a remainder)
// and one per (sample, level); atomic, warp-aggregated and shared-dense backward scatters (the
// last also called directly, level by level against a float64 scatter, on a batch large enough
// that its threads take several samples each, at the budget's boundary and falling back when no
// level fits); fp16 features written straight into the fused MLP's input against fp32 ones it
// converts itself. Bounds as in
// test_cuda_hash_grid.cpp: encode 1e-5, fp32 gradients 1e-4 (atomic sums in any order).
// Which is faster is measured by `scripts/gpu_check.py run instant` with REDRAW_HASH_GRID_ENCODE /
// REDRAW_HASH_GRID_BACKWARD set; not measured yet.
// Without a device every case prints "SKIPPED: no CUDA device: <why>" and checks nothing.
#if REDRAW_HAVE_CUDA

#include "cuda_test_support.h"
#include "reference_mlp.h"
#include "test_support.h"

#include "cuda/cuda_backend.h"
#include "cuda/cuda_check.h"
#include "cuda/device_buffer.h"
#include "cuda/encoding_kernels.cuh"
#include "cuda/hash_grid_choice.h"
#include "cuda/hash_grid_shared_levels.h"
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
    {HashGridEncodeKernel::PerSample, HashGridBackwardKernel::SharedDense, true},
    {HashGridEncodeKernel::PerLevel, HashGridBackwardKernel::SharedDense, false},
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

TEST_CASE("cuda hash grid kernels: the shared-dense backward matches a float64 scatter, level by level") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  CUDA_CHECK(cudaSetDevice(0));
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreate(&stream));
  const std::shared_ptr<DevicePool> pool = DevicePool::shared(0);
  // 600,001 samples in one call: hash_grid_shared_blocks caps the grid at 2 blocks per SM, so every
  // thread takes four or five samples (two or more on any card) and each block flushes once.
  // Shared levels (hash_grid_shared_levels): 5 of 12 (f 2: dense level 5 and the hashed levels in
  // global memory), 6 (f 1: every dense level), 4 of 5 (f 4: level 4 is 64 bytes over the budget),
  // 0 (level 0 hashed: the per-sample kernel runs).
  struct Case {
    EncodingSpec e;
    int32_t shared;
  };
  for (const Case& c : {Case{grid(12, 2), 5}, Case{grid(12, 1), 6}, Case{grid(5, 4), 4},
                        Case{test::hash_grid_spec(4, 2, 10, 32), 0}}) {
    const HashGridParams g = hash_grid_params(c.e);
    const int32_t F = g.n_features;
    CAPTURE(F);
    REQUIRE(hash_grid_shared_levels(g, k_hash_grid_shared_budget) == c.shared);
    const int64_t n = 600001, width = int64_t(g.n_levels) * F;
    const size_t floats = size_t(hash_grid_entries(g)) * size_t(F);
    const auto coords = uniform(size_t(n) * 2, 31, -1.0f, 1.0f);
    const auto d_out = uniform(size_t(n * width), 32, -1.0f, 1.0f);
    std::vector<double> want(floats, 0.0);
    for (int64_t i = 0; i < n; ++i)
      for (int32_t l = 0; l < g.n_levels; ++l) {
        uint32_t e[4];
        float w[4]; // the kernels' corners and weights; the sums in float64
        hash_grid_corners<float>(g, l, coords[size_t(2 * i)], coords[size_t(2 * i + 1)], e, w);
        for (int k = 0; k < 4; ++k)
          for (int32_t f = 0; f < F; ++f)
            want[size_t(e[k]) * size_t(F) + size_t(f)] += double(w[k]) * double(d_out[size_t(i * width + l * F + f)]);
      }
    DeviceBuffer<float> xy(*pool, stream, coords.size(), "coordinates"), d(*pool, stream, d_out.size(), "d_out"),
        grad(*pool, stream, floats, "table gradient");
    xy.upload(coords.data(), coords.size());
    d.upload(d_out.data(), d_out.size());
    grad.zero();
    {
      KernelScope scope({HashGridEncodeKernel::PerSample, HashGridBackwardKernel::SharedDense, false});
      hash_grid_backward(stream, g, xy.data(), d.data(), n, grad.data());
    }
    std::vector<float> got(floats);
    grad.download(got.data(), floats);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    for (int32_t l = 0; l < g.n_levels; ++l) {
      CAPTURE(l);
      const size_t lo = size_t(g.offset[l]) * size_t(F), hi = size_t(g.offset[l + 1]) * size_t(F);
      const std::vector<float> got_l(got.begin() + lo, got.begin() + hi);
      const std::vector<double> want_l(want.begin() + lo, want.begin() + hi);
      CHECK(normalised_error(got_l, want_l) <= 1e-4); // a level added twice or never would be 1
    }
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
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
    psnr.push_back(t.record().rows().back().psnr_db);
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
