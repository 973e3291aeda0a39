// The fused MLP's forward kernels (staged and fragment), the fp16 weight packing, the buffers
// and the pass dispatch; the backward kernels and FusedMlp::backward are in fused_mlp_backward.cu.
#include "cuda/cuda_check.h"
#include "cuda/fused_mlp.cuh"
#include "cuda/fused_mlp_kernels.cuh"
#include "engine/activation_math.h"

#include <cuda_fp16.h>
#include <mma.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>

namespace redraw::cuda {

using namespace fused_mlp_detail;

namespace {

/// The warp's first S * 16 inputs into its strips (fp16, zero-padded to in_pad and past the last
/// row); from fp32 inputs (also kept in acts, when given) or from fp16 rows already in place.
template <class T>
__device__ inline void load_input_strips(const FusedMlpDesc& d, const float* __restrict__ input,
                                         const __half* __restrict__ input_half, int64_t rows, int64_t row0, int lane,
                                         __half* strips, __half* __restrict__ acts) {
  constexpr int R = T::strips * 16;
  if (input_half) {
    const int per_row = d.in_pad / 8;
    for (int v = lane; v < R * per_row; v += 32) {
      const int r = v / per_row, c = (v - r * per_row) * 8;
      const int64_t row = row0 + r;
      *reinterpret_cast<uint4*>(strips + r * T::lda + c) =
          row < rows ? *reinterpret_cast<const uint4*>(input_half + row * d.in_pad + c) : make_uint4(0, 0, 0, 0);
    }
    return;
  }
  for (int e = lane; e < R * d.in_pad; e += 32) {
    const int r = e / d.in_pad, c = e - r * d.in_pad;
    const int64_t row = row0 + r;
    const __half h = __float2half(row < rows && c < d.in ? input[row * d.in + c] : 0.0f);
    strips[r * T::lda + c] = h;
    if (acts && row < rows) acts[row * d.in_pad + c] = h;
  }
}

/// The forward pass of one tile of rows through every layer, T = Tile<Width> (staged epilogue) or
/// Tile2<Width> (fragment epilogue).
template <class T>
__global__ void __launch_bounds__(T::threads)
    fused_forward_kernel(FusedMlpDesc d, const __half* __restrict__ weights, const float* __restrict__ params,
                         const float* __restrict__ input, const __half* __restrict__ input_half, int64_t rows,
                         int64_t cap, float* __restrict__ output, __half* __restrict__ acts) {
  constexpr int Width = T::width;
  const int64_t tile0 = int64_t(blockIdx.x) * T::rows;
  if (tile0 >= rows) return;
  [[maybe_unused]] const auto [lane, strips, wsm, bias_tile, stage, row0] = warp_share<T>(tile0);
  load_input_strips<T>(d, input, input_half, rows, row0, lane, strips, acts);
  if constexpr (T::fragment) {
    for (int l = 0; l <= d.hidden; ++l) {
      const bool last = l == d.hidden;
      const int out_cols = d.packed_rows[l]; // Width, or 16 for the output layer
      __syncthreads();                       // every warp is done with the previous layer's weights and bias
      stage_weights(weights + d.packed_offset[l], d.packed_rows[l], d.packed_cols[l], wsm, T::ldw);
      for (int e = int(threadIdx.x); e < 16 * out_cols; e += int(blockDim.x)) {
        const int c = e % out_cols;
        bias_tile[(e / out_cols) * Width + c] = c < d.real_out[l] ? params[d.bias_offset[l] + c] : 0.0f;
      }
      __syncthreads();
      const int n_blocks = out_cols / 16;
      AccFragment acc[T::strips][T::blocks_n];
#pragma unroll
      for (int s = 0; s < T::strips; ++s)
#pragma unroll
        for (int nb = 0; nb < T::blocks_n; ++nb)
          if (nb < n_blocks) wmma::load_matrix_sync(acc[s][nb], bias_tile + nb * 16, Width, wmma::mem_row_major);
      warp_product_strips<T, true>(strips, wsm, d.packed_cols[l] / 16, n_blocks, acc);
      __syncwarp(); // the strips are read; they now receive this layer's outputs
      const Activation act = d.act[l];
#pragma unroll
      for (int s = 0; s < T::strips; ++s) {
#pragma unroll
        for (int nb = 0; nb < T::blocks_n; ++nb) {
          if (nb >= n_blocks) continue;
          for (int i = 0; i < acc[s][nb].num_elements; ++i)
            acc[s][nb].x[i] = activate<float>(act, acc[s][nb].x[i], 30.0f, 1.0f);
          wmma::store_matrix_sync(stage, acc[s][nb], T::ld_stage, wmma::mem_row_major);
          __syncwarp();
          const int r = lane >> 1, c = nb * 16 + (lane & 1) * 8;
          const int64_t row = row0 + s * 16 + r;
          if (!last) {
            float v[8];
            read_stage(stage, T::ld_stage, lane, v);
            const uint4 h = pack_halves(v);
            *reinterpret_cast<uint4*>(strips + (s * 16 + r) * T::lda + c) = h;
            if (acts && row < rows)
              *reinterpret_cast<uint4*>(acts + activation_offset(d, cap, l + 1) + row * Width + c) = h;
          } else {
            for (int e = lane; e < 256; e += 32) {
              const int rr = e / 16, cc = e & 15;
              const int64_t orow = row0 + s * 16 + rr;
              if (cc < d.out && orow < rows) output[orow * d.out + cc] = stage[rr * T::ld_stage + cc];
            }
          }
          __syncwarp();
        }
      }
    }
  } else {
    for (int l = 0; l <= d.hidden; ++l) {
      const bool last = l == d.hidden;
      __syncthreads(); // every warp is done with the previous layer's weights
      stage_weights(weights + d.packed_offset[l], d.packed_rows[l], d.packed_cols[l], wsm, T::ldw);
      __syncthreads();
      AccFragment acc[T::blocks_n];
      const int n_blocks = d.packed_rows[l] / 16;
      warp_product<Width, true>(strips, wsm, d.packed_cols[l] / 16, n_blocks, acc);
      __syncwarp(); // the strip is read; it now receives this layer's output
      const float* bias = params + d.bias_offset[l];
      staged_epilogue<T>(stage, acc, n_blocks, lane, [&](int r, int c, float z) {
        const int64_t row = row0 + r;
        if (!last) {
          const __half h = __float2half(activate<float>(d.act[l], z + bias[c], 30.0f, 1.0f));
          strips[r * T::lda + c] = h;
          if (acts && row < rows) acts[activation_offset(d, cap, l + 1) + row * Width + c] = h;
        } else if (c < d.out && row < rows) {
          output[row * d.out + c] = activate<float>(d.act[l], z + bias[c], 30.0f, 1.0f);
        }
      });
    }
  }
}

__global__ void pack_weights_kernel(FusedMlpDesc d, const float* __restrict__ params, __half* __restrict__ out,
                                    int32_t total) {
  const int32_t i = int32_t(blockIdx.x) * int32_t(blockDim.x) + int32_t(threadIdx.x);
  if (i >= total) return;
  int l = 0;
  while (l < d.hidden && i >= d.packed_offset[l + 1])
    ++l;
  const int32_t local = i - d.packed_offset[l];
  const int32_t o = local / d.packed_cols[l], c = local - o * d.packed_cols[l];
  float v = 0.0f;
  if (o < d.real_out[l] && c < d.real_in[l]) v = params[d.weight_offset[l] + int64_t(o) * d.real_in[l] + c];
  out[i] = __float2half(v);
}

__global__ void fill_ones_kernel(__half* __restrict__ out, int64_t n) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = __float2half(1.0f);
}

FusedMlpDesc describe(const ModelSpec& model) {
  const auto layers = dense_layers(model);
  FusedMlpDesc d;
  d.width = model.hidden.front();
  d.in = model.encoding.width();
  d.in_pad = fused_round16(d.in);
  d.hidden = int32_t(model.hidden.size());
  d.out = model.output_channels;
  int32_t offset = 0;
  for (int32_t l = 0; l <= d.hidden; ++l) {
    const DenseLayer& L = layers[size_t(l)];
    d.act[l] = L.activation;
    d.weight_offset[l] = L.weight_offset;
    d.bias_offset[l] = L.bias_offset;
    d.real_out[l] = L.out;
    d.real_in[l] = L.in;
    d.packed_rows[l] = l == d.hidden ? k_fused_out_pad : d.width;
    d.packed_cols[l] = l == 0 ? d.in_pad : d.width;
    d.packed_offset[l] = offset;
    offset += d.packed_rows[l] * d.packed_cols[l];
  }
  d.packed_offset[d.hidden + 1] = offset;
  return d;
}

template <int Width> void set_shared_limit() {
  const int bytes = int(Tile<Width>::smem);
  CUDA_CHECK(
      cudaFuncSetAttribute(fused_forward_kernel<Tile<Width>>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  set_backward_shared_limit<Width>();
}

/// Sets the fragment kernels' shared-memory limit; false when the device has too little shared
/// memory per block for them (compute capability 7.5 at width 128), which then run staged.
template <int Width> bool set_fragment_shared_limit() {
  int device = 0, optin = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const int bytes = int(Tile2<Width>::smem);
  if (bytes > optin) return false;
  CUDA_CHECK(
      cudaFuncSetAttribute(fused_forward_kernel<Tile2<Width>>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  set_backward_fragment_shared_limit<Width>();
  return true;
}

/// -1: not read from the environment yet.
std::atomic<int32_t> g_epilogue{-1};
std::once_flag g_epilogue_once;

} // namespace

FusedEpilogue fused_epilogue() {
  if (g_epilogue.load() < 0)
    std::call_once(g_epilogue_once, [] {
      int32_t unset = -1;
      g_epilogue.compare_exchange_strong(unset,
                                         int32_t(parse_fused_epilogue(std::getenv("REDRAW_FUSED_MLP_EPILOGUE"))));
    });
  return FusedEpilogue(g_epilogue.load());
}

void set_fused_epilogue(FusedEpilogue e) { g_epilogue.store(int32_t(e)); }

size_t fused_mlp_shared_bytes(int32_t width) {
  size_t bytes = 0;
  with_width(width, [&]<int W>() { bytes = Tile<W>::smem; });
  return bytes;
}

uint64_t FusedMlp::bytes_needed(const ModelSpec& model, int64_t rows, bool with_backward) {
  const FusedMlpDesc d = describe(model);
  uint64_t halves = uint64_t(d.packed_offset[d.hidden + 1]);
  if (with_backward) {
    halves += uint64_t(rows) * uint64_t(d.in_pad + d.hidden * d.width);        // activations
    halves += uint64_t(rows) * uint64_t(d.hidden * d.width + k_fused_out_pad); // dZ
    halves += uint64_t(rows);                                                  // ones
  } else {
    halves += uint64_t(rows) * uint64_t(d.in_pad); // fp16 inputs (with backward: the layer-0 activations)
  }
  return halves * 2;
}

void FusedMlp::allocate(const DevicePool& pool, cudaStream_t stream, const ModelSpec& model, int64_t rows,
                        bool with_backward) {
  const std::string why = fused_mlp_unsupported(model);
  if (!why.empty()) throw BackendError("fused MLP: " + why);
  m_desc = describe(model);
  m_rows = rows;
  const FusedMlpDesc& d = m_desc;
  with_width(d.width, [&]<int W>() {
    set_shared_limit<W>();
    m_fragment_ok = set_fragment_shared_limit<W>();
  });
  m_weights = DeviceBuffer<uint16_t>(pool, stream, size_t(d.packed_offset[d.hidden + 1]), "fp16 weights");
  m_half_input = with_backward ? DeviceBuffer<uint16_t>()
                               : DeviceBuffer<uint16_t>(pool, stream, size_t(rows) * size_t(d.in_pad), "fp16 inputs");
  if (with_backward) {
    m_activations =
        DeviceBuffer<uint16_t>(pool, stream, size_t(rows) * size_t(d.in_pad + d.hidden * d.width), "fp16 activations");
    m_dz = DeviceBuffer<uint16_t>(pool, stream, size_t(rows) * size_t(d.hidden * d.width + k_fused_out_pad),
                                  "fp16 activation gradients");
    m_ones = DeviceBuffer<uint16_t>(pool, stream, size_t(rows), "fp16 ones");
    fill_ones_kernel<<<unsigned((rows + 255) / 256), 256, 0, stream>>>(reinterpret_cast<__half*>(m_ones.data()), rows);
    CUDA_CHECK_LAUNCH();
  } else {
    m_activations = {};
    m_dz = {};
    m_ones = {};
  }
}

void FusedMlp::forward(cudaStream_t stream, const float* params, const float* input, int64_t rows, float* output,
                       bool keep_activations) {
  if (!allocated()) throw BackendError("fused MLP: forward() before allocate()");
  if (!input && !half_input()) throw BackendError("fused MLP: no inputs");
  if (const std::string why = fused_rows_problem(rows, m_rows); !why.empty()) throw BackendError(why);
  if (rows == 0) return;
  if (keep_activations && m_activations.empty()) throw BackendError("fused MLP: no activation buffers");
  const FusedMlpDesc& d = m_desc;
  const int32_t total = d.packed_offset[d.hidden + 1];
  auto* w = reinterpret_cast<__half*>(m_weights.data());
  pack_weights_kernel<<<unsigned((total + 255) / 256), 256, 0, stream>>>(d, params, w, total);
  CUDA_CHECK_LAUNCH();
  __half* acts = keep_activations ? reinterpret_cast<__half*>(m_activations.data()) : nullptr;
  const __half* input_half = input ? nullptr : reinterpret_cast<const __half*>(half_input());
  const bool fragment = m_fragment_ok && fused_epilogue() == FusedEpilogue::Fragment;
  with_tile(d.width, fragment, [&]<class T>() {
    fused_forward_kernel<T><<<tile_blocks<T>(rows), T::threads, T::smem, stream>>>(d, w, params, input, input_half,
                                                                                   rows, m_rows, output, acts);
  });
  CUDA_CHECK_LAUNCH();
}

} // namespace redraw::cuda
