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

#include "cuda/fused_mlp_rules.h"
#include "cuda/hash_grid_choice.h"
#include "engine/backend.h"
#include "engine/images/image.h"
#include "engine/run_config.h"
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

} // namespace redraw::test
