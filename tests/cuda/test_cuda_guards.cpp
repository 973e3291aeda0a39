// The CUDA backend's guards on a device: a pass over more rows than its buffers hold throws
// instead of writing past them; set_precision leaves no render workspace of the old precision
// behind; a BCE run with a linear output trains in fp32 on cuBLAS instead of overflowing fp16.
// The rules themselves are checked on the CPU (tests/engine/cuda/test_fused_mlp_rules.cpp).
// Without a device every case prints "SKIPPED: no CUDA device: <why>" and checks nothing.
#if REDRAW_HAVE_CUDA

#include "cuda_test_support.h"
#include "reference_mlp.h"
#include "test_support.h"

#include "cuda/cuda_backend.h"
#include "cuda/mlp_pass.h"
#include "cpu/cpu_backend.h"
#include "engine/errors.h"
#include "engine/frames/renderer.h"
#include "engine/training/trainer.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace redraw;
using redraw::test::worst_level_difference;

namespace {

RunConfig small_instant() { return test::small_instant(12, 1024, 40, 10); }

/// A stream, a cuBLAS handle and the device's pool for calling the passes directly.
struct Device {
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  std::shared_ptr<cuda::DevicePool> pool;
  Device() {
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaStreamCreate(&stream));
    pool = cuda::DevicePool::shared(0);
    CUBLAS_CHECK(cublasCreate(&blas));
    CUBLAS_CHECK(cublasSetStream(blas, stream));
  }
  ~Device() {
    (void)cudaStreamSynchronize(stream);
    (void)cublasDestroy(blas);
    (void)cudaStreamDestroy(stream);
  }
  cuda::CudaContext ctx(bool fused) const { return {stream, blas, pool.get(), nullptr, CUBLAS_COMPUTE_32F, fused}; }
};

} // namespace

TEST_CASE("cuda guards: a pass over more rows than the workspace holds throws (fused and cuBLAS)") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  Device d;
  const ModelSpec model = small_instant().model;
  const int64_t rows = 1024;
  cuda::DeviceBuffer<float> params(*d.pool, d.stream, size_t(parameter_count(model)), "parameters");
  params.zero();
  cuda::DeviceBuffer<float> input(*d.pool, d.stream, size_t(2 * rows) * size_t(model.encoding.width()), "inputs");
  input.zero();
  for (bool fused : {true, false}) {
    CAPTURE(fused);
    cuda::MlpWorkspace ws;
    ws.allocate(d.ctx(fused), model, rows, false);
    CHECK(ws.fused() == fused);
    CHECK_NOTHROW(cuda::mlp_forward(d.ctx(fused), ws, params.data(), input.data(), rows));
    CHECK_THROWS_AS(cuda::mlp_forward(d.ctx(fused), ws, params.data(), input.data(), rows + 1), BackendError);
  }
  // FusedMlp itself, forward and backward.
  cuda::FusedMlp f;
  f.allocate(*d.pool, d.stream, model, rows, true);
  cuda::DeviceBuffer<float> out(*d.pool, d.stream, size_t(2 * rows) * size_t(model.output_channels), "outputs");
  cuda::DeviceBuffer<float> grads(*d.pool, d.stream, size_t(parameter_count(model)), "gradients");
  CHECK_THROWS_AS(f.forward(d.stream, params.data(), input.data(), rows + 16, out.data(), true), BackendError);
  CHECK_NOTHROW(f.forward(d.stream, params.data(), input.data(), rows, out.data(), true));
  CHECK_THROWS_AS(f.backward(d.stream, d.blas, out.data(), out.data(), rows + 16, 1.0f / float(rows), grads.data(),
                             false, nullptr),
                  BackendError);
  CUDA_CHECK(cudaStreamSynchronize(d.stream));
}

TEST_CASE("cuda guards: after set_precision a large render uses the new precision's workspace") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  const RunConfig c = small_instant();
  const Image img = redraw::test::gradient_image(64, 64, 3); // chunks of 1024 rows: 160x160 renders in tiles
  auto b = test::cuda_backend(CudaPrecision::Auto);
  CudaBackend* gpu = b.get();
  Trainer t(std::move(b), c, Dataset{img});
  t.run(20);
  REQUIRE(gpu->uses_fused_mlp(c.model, &c.loss));
  const auto params = t.parameters();
  CpuBackend reference;
  const NetworkView view{&t.config().model, params, {}};
  const Image want = render_image(reference, view, 160, 160);
  const int fused_worst = worst_level_difference(gpu->render_rgba8(160, 160), want); // builds the fp16 workspace
  gpu->set_precision(CudaPrecision::Fp32);
  const int fp32_worst = worst_level_difference(gpu->render_rgba8(160, 160), want);
  MESSAGE("render against the CPU: fused fp16 " << fused_worst << " level(s), after set_precision(fp32) "
                                                << fp32_worst);
  CHECK(fused_worst <= 4);
  CHECK(fp32_worst <= 1); // fp32's bound (test_cuda_parity.cpp); an fp16 workspace left behind misses it
}

TEST_CASE("cuda guards: BCE with a linear output trains in fp32 on cuBLAS, as the CPU does") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  RunConfig c = small_instant();
  c.loss.kind = LossKind::BCE;
  c.model.output_activation = Activation::Identity;
  const Image img = redraw::test::gradient_image(48, 48, 3);
  auto b = test::cuda_backend(CudaPrecision::Auto);
  CudaBackend* gpu = b.get();
  CHECK_FALSE(gpu->uses_fused_mlp(c.model, &c.loss));
  CHECK(gpu->uses_fused_mlp(c.model)); // the shape alone would run fused
  Trainer tg(std::move(b), c, Dataset{img});
  Trainer tc(std::make_unique<CpuBackend>(), c, Dataset{img});
  CHECK(gpu->device_description().find("fused fp16 MLP off: BCE") != std::string::npos);
  tg.run(40);
  tc.run(40);
  const auto& hg = tg.record().rows();
  const auto& hc = tc.record().rows();
  REQUIRE(hg.size() == hc.size());
  for (size_t i = 0; i < hg.size(); ++i) {
    CAPTURE(i);
    CHECK(std::isfinite(hg[i].loss) == std::isfinite(hc[i].loss));
    if (std::isfinite(hc[i].psnr_db)) CHECK(std::abs(hg[i].psnr_db - hc[i].psnr_db) <= 0.1);
  }
}

#endif // REDRAW_HAVE_CUDA
