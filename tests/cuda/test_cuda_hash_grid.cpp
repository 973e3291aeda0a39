// The HashGrid encoding and the fully fused MLP on the GPU against the CPU reference backend.
// Normalised error e = max |cuda - cpu| / max |cpu| (reference_mlp.h), with bounds:
//   encode                               1e-5 (the same float math; FMA contraction differs)
//   fp32 (cuBLAS) loss gradients         1e-4 (table gradients are atomic sums in any order)
//   fused fp16 MLP (precision auto)      predict 1e-2, gradients 3e-2 (fp16 inputs and
//                                        activations, 11-bit significands, fp32 accumulation)
//   100-step training runs               PSNR within 0.1 dB (fp32) or 1 dB (fused fp16) of the CPU's
//   rendering                            RGBA8 within 1 level (fp32) or 4 levels (fused fp16)
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
#include <cstdio>

using namespace redraw;
using redraw::test::normalised_error;


namespace {

EncodingSpec grid(int32_t levels, int32_t features, int32_t log2, GridInterpolation interp) {
  EncodingSpec e;
  e.kind = EncodingKind::HashGrid;
  e.n_levels = levels;
  e.n_features_per_level = features;
  e.log2_hashmap_size = log2;
  e.base_resolution = 16;
  e.finest_resolution = 2048;
  e.interpolation = interp;
  return e;
}

std::vector<float> coords_of(int64_t n, uint64_t seed) {
  std::vector<float> c(size_t(n) * 2);
  for (size_t i = 0; i < c.size(); ++i)
    c[i] = float(2 * random_unit(seed, 31, i) - 1);
  return c;
}

std::vector<float> targets_of(int64_t count, uint64_t seed) {
  std::vector<float> t(static_cast<size_t>(count));
  for (size_t i = 0; i < t.size(); ++i)
    t[i] = float(random_unit(seed, 32, i));
  return t;
}

/// A network with a trained-looking table (+-0.5) and biases away from zero.
struct Net {
  ModelSpec model;
  std::vector<float> params;
};

Net make_net(const EncodingSpec& enc, std::vector<int32_t> hidden, Activation act, Activation out, int32_t channels,
             uint64_t seed) {
  Net n;
  n.model.encoding = enc;
  n.model.hidden = hidden;
  n.model.hidden_activations.assign(hidden.size(), act);
  n.model.output_activation = out;
  n.model.output_channels = channels;
  n.model.init = act == Activation::Relu ? InitKind::He : InitKind::Xavier;
  n.params = initial_parameters(n.model, seed);
  const int64_t table = encoding_parameter_count(enc);
  for (int64_t i = 0; i < table; ++i)
    n.params[size_t(i)] = float(2 * random_unit(seed, 33, uint64_t(i)) - 1) * 0.5f;
  for (const auto& L : dense_layers(n.model))
    for (int32_t o = 0; o < L.out; ++o)
      n.params[size_t(L.bias_offset + o)] = float(0.2 * (2 * random_unit(seed, 34, uint64_t(L.bias_offset + o)) - 1));
  return n;
}

RunConfig instant_like(int64_t batch) { return test::small_instant(14, batch, 100, 25); }

} // namespace

TEST_CASE("cuda hash grid: encode matches the CPU (linear, smoothstep, 1/2/4 features, dense and hashed levels)") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  auto gpu = test::cuda_backend(CudaPrecision::Fp32);
  CpuBackend cpu;
  const int64_t n = 5000;
  const auto coords = coords_of(n, 3);
  for (GridInterpolation interp : {GridInterpolation::Linear, GridInterpolation::Smoothstep}) {
    for (int32_t f : {1, 2, 4}) {
      const EncodingSpec e = grid(16, f, 15, interp);
      std::vector<float> table(size_t(encoding_parameter_count(e)));
      for (size_t i = 0; i < table.size(); ++i)
        table[i] = float(2 * random_unit(9, 35, i) - 1);
      std::vector<float> want(size_t(n) * size_t(e.width())), got(want.size());
      cpu.encode(e, table, coords.data(), n, want.data());
      gpu->encode(e, table, coords.data(), n, got.data());
      CAPTURE(f);
      CHECK(normalised_error(got, want) <= 1e-5);
    }
  }
}

TEST_CASE("cuda hash grid: fp32 loss and gradients (table included) match the CPU, over several chunks") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  auto gpu = test::cuda_backend(CudaPrecision::Fp32);
  CpuBackend cpu;
  for (int32_t channels : {1, 3}) {
    const Net net = make_net(grid(8, 2, 12, GridInterpolation::Linear), {32, 32}, Activation::Relu, Activation::Sigmoid,
                             channels, 5);
    CHECK_FALSE(gpu->uses_fused_mlp(net.model));
    const int64_t n = 70000; // more than one stateless chunk (2^16)
    const auto coords = coords_of(n, 6);
    const auto targets = targets_of(n * channels, 7);
    const auto both = test::mse_on_both(*gpu, cpu, net.model, net.params, coords, targets, n);
    CHECK(both.l_gpu == doctest::Approx(both.l_cpu).epsilon(1e-5));
    CHECK(both.gradient_error() <= 1e-4);
  }
}

TEST_CASE("cuda fused MLP: predict and gradients match the CPU within fp16 rounding") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  auto gpu = test::cuda_backend(CudaPrecision::Auto);
  CpuBackend cpu;
  struct Case {
    EncodingSpec enc;
    std::vector<int32_t> hidden;
    Activation act, out;
    int32_t channels;
  };
  EncodingSpec positional;
  positional.kind = EncodingKind::Positional;
  positional.levels = 3; // 14 inputs, padded to 16
  const Case cases[] = {
      {grid(16, 2, 15, GridInterpolation::Linear), {64, 64}, Activation::Relu, Activation::Sigmoid, 3},
      {grid(16, 2, 15, GridInterpolation::Smoothstep), {64, 64, 64}, Activation::Relu, Activation::Identity, 1},
      {grid(8, 2, 14, GridInterpolation::Linear), {16}, Activation::Tanh, Activation::Sigmoid, 3},
      {grid(16, 2, 14, GridInterpolation::Linear), {32, 32}, Activation::LeakyRelu, Activation::Sigmoid, 3},
      {grid(16, 4, 14, GridInterpolation::Linear), {128, 128}, Activation::Relu, Activation::Sigmoid, 3},
      {positional, {64, 64}, Activation::Sigmoid, Activation::Tanh, 1},
  };
  for (const Case& k : cases) {
    const Net net = make_net(k.enc, k.hidden, k.act, k.out, k.channels, 8);
    CAPTURE(k.hidden.front());
    CAPTURE(activation_name(k.act));
    REQUIRE(gpu->uses_fused_mlp(net.model));
    const int64_t n = 20000;
    const auto coords = coords_of(n, 10);
    const auto targets = targets_of(n * k.channels, 11);
    std::vector<float> want(size_t(n) * size_t(k.channels)), got(want.size());
    cpu.predict(net.model, net.params, {}, coords.data(), n, want.data());
    gpu->predict(net.model, net.params, {}, coords.data(), n, got.data());
    CHECK(normalised_error(got, want) <= 1e-2);
    const auto both = test::mse_on_both(*gpu, cpu, net.model, net.params, coords, targets, n);
    CHECK(both.l_gpu == doctest::Approx(both.l_cpu).epsilon(2e-2));
    CHECK(both.gradient_error() <= 3e-2);
    // The MLP part alone (the table's gradients are far larger and would hide an MLP error).
    const size_t table = size_t(encoding_parameter_count(k.enc));
    const std::vector<float> m_cpu(both.g_cpu.begin() + std::ptrdiff_t(table), both.g_cpu.end());
    const std::vector<float> m_gpu(both.g_gpu.begin() + std::ptrdiff_t(table), both.g_gpu.end());
    CHECK(normalised_error(m_gpu, m_cpu) <= 3e-2);
  }
  // Shapes the fused kernels do not cover go to cuBLAS.
  CHECK_FALSE(gpu->uses_fused_mlp(
      make_net(grid(16, 2, 12, GridInterpolation::Linear), {64, 32}, Activation::Relu, Activation::Sigmoid, 3, 1)
          .model));
  CHECK_FALSE(gpu->uses_fused_mlp(
      make_net(grid(16, 2, 12, GridInterpolation::Linear), {256}, Activation::Relu, Activation::Sigmoid, 3, 1).model));
  CHECK_FALSE(gpu->uses_fused_mlp(
      make_net(grid(16, 2, 12, GridInterpolation::Linear), {64}, Activation::Sine, Activation::Sigmoid, 3, 1).model));
}

TEST_CASE("cuda hash grid: 100-step training runs match the CPU (fp32 and fused), and a batch over one chunk") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  const Image img = redraw::test::gradient_image(96, 64, 3);
  for (CudaPrecision p : {CudaPrecision::Fp32, CudaPrecision::Auto}) {
    CAPTURE(cuda_precision_name(p));
    const bool fp32 = p == CudaPrecision::Fp32;
    test::check_parity_run(instant_like(4096), img,
                           {.precision = p, .psnr_db = fp32 ? 0.1 : 1.0, .levels = fp32 ? 1 : 4, .final_db = 25.0});
  }
  // One step with a batch of two device chunks (2^18 + 40,000 samples): the table gradient is
  // cleared once and accumulates over both.
  RunConfig big = instant_like(300000);
  big.schedule.kind = ScheduleKind::Constant;
  Trainer cpu(std::make_unique<CpuBackend>(), big, Dataset{img});
  Trainer gpu(test::cuda_backend(CudaPrecision::Fp32), big, Dataset{img});
  cpu.step();
  gpu.step();
  CHECK(normalised_error(gpu.parameters(), cpu.parameters()) <= 1e-4);
}

TEST_CASE("cuda hash grid: weight decay spares the table on the GPU as on the CPU") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  RunConfig c = instant_like(512);
  c.model.encoding.log2_hashmap_size = 12;
  c.optimizer.adam.weight_decay = 0.1f;
  const Image img = redraw::test::gradient_image(32, 32, 3);
  Trainer cpu(std::make_unique<CpuBackend>(), c, Dataset{img});
  Trainer gpu(test::cuda_backend(CudaPrecision::Fp32), c, Dataset{img});
  cpu.run(3);
  gpu.run(3);
  CHECK(normalised_error(gpu.parameters(), cpu.parameters()) <= 1e-3);
}

#endif // REDRAW_HAVE_CUDA
