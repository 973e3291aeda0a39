#pragma once
/// Shared by the CUDA test files: every case needs a device; without one it prints
/// "SKIPPED: no CUDA device: <why>" (doctest MESSAGE and stdout, which ctest turns into a skip)
/// and checks nothing, so a CPU-only run shows what was not tested. Below the macro: scopes for
/// the module's kernel choices, and the models and comparisons several files use.
#include "cuda/cuda_backend.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#define REDRAW_REQUIRE_CUDA_DEVICE()                                                                                 \
  do {                                                                                                               \
    std::string why_;                                                                                                \
    if (::redraw::cuda_device_count(&why_) == 0) {                                                                   \
      MESSAGE("SKIPPED: no CUDA device: " << why_);                                                                  \
      std::printf("SKIPPED: no CUDA device: %s\n", why_.c_str());                                                    \
      return;                                                                                                        \
    }                                                                                                                \
  } while (0)

#include "cpu/cpu_backend.h"
#include "cuda/fused_mlp_rules.h"
#include "cuda/hash_grid_choice.h"
#include "engine/backend.h"
#include "engine/frames/renderer.h"
#include "engine/images/image.h"
#include "engine/run_config.h"
#include "engine/training/trainer.h"
#include "primitive_fixtures.h"
#include "reference_mlp.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

namespace redraw::test {

/// Sets one of the CUDA module's process-wide kernel choices for a scope, then restores it.
template <class T, T (*Get)(), auto Set> struct ChoiceScope {
  T saved = Get();
  explicit ChoiceScope(const T& choice) { Set(choice); }
  ~ChoiceScope() { Set(saved); }
  ChoiceScope(const ChoiceScope&) = delete;
  ChoiceScope& operator=(const ChoiceScope&) = delete;
};
using KernelScope = ChoiceScope<cuda::HashGridKernels, &cuda::hash_grid_kernels, &cuda::set_hash_grid_kernels>;
using EpilogueScope = ChoiceScope<cuda::FusedEpilogue, &cuda::fused_epilogue, &cuda::set_fused_epilogue>;

/// A coordinate MLP on `enc`: `layers` hidden layers of `width` with activation `act`, He init.
inline ModelSpec mlp_on(const EncodingSpec& enc, int32_t width, int32_t layers, Activation act, Activation out,
                        int32_t channels) {
  ModelSpec m;
  m.encoding = enc;
  m.hidden.assign(size_t(layers), width);
  m.hidden_activations.assign(size_t(layers), act);
  m.output_activation = out;
  m.output_channels = channels;
  m.init = InitKind::He;
  return m;
}

/// Both backends' MSE loss and gradients on one batch.
struct LossAndGradients {
  double l_cpu = 0, l_gpu = 0;
  std::vector<float> g_cpu, g_gpu;
  /// The GPU's gradients against the CPU's (normalised_error).
  double gradient_error() const { return normalised_error(g_gpu, g_cpu); }
};

/// Runs loss_and_gradients on `gpu` and `cpu` for `n` samples. The GPU's gradients start at 99, so
/// one it leaves unwritten shows.
inline LossAndGradients mse_on_both(Backend& gpu, Backend& cpu, const ModelSpec& m, const std::vector<float>& params,
                                    const std::vector<float>& coords, const std::vector<float>& targets, int64_t n) {
  LossAndGradients r;
  r.g_cpu.resize(params.size());
  r.g_gpu.assign(params.size(), 99.0f);
  const LossParams mse{};
  r.l_cpu = cpu.loss_and_gradients(m, mse, params, {}, coords.data(), targets.data(), n, r.g_cpu);
  r.l_gpu = gpu.loss_and_gradients(m, mse, params, {}, coords.data(), targets.data(), n, r.g_gpu);
  return r;
}

/// A CUDA backend on device 0 at precision `p`.
inline std::unique_ptr<CudaBackend> cuda_backend(CudaPrecision p) {
  auto b = std::make_unique<CudaBackend>(0);
  b->set_precision(p);
  return b;
}

/// Checks the GPU's encode of `e` with the floats `g` at `coords` against the CPU's: normalised
/// error at most 1e-5 (the GPU's output starts at 99, so a value it leaves unwritten shows).
inline void check_same_encoding(Backend& gpu, Backend& cpu, const EncodingSpec& e, const std::vector<float>& g,
                                const std::vector<float>& coords) {
  const int64_t n = int64_t(coords.size() / 2);
  std::vector<float> want(size_t(n) * size_t(e.width())), got(want.size(), 99.0f);
  cpu.encode(e, g, coords.data(), n, want.data());
  gpu.encode(e, g, coords.data(), n, got.data());
  CHECK(normalised_error(got, want) <= 1e-5);
}

/// The encoding's part of both backends' gradients: its leading floats (the head's few could hide it).
struct EncodingGradients {
  std::vector<float> gpu, cpu;
};

/// Both backends' MSE loss and gradients for a primitive model `m` and its `params` (fp32 on the
/// GPU), on 70,000 samples (more than one stateless chunk, 2^16): coordinates from border_coords(n,
/// 7, coord_stream), targets in [0, 1) from (8, target_stream). Checked: the losses within 1e-5, all
/// the gradients and the encoding's alone within 1e-4, and a rerun on the GPU bit for bit. Returns
/// the encoding's gradients for a caller's further checks.
inline EncodingGradients check_primitive_gradients(const ModelSpec& m, const std::vector<float>& params,
                                                   uint64_t coord_stream, uint64_t target_stream) {
  auto gpu_backend = cuda_backend(CudaPrecision::Fp32);
  Backend& gpu = *gpu_backend;
  CpuBackend cpu;
  const int64_t n = 70000;
  const std::vector<float> coords = border_coords(n, 7, coord_stream);
  const std::vector<float> targets = uniform_values(size_t(n) * 3, 8, target_stream, 0.0f, 1.0f);
  const LossAndGradients both = mse_on_both(gpu, cpu, m, params, coords, targets, n);
  CHECK(both.l_gpu == doctest::Approx(both.l_cpu).epsilon(1e-5));
  CHECK(both.gradient_error() <= 1e-4);
  const auto lead = std::ptrdiff_t(encoding_parameter_count(m.encoding));
  EncodingGradients e{{both.g_gpu.begin(), both.g_gpu.begin() + lead}, {both.g_cpu.begin(), both.g_cpu.begin() + lead}};
  CHECK(normalised_error(e.gpu, e.cpu) <= 1e-4);
  const LossAndGradients again = mse_on_both(gpu, cpu, m, params, coords, targets, n);
  CHECK(again.g_gpu == both.g_gpu);
  return e;
}


/// The instant preset made small: a table of at most 2^log2_table entries per level, the same
/// `batch` on both backends, `steps` steps with a metrics row every `metrics_every`.
inline RunConfig small_instant(int32_t log2_table, int64_t batch, int64_t steps, int64_t metrics_every) {
  RunConfig c = load_preset("instant");
  c.model.encoding.log2_hashmap_size = log2_table;
  c.training.batch_size = batch;
  c.training.cpu_batch_size = -1; // the same batch on both backends
  c.training.steps = steps;
  c.training.metrics_every = metrics_every;
  return c;
}

/// The most 8-bit levels by which an RGBA8 device render differs from `want` (clamped, rounded).
inline int worst_level_difference(const std::vector<uint8_t>& rgba, const Image& want) {
  int worst = 0;
  for (size_t px = 0; px < size_t(want.width) * size_t(want.height); ++px)
    for (int k = 0; k < want.channels; ++k) {
      const int v = int(std::clamp(want.pixels[px * size_t(want.channels) + size_t(k)], 0.0f, 1.0f) * 255.0f + 0.5f);
      worst = std::max(worst, std::abs(int(rgba[px * 4 + size_t(k)]) - v));
    }
  return worst;
}

/// What check_parity_run allows: the GPU's precision, how far its PSNR may be from the CPU's at a
/// metrics row, and its render from the CPU's (8-bit levels); and what the GPU's run must reach:
/// a last PSNR above `final_db` when that is set, else `gain_db` above its first.
struct ParityBounds {
  CudaPrecision precision = CudaPrecision::Fp32;
  double psnr_db = 0.1;
  int levels = 1;
  double gain_db = 3.0, final_db = 0.0;
};

/// Trains `c` on `img` to its last step on the CPU and on the GPU and checks, within `b`: the same
/// metrics rows and their PSNR, the GPU's run learning, and the GPU's RGBA8 render of its
/// parameters against the CPU backend's render of them.
inline void check_parity_run(const RunConfig& c, const Image& img, const ParityBounds& b = {}) {
  Trainer cpu(std::make_unique<CpuBackend>(), c, Dataset{img});
  Trainer gpu(cuda_backend(b.precision), c, Dataset{img});
  cpu.run(c.training.steps);
  gpu.run(c.training.steps);
  const auto& hc = cpu.record().rows();
  const auto& hg = gpu.record().rows();
  REQUIRE(hc.size() == hg.size());
  for (size_t i = 0; i < hc.size(); ++i) CHECK(std::abs(hg[i].psnr_db - hc[i].psnr_db) <= b.psnr_db);
  CHECK(hg.back().psnr_db > (b.final_db > 0 ? b.final_db : hg.front().psnr_db + b.gain_db)); // it learns
  // The bound network renders like the CPU renders the same parameters.
  auto* cuda = dynamic_cast<CudaBackend*>(&gpu.backend());
  REQUIRE(cuda);
  const auto params = gpu.parameters();
  CpuBackend reference;
  const NetworkView view{&gpu.config().model, params, {}};
  const Image want = render_image(reference, view, 131, 77);
  CHECK(worst_level_difference(cuda->render_rgba8(131, 77), want) <= b.levels);
}

} // namespace redraw::test
