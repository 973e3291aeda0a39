#pragma once
/// A fully fused MLP for narrow networks (every hidden layer the same width 16, 32, 64 or 128):
/// one kernel for the forward pass and one for the backward pass, on the tensor cores.
/// - Each thread block carries a tile of samples (16 per warp) through every layer in shared
///   memory; each layer's weights are staged in shared memory as fp16 first. Products take fp16
///   inputs and accumulate in fp32 (WMMA 16x16x16, compute capability 7.0 and newer); bias and
///   activation are applied in fp32 and rounded to fp16 for the next layer. The output layer's
///   values stay fp32.
/// - Training keeps every layer's input (fp16) and, in the backward pass, every layer's dLoss/dZ
///   (fp16). The loss gradient arrives scaled by 1 / (samples * channels) (a mean loss), which
///   would underflow fp16; the backward kernel multiplies it back by grad_scale (the element count)
///   and the weight gradients are taken with alpha = 1 / grad_scale, so the fp16 values stay O(1).
/// - Weight and bias gradients are cuBLAS products of those fp16 buffers with fp32 accumulation
///   and output (batch-long reductions, which a per-tile kernel would have to add up with atomics).
/// - Not covered (fused_mlp_unsupported in cuda/fused_mlp_rules.h says why): other widths, unequal
///   hidden widths, an encoding wider than the hidden width, more than 16 outputs, more than 8
///   hidden layers, Softplus and Sine, whose derivatives need the pre-activation, and BCE without a
///   sigmoid output, whose gradient overflows fp16. Those networks use cuBLAS.
/// - forward() and backward() throw BackendError for more rows than allocate() was given.
/// - Two epilogues (fused_epilogue(), cuda/fused_mlp_rules.h): staged (default) takes each
///   accumulator through shared memory and applies bias and activation per element with 2-byte
///   stores, one 16-row tile per warp; fragment loads the bias into the accumulators, applies the
///   activation on the fragments, writes 16 bytes per lane and store, and gives each warp two tiles
///   (one at width 128). Not yet measured against each other on a GPU.
/// - Pure C++ header: mlp_pass.cpp includes it.
#include "cuda/device_buffer.h"
#include "cuda/fused_mlp_rules.h"
#include "engine/model_spec.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

namespace redraw::cuda {

/// The shape of a fused network as the kernels see it (a kernel argument).
struct FusedMlpDesc {
  int32_t width = 0;  ///< hidden width
  int32_t in = 0;     ///< encoding width
  int32_t in_pad = 0; ///< encoding width rounded up to 16
  int32_t hidden = 0; ///< hidden layers
  int32_t out = 0;    ///< output channels
  /// Per dense layer (hidden..., output): activation, fp32 offsets, and the padded fp16 copy:
  /// rows (width, or 16 for the output) x cols (in_pad for the first layer, else width).
  Activation act[k_fused_max_hidden + 1] = {};
  int64_t weight_offset[k_fused_max_hidden + 1] = {};
  int64_t bias_offset[k_fused_max_hidden + 1] = {};
  int32_t real_out[k_fused_max_hidden + 1] = {};
  int32_t real_in[k_fused_max_hidden + 1] = {};
  int32_t packed_rows[k_fused_max_hidden + 1] = {};
  int32_t packed_cols[k_fused_max_hidden + 1] = {};
  int32_t packed_offset[k_fused_max_hidden + 2] = {}; ///< the last is the total
};

/// Dynamic shared memory per block the kernels take for this hidden width.
size_t fused_mlp_shared_bytes(int32_t width);

/// The fused network's buffers for up to `rows` samples and its passes.
class FusedMlp {
public:
  /// Allocates the fp16 weights and, when with_backward, the activations and gradients; sets the
  /// kernels' shared-memory limit (so call it outside graph capture). `model` must be covered.
  void allocate(const DevicePool& pool, cudaStream_t stream, const ModelSpec& model, int64_t rows, bool with_backward);
  /// Device bytes allocate() takes.
  static uint64_t bytes_needed(const ModelSpec& model, int64_t rows, bool with_backward);
  bool allocated() const { return m_desc.width > 0; }
  /// Where an encoder may write fp16 inputs for forward(input = null): rows x input_stride()
  /// halves, the columns past the encoding width zero. With backward buffers it is the layer-0
  /// activations themselves (backward reads them), so nothing is copied.
  uint16_t* half_input() { return m_half_input.empty() ? m_activations.data() : m_half_input.data(); }
  int32_t input_stride() const { return m_desc.in_pad; }

  /// Forward pass of `rows` inputs (rows x encoding width, fp32; null: the fp16 inputs already in
  /// half_input()) into output (rows x channels, fp32); converts the fp32 parameters to the fp16
  /// copy first. keep_activations (needs with_backward) keeps what backward() reads.
  void forward(cudaStream_t stream, const float* params, const float* input, int64_t rows, float* output,
               bool keep_activations);
  /// After forward(keep_activations) on the same rows: g_out = dLoss/dOutput scaled by inv_count,
  /// y_out = forward's output. Writes the weight and bias gradients into grads (+= when
  /// accumulate) and, when input_grad is not null, dLoss/dInput (rows x encoding width, fp32).
  void backward(cudaStream_t stream, cublasHandle_t blas, const float* g_out, const float* y_out, int64_t rows,
                float inv_count, float* grads, bool accumulate, float* input_grad);

private:
  FusedMlpDesc m_desc;
  int64_t m_rows = 0;
  DeviceBuffer<uint16_t> m_weights;     ///< fp16, packed as FusedMlpDesc says
  DeviceBuffer<uint16_t> m_activations; ///< fp16 layer inputs: rows x in_pad, then rows x width per hidden layer
  DeviceBuffer<uint16_t> m_dz;          ///< fp16 dLoss/dZ: rows x width per hidden layer, then rows x 16
  DeviceBuffer<uint16_t> m_ones;        ///< fp16 ones (rows): bias gradients as products
  DeviceBuffer<uint16_t> m_half_input;  ///< without backward buffers: fp16 inputs, rows x in_pad
  bool m_fragment_ok = false;           ///< the device gives the fragment kernels their shared memory
};

} // namespace redraw::cuda
