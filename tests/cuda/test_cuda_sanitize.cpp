// Small cases that run every kernel of the instant preset, for compute-sanitizer (memcheck,
// racecheck, synccheck: scripts/gpu_check.py run sanitize; its quick part runs the fused MLP and
// hash grid cases under memcheck and racecheck): the fused fp16 MLP at every width on
// batches that end inside a tile, the hash grid's encode, grid encode and backward with 1, 2 and 4
// features, and bound training steps (eager, captured and replayed) with renders below and above
// the training chunk, and the hash grid's alternative kernels (the shared-dense backward's case is
// named "hash grid ..." so quick's sanitizers take it). They also check their results against the
// CPU, with the bounds of test_cuda_hash_grid.cpp loosened for the small batches, so a normal run
// tests them too.
// Without a device every case prints "SKIPPED: no CUDA device: <why>" and checks nothing.
#if REDRAW_HAVE_CUDA

#include "cuda_test_support.h"
#include "reference_mlp.h"
#include "test_support.h"

#include "cuda/cuda_backend.h"
#include "cuda/fused_mlp_rules.h"
#include "cuda/hash_grid_choice.h"
#include "cpu/cpu_backend.h"
#include "engine/frames/renderer.h"
#include "engine/rng_math.h"
#include "engine/training/trainer.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace redraw;
using redraw::test::normalised_error;

using redraw::test::EpilogueScope;
using redraw::test::mse_on_both;
using redraw::test::KernelScope;
using redraw::test::uniform_values;
using redraw::test::worst_level_difference;

namespace {

EncodingSpec small_grid(int32_t levels, int32_t features) { return test::hash_grid_spec(levels, features, 10, 4, 256); }

ModelSpec model_of(const EncodingSpec& enc, int32_t width, int32_t layers, Activation out, int32_t channels) {
  return test::mlp_on(enc, width, layers, Activation::Relu, out, channels);
}

std::vector<float> params_of(const ModelSpec& m, uint64_t seed) {
  std::vector<float> p = initial_parameters(m, seed);
  const int64_t table = encoding_parameter_count(m.encoding);
  for (int64_t i = 0; i < table; ++i) p[size_t(i)] = float(2 * random_unit(seed, 41, uint64_t(i)) - 1) * 0.5f;
  return p;
}

} // namespace

TEST_CASE("cuda sanitize: fused MLP forward and backward at every width and epilogue, on batches that end inside a tile") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  CudaBackend gpu(0);
  gpu.set_precision(CudaPrecision::Auto);
  CpuBackend cpu;
  struct Case {
    int32_t width, layers, channels;
    Activation out;
  };
  const Case cases[] = {Case{16, 1, 3, Activation::Sigmoid}, Case{32, 2, 3, Activation::Sigmoid},
                        Case{64, 3, 1, Activation::Identity}, Case{128, 2, 3, Activation::Sigmoid}};
  const cuda::FusedEpilogue epilogues[] = {cuda::FusedEpilogue::Staged, cuda::FusedEpilogue::Fragment};
  for (int i = 0; i < 8; ++i) {
    const Case k = cases[i / 2];
    const cuda::FusedEpilogue epilogue = epilogues[i % 2];
    EpilogueScope scope(epilogue);
    CAPTURE(k.width);
    CAPTURE(cuda::fused_epilogue_name(epilogue));
    const ModelSpec m = model_of(small_grid(k.width == 16 ? 8 : 16, 2), k.width, k.layers, k.out, k.channels);
    REQUIRE(gpu.uses_fused_mlp(m));
    const auto params = params_of(m, 3);
    const int64_t n = 300; // not a multiple of any tile's rows
    const auto coords = uniform_values(size_t(n) * 2, 5, 42, -1.0f, 1.0f);
    const auto targets = uniform_values(size_t(n) * size_t(k.channels), 6, 43, 0.0f, 1.0f);
    std::vector<float> want(size_t(n) * size_t(k.channels)), got(want.size());
    cpu.predict(m, params, {}, coords.data(), n, want.data());
    gpu.predict(m, params, {}, coords.data(), n, got.data());
    CHECK(normalised_error(got, want) <= 2e-2);
    const auto both = mse_on_both(gpu, cpu, m, params, coords, targets, n);
    CHECK(both.l_gpu == doctest::Approx(both.l_cpu).epsilon(3e-2));
    CHECK(both.gradient_error() <= 6e-2);
  }
}

TEST_CASE("cuda sanitize: hash grid encode and backward with 1, 2 and 4 features") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  CudaBackend gpu(0);
  gpu.set_precision(CudaPrecision::Fp32); // the grid's backward under cuBLAS's exact-enough MLP
  CpuBackend cpu;
  for (int32_t f : {1, 2, 4}) {
    CAPTURE(f);
    const EncodingSpec e = small_grid(6, f);
    const int64_t n = 777;
    const auto coords = uniform_values(size_t(n) * 2, 7, 44, -1.0f, 1.0f);
    const auto table = uniform_values(size_t(encoding_parameter_count(e)), 8, 45, -1.0f, 1.0f);
    std::vector<float> want(size_t(n) * size_t(e.width())), got(want.size());
    cpu.encode(e, table, coords.data(), n, want.data());
    gpu.encode(e, table, coords.data(), n, got.data());
    CHECK(normalised_error(got, want) <= 1e-5);
    const ModelSpec m = model_of(e, 32, 1, Activation::Sigmoid, 3);
    const auto params = params_of(m, 9);
    const auto targets = uniform_values(size_t(n) * 3, 10, 46, 0.0f, 1.0f);
    CHECK(mse_on_both(gpu, cpu, m, params, coords, targets, n).gradient_error() <= 1e-4);
  }
}

TEST_CASE("cuda sanitize: the alternative hash-grid kernels (per-level encode, warp-aggregated backward)") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  using namespace redraw::cuda;
  KernelScope scope({HashGridEncodeKernel::PerLevel, HashGridBackwardKernel::WarpAggregated});
  CudaBackend gpu(0);
  gpu.set_precision(CudaPrecision::Fp32);
  CpuBackend cpu;
  for (int32_t f : {1, 2}) {
    CAPTURE(f);
    const ModelSpec m = model_of(small_grid(5, f), 32, 1, Activation::Sigmoid, 3);
    const auto params = params_of(m, 11);
    const int64_t n = 333; // the last warp only partly filled
    const auto coords = uniform_values(size_t(n) * 2, 12, 47, -1.0f, 1.0f);
    const auto targets = uniform_values(size_t(n) * 3, 13, 48, 0.0f, 1.0f);
    CHECK(mse_on_both(gpu, cpu, m, params, coords, targets, n).gradient_error() <= 1e-4);
  }
}

TEST_CASE("cuda sanitize: hash grid shared-dense backward (coarse levels summed in shared memory, then flushed)") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  using namespace redraw::cuda;
  KernelScope scope({HashGridEncodeKernel::PerSample, HashGridBackwardKernel::SharedDense});
  CudaBackend gpu(0);
  gpu.set_precision(CudaPrecision::Fp32);
  CpuBackend cpu;
  // Levels 0 and 1 (25 + 144 vertices) in shared memory, levels 2-4 hashed in global memory.
  for (int32_t f : {1, 2, 8}) {
    CAPTURE(f);
    const ModelSpec m = model_of(small_grid(5, f), 32, 1, Activation::Sigmoid, 3);
    const auto params = params_of(m, 14);
    const int64_t n = 5000; // three blocks of 512 threads (hash_grid_shared_blocks), 3-4 samples each
    const auto coords = uniform_values(size_t(n) * 2, 15, 49, -1.0f, 1.0f);
    const auto targets = uniform_values(size_t(n) * 3, 16, 50, 0.0f, 1.0f);
    CHECK(mse_on_both(gpu, cpu, m, params, coords, targets, n).gradient_error() <= 1e-4);
  }
}

TEST_CASE("cuda sanitize: bound instant steps (eager, captured, replayed), renders and timelapse frames") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  const RunConfig c = test::small_instant(10, 777, 6, 2);
  const Image img = redraw::test::gradient_image(40, 30, 3);
  for (CudaPrecision p : {CudaPrecision::Auto, CudaPrecision::Fp32}) {
    CAPTURE(cuda_precision_name(p));
    auto b = test::cuda_backend(p);
    CudaBackend* gpu = b.get();
    Trainer t(std::move(b), c, Dataset{img});
    SnapshotPolicy every_two;
    every_two.per_octave = 0;
    every_two.every = 2;
    t.set_snapshot_policy(every_two);
    t.run(6);
    t.flush_metrics();
    CHECK(t.frames().store().size() >= 3);
    for (const auto& row : t.record().rows()) CHECK(std::isfinite(row.psnr_db));
    const auto params = t.parameters();
    CpuBackend reference;
    const NetworkView view{&t.config().model, params, {}};
    const int bound = p == CudaPrecision::Fp32 ? 1 : 4;
    // Below the training chunk (its own workspace), then above it (the render workspace).
    CHECK(worst_level_difference(gpu->render_rgba8(40, 30), render_image(reference, view, 40, 30)) <= bound);
    CHECK(worst_level_difference(gpu->render_rgba8(200, 150), render_image(reference, view, 200, 150)) <= bound);
  }
}

#endif // REDRAW_HAVE_CUDA
