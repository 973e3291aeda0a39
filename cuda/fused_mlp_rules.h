#pragma once
/// Which networks the fused fp16 MLP (cuda/fused_mlp.cuh) runs, and the checks its passes make,
/// in plain C++ so the CPU tests check them (no CUDA headers).
/// - Shape: every hidden layer 16, 32, 64 or 128 wide, at most k_fused_max_hidden of them, an
///   encoding no wider than the hidden layers, at most 16 outputs, and no activation whose
///   derivative needs the pre-activation (Softplus, Sine, Finer, Gauss, Gabor: the fp16
///   kernels keep only y).
/// - Loss: the backward pass stores dLoss/dZ of the output layer in fp16, unscaled, i.e.
///   loss_gradient(pred) * activate_derivative(output). fp16 ends at 65504. BCE's gradient
///   (q - t) / (q (1 - q)) reaches 1 / eps (10^6 at the default eps) near 0 and 1, and only a
///   sigmoid output cancels it (its derivative y (1 - y) is the denominator); with any other output
///   the fp16 value overflows to inf and the run diverges. Such a network trains in fp32 on cuBLAS.
/// - Rows: a pass takes at most the rows its buffers were allocated for.
#include "engine/errors.h"
#include "engine/loss_math.h"
#include "engine/model_family.h"

#include <cstdint>
#include <string>

namespace redraw::cuda {

constexpr int32_t k_fused_max_hidden = 8;
constexpr int32_t k_fused_out_pad = 16;
/// The largest finite fp16 value.
constexpr float k_fp16_max = 65504.0f;

inline int32_t fused_round16(int32_t v) { return (v + 15) / 16 * 16; }
inline bool fused_supported_width(int32_t w) { return w == 16 || w == 32 || w == 64 || w == 128; }

/// "" when the fused kernels cover the shape of `model`, else why not (for logs and the benchmark).
inline std::string fused_mlp_unsupported(const ModelSpec& model) {
  if (const char* why = model_family(model.encoding.kind).fused_refusal) return why;
  if (model.hidden.empty()) return "no hidden layer";
  if (int32_t(model.hidden.size()) > k_fused_max_hidden)
    return "more than " + std::to_string(k_fused_max_hidden) + " hidden layers";
  const int32_t w = model.hidden.front();
  if (!fused_supported_width(w)) return "hidden width " + std::to_string(w) + " is not 16, 32, 64 or 128";
  for (int32_t h : model.hidden)
    if (h != w) return "hidden layers of different widths";
  if (fused_round16(model.encoding.width()) > w) return "the encoding is wider than the hidden layers";
  if (model.output_channels > k_fused_out_pad) return "more than 16 outputs";
  const auto needs_z = activation_derivative_needs_z;
  for (Activation a : model.hidden_activations)
    if (needs_z(a)) return std::string(activation_name(a)) + " activation";
  if (needs_z(model.output_activation)) return std::string(activation_name(model.output_activation)) + " output";
  return {};
}

/// "" when training with `loss` keeps the fused backward's fp16 output gradient finite for an
/// output layer with activation `output`, else why not (see the header).
inline std::string fused_loss_unsupported(const LossParams& loss, Activation output) {
  if (loss.kind == LossKind::BCE && output != Activation::Sigmoid)
    return std::string("BCE loss with a ") + activation_name(output) +
           " output: its gradient reaches 1/eps and overflows fp16, so the MLP trains in fp32 on cuBLAS";
  return {};
}

/// Both rules: "" when a network of `model`, trained with `loss` (null: forward passes only),
/// runs on the fused kernels.
inline std::string fused_mlp_unsupported(const ModelSpec& model, const LossParams* loss) {
  std::string why = fused_mlp_unsupported(model);
  if (why.empty() && loss) why = fused_loss_unsupported(*loss, model.output_activation);
  return why;
}

/// The fused kernels' epilogue: staged (the first kernels: accumulators through shared memory,
/// per-element bias and activation, 2-byte stores) or fragment (bias in the accumulators,
/// activation on the fragments, 16-byte stores, several tiles per warp). REDRAW_FUSED_MLP_EPILOGUE
/// picks one at start-up; set_fused_epilogue for the whole process (tests, the benchmark).
enum class FusedEpilogue : int32_t { Staged = 0, Fragment };

inline const char* fused_epilogue_name(FusedEpilogue e) { return e == FusedEpilogue::Fragment ? "fragment" : "staged"; }

/// "staged" or "fragment"; null or empty: staged. ConfigError naming the known ones otherwise.
inline FusedEpilogue parse_fused_epilogue(const char* name) {
  const std::string n = name ? name : "";
  if (n.empty() || n == "staged") return FusedEpilogue::Staged;
  if (n == "fragment") return FusedEpilogue::Fragment;
  throw ConfigError("REDRAW_FUSED_MLP_EPILOGUE: '" + n + "' not found (known: staged, fragment)");
}

/// Defined in cuda/fused_mlp.cu (the CUDA library); thread-safe.
FusedEpilogue fused_epilogue();
void set_fused_epilogue(FusedEpilogue e);

/// "" when a pass over `rows` samples fits buffers allocated for `capacity`, else the error message.
inline std::string fused_rows_problem(int64_t rows, int64_t capacity) {
  if (rows < 0) return "fused MLP: a pass over " + std::to_string(rows) + " rows";
  if (rows > capacity)
    return "fused MLP: a pass over " + std::to_string(rows) + " rows exceeds the " + std::to_string(capacity) +
           " its buffers hold";
  return {};
}

} // namespace redraw::cuda
