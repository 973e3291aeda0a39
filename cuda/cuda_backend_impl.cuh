#pragma once
// Private to the CUDA backend's .cu files (cuda_backend.cu, cuda_backend_ops.cu): the bound
// training state, the backend's implementation struct and the constants they share.
#include "cuda/cuda_backend.h"

#include "cuda/cuda_check.h"
#include "cuda/device_buffer.h"
#include "cuda/encoding_kernels.cuh"
#include "cuda/loss_kernels.cuh"
#include "cuda/matmul.h"
#include "cuda/memory_plan.h"
#include "cuda/mlp_pass.h"
#include "cuda/optimizer_kernels.cuh"
#include "cuda/parameter_copy.h"
#include "cuda/render_kernels.cuh"
#include "cuda/trained_encoding.h"
#include "engine/errors.h"
#include "engine/frames/renderer.h"
#include "engine/model_family.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

namespace redraw {

using namespace cuda;

namespace {

/// Most samples one forward/backward pass holds; a bigger batch runs as several chunks whose
/// gradients accumulate (all inside the one captured step).
constexpr int64_t k_max_chunk_rows = int64_t(1) << 18;
/// Fewest rows a chunk is shrunk to when memory is short.
constexpr int64_t k_min_chunk_rows = int64_t(1) << 12;
/// Render tiles larger than a training chunk: between these many pixels (cuda/memory_plan.h).
constexpr int64_t k_min_render_tile = int64_t(1) << 16;
constexpr int64_t k_max_render_tile = int64_t(1) << 22;
/// Rows per chunk of the stateless ops (predict, loss_and_gradients).
constexpr int64_t k_stateless_rows = int64_t(1) << 16;
/// A full-batch run keeps the encoded dataset when it takes at most this much memory.
constexpr uint64_t k_max_cached_encoding_bytes = uint64_t(512) << 20;
/// cuBLAS workspace, set explicitly so graph capture never makes cuBLAS allocate.
constexpr size_t k_cublas_workspace_bytes = size_t(32) << 20;
/// Recorded losses in flight to the host.
constexpr int k_loss_slots = 8;
/// Parameter copies (timelapse frames) reserved with the network's shape: the trainer keeps at
/// most two in flight. Above this size per copy only one is reserved (another is made on demand).
constexpr int k_reserved_copies = 2;
constexpr uint64_t k_max_reserved_copy_bytes = uint64_t(256) << 20;

bool env_graphs_enabled() {
  const char* v = std::getenv("REDRAW_CUDA_GRAPHS");
  return !(v && (std::strcmp(v, "0") == 0 || std::strcmp(v, "off") == 0));
}

/// Pinned host memory for one T (asynchronous device-to-host copies need it).
template <class T> class PinnedValue {
public:
  PinnedValue() { CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&m_ptr), sizeof(T))); }
  ~PinnedValue() {
    if (m_ptr) (void)cudaFreeHost(m_ptr);
  }
  PinnedValue(const PinnedValue&) = delete;
  PinnedValue& operator=(const PinnedValue&) = delete;
  T* get() { return m_ptr; }
  T value() const { return *m_ptr; }

private:
  T* m_ptr = nullptr;
};

/// What a recorded step copies to the host: the loss sum, the divergence flag (1 when a step
/// since the last copy had a non-finite loss) and the clamped squared error over the whole dataset
/// of the parameters the step started from, adjacent in device memory (BoundState::loss_sum) so
/// one copy moves all three.
struct LossAndFlag {
  float sum = 0;
  float nonfinite = 0;
  float error = 0;
};

/// A recorded loss on its way to the host.
struct LossSlot {
  PinnedValue<LossAndFlag> value;
  cudaEvent_t done = nullptr;
  int64_t step = -1;
  bool pending = false;
  bool has_error = false; ///< value.error holds the dataset's squared error
};

} // namespace

namespace cuda {

/// The bound training state: everything configure() allocates.
struct BoundState {
  TrainSetup setup;
  std::vector<DenseLayer> layers;
  EncodingParams enc;
  bool passes_coordinates = false; ///< the encoding is the coordinates themselves (its family's record)
  int32_t enc_width = 0, channels = 0;
  int64_t n = 0;          ///< dataset samples
  int64_t batch = 0;      ///< samples per step
  int64_t chunk_rows = 0; ///< samples per pass
  int64_t param_count = 0;
  bool minibatch = false;
  DeviceBuffer<float> coords, targets, encoded, fourier_b;
  DeviceBuffer<float> params, grads, first, second;
  DeviceBuffer<float> batch_targets;
  DeviceBuffer<float> loss_partial, mse_partial, loss_sum, mse_sum;
  DeviceBuffer<DeviceStepParams> step_params;
  MlpWorkspace ws;
  int64_t loss_partials = 0, mse_partials = 0;
  /// A trained family's kernels (cuda/trained_encoding.h; null: a closed-form family): its floats
  /// lead params and grads (table_floats), prepared for the parameters before every pass.
  std::unique_ptr<CudaTrainedEncoding> trained;
  int64_t table_floats = 0;
  DeviceBuffer<float> batch_coords; ///< a trained family's minibatch: the chunk's coordinates (backward needs them)
  DeviceBuffer<float> enc_grad;     ///< a trained family: dLoss/dEncoding of a chunk
  /// An encoding that reads the parameters (a trained family): its gradient reaches them.
  bool trains_encoding() const { return trained != nullptr; }
  /// A minibatch run's metric sample (engine/pixel_sample.h), when the image has more pixels:
  /// its coordinates and targets. metric_n == n: the whole dataset is measured.
  int64_t metric_n = 0;
  DeviceBuffer<float> metric_coords, metric_targets;
};

} // namespace cuda

struct CudaBackend::Impl {
  int device = 0;
  cudaDeviceProp props{};
  cudaStream_t stream = nullptr;
  std::shared_ptr<DevicePool> pool; ///< the device's pool, shared with other backends and the preview ring
  cublasHandle_t blas = nullptr;
  DeviceBuffer<uint8_t> blas_workspace;
  CudaPrecision precision = CudaPrecision::Auto;
  bool graphs = env_graphs_enabled();
  std::string graph_note; ///< why graphs are off, when capture failed

  std::unique_ptr<BoundState> bound;
  /// Forward-only buffers for renders larger than a training chunk (render_tile_rows), kept
  /// between renders of the same network shape; dropped by configure().
  std::unique_ptr<MlpWorkspace> render_ws;
  cudaGraphExec_t graph = nullptr;
  int64_t eager_steps = 0; ///< steps run since configure without the graph (the first is the warm-up)
  std::array<LossSlot, k_loss_slots> slots;
  PinnedValue<float> mse_host;
  ParameterCopier copier; ///< timelapse frames: parameter copies that nothing waits for

  Impl() = default;
  ~Impl();
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  CudaContext ctx(OpTimer* timer = nullptr) const {
    return {stream, blas, pool.get(), timer, compute_type_for(precision), precision == CudaPrecision::Auto};
  }

  void drop_graph() {
    if (graph) (void)cudaGraphExecDestroy(graph);
    graph = nullptr;
    eager_steps = 0;
  }

  void apply_math_mode() {
    CUBLAS_CHECK(cublasSetMathMode(blas, precision == CudaPrecision::Tf32 ? CUBLAS_TF32_TENSOR_OP_MATH
                                                                         : CUBLAS_DEFAULT_MATH));
  }

  /// Enqueues one whole step after the step block has been written: per chunk, input (gather or
  /// encode or cached), forward, loss + backward; then the loss sum and the optimizer update.
  void enqueue_step(const CudaContext& c) {
    BoundState& s = *bound;
    const float inv_count = float(1.0 / (double(s.batch) * s.channels));
    int64_t partial_offset = 0;
    if (s.trained) {
      TimedOp t(c.timer, c.stream, s.trained->prepare_name());
      s.trained->step_begins(*c.pool, c.stream, s.params.data()); // the step's parameters, for all its chunks
    }
    for (int64_t r0 = 0; r0 < s.batch; r0 += s.chunk_rows) {
      const int64_t rows = std::min(s.chunk_rows, s.batch - r0);
      const float* input = nullptr;
      const float* targets = nullptr;
      const float* chunk_coords = s.coords.data() + r0 * 2; // full batch
      {
        TimedOp t(c.timer, c.stream, "input");
        if (s.minibatch && s.trains_encoding()) {
          gather_minibatch_samples(c.stream, s.coords.data(), s.targets.data(), s.channels, uint32_t(s.n), s.setup.seed,
                                   s.step_params.data(), r0, rows, s.batch_coords.data(), s.batch_targets.data());
          chunk_coords = s.batch_coords.data();
          input = encode_params_input(c, s.ws, chunk_coords, rows); // null: fp16 inside
          targets = s.batch_targets.data();
        } else if (s.minibatch) {
          gather_minibatch(c.stream, s.enc, s.fourier_b.data(), s.coords.data(), s.targets.data(), s.channels,
                           uint32_t(s.n), s.setup.seed, s.step_params.data(), r0, rows, s.ws.input(),
                           s.batch_targets.data());
          input = s.ws.input();
          targets = s.batch_targets.data();
        } else {
          input = full_batch_input(c, r0, rows);
          targets = s.targets.data() + r0 * s.channels;
        }
      }
      mlp_forward(c, s.ws, s.params.data(), input, rows);
      // A full batch covers the dataset: its clamped squared error comes out of the loss kernel, so
      // a metrics step needs no extra forward pass and no wait (LossSample::mse).
      mlp_backward(c, s.ws, s.params.data(), input, targets, rows, s.setup.loss, inv_count,
                   s.loss_partial.data() + partial_offset, s.grads.data(), r0 > 0,
                   s.trains_encoding() ? s.enc_grad.data() : nullptr,
                   s.minibatch ? nullptr : s.mse_partial.data() + partial_offset);
      if (s.trained) {
        TimedOp t(c.timer, c.stream, s.trained->backward_name());
        s.trained->backward(*c.pool, c.stream, s.params.data(), chunk_coords, s.enc_grad.data(), rows, s.grads.data(),
                            r0 > 0);
      }
      partial_offset += loss_partial_count(rows * s.channels);
    }
    {
      TimedOp t(c.timer, c.stream, "loss sum");
      reduce_sum(c.stream, s.loss_partial.data(), partial_offset, s.loss_sum.data(), s.loss_sum.data() + 1);
      if (!s.minibatch) reduce_sum(c.stream, s.mse_partial.data(), partial_offset, s.loss_sum.data() + 2);
    }
    TimedOp t(c.timer, c.stream, "optimizer");
    const OptimizerSpec& o = s.setup.optimizer;
    float* first = s.first.empty() ? nullptr : s.first.data();
    float* second = s.second.empty() ? nullptr : s.second.data();
    const bool adam = o.kind == OptimizerKind::Adam;
    int64_t start = 0;
    const LaneStep lanes = trained_lane_step(s.setup.model.encoding);
    if (s.table_floats > 0 && (o.adam.weight_decay != 0.0f || o.sgd.weight_decay != 0.0f || lanes.lanes > 0)) {
      // Weight decay spares the hash table (it would pull rarely seen entries to zero); the
      // Gaussians' means take their own learning rate (gaussian_lane_step).
      AdamParams a = o.adam;
      SgdParams g = o.sgd;
      a.weight_decay = g.weight_decay = 0.0f;
      cuda::optimizer_update(c.stream, adam, a, g, s.params.data(), s.grads.data(), first, second, s.table_floats,
                             s.step_params.data(), lanes);
      start = s.table_floats;
    }
    cuda::optimizer_update(c.stream, adam, o.adam, o.sgd, s.params.data() + start, s.grads.data() + start,
                           first ? first + start : nullptr, second ? second + start : nullptr, s.param_count - start,
                           s.step_params.data());
  }

  /// Encoded inputs of dataset rows [r0, r0 + rows): the cache, the coordinates themselves
  /// (identity encoding), or encoded now into the workspace (null: fp16, inside the fused MLP).
  const float* full_batch_input(const CudaContext& c, int64_t r0, int64_t rows) {
    BoundState& s = *bound;
    if (s.trains_encoding()) return encode_params_input(c, s.ws, s.coords.data() + r0 * 2, rows);
    if (!s.encoded.empty()) return s.encoded.data() + r0 * s.enc_width;
    if (s.passes_coordinates) return s.coords.data() + r0 * 2;
    cuda::encode(c.stream, s.enc, s.fourier_b.data(), s.coords.data() + r0 * 2, rows, s.ws.input());
    return s.ws.input();
  }

  /// The encoding of coords (rows x 2) by a trained family, where ws's forward pass reads it (see
  /// encode_grid_input; null: fp16 inside the fused MLP), prepared for the current parameters.
  const float* encode_params_input(const CudaContext& c, MlpWorkspace& ws, const float* coords, int64_t rows) {
    BoundState& s = *bound;
    return s.trained->encode_input(c, ws, s.params.data(), coords, rows);
  }

  /// Readies a trained family's kernels for the current parameters (nothing for a closed form).
  void prepare_trained(const CudaContext& c) {
    BoundState& s = *bound;
    if (s.trained) s.trained->prepare(*c.pool, c.stream, s.params.data());
  }

  /// Enqueues the clamped squared error of the current parameters over the metric sample (the
  /// whole dataset when it is not smaller) into *out (device memory); no wait.
  void enqueue_metric_error(const CudaContext& c, float* out) {
    BoundState& s = *bound;
    if (s.metric_n == s.n) return enqueue_dataset_error(c, out);
    prepare_trained(c);
    int64_t offset = 0;
    for (int64_t r0 = 0; r0 < s.metric_n; r0 += s.chunk_rows) {
      const int64_t rows = std::min(s.chunk_rows, s.metric_n - r0);
      const float* xy = s.metric_coords.data() + r0 * 2;
      const float* input = xy;
      if (s.trains_encoding()) {
        input = encode_params_input(c, s.ws, xy, rows);
      } else if (!s.passes_coordinates) {
        cuda::encode(c.stream, s.enc, s.fourier_b.data(), xy, rows, s.ws.input());
        input = s.ws.input();
      }
      mlp_forward(c, s.ws, s.params.data(), input, rows);
      clamped_squared_error(c.stream, s.ws.output(), s.metric_targets.data() + r0 * s.channels, rows * s.channels,
                            s.mse_partial.data() + offset);
      offset += loss_partial_count(rows * s.channels);
    }
    reduce_sum(c.stream, s.mse_partial.data(), offset, out);
  }

  /// Enqueues the clamped squared error of the current parameters over the whole dataset into
  /// *out (device memory); no wait.
  void enqueue_dataset_error(const CudaContext& c, float* out) {
    BoundState& s = *bound;
    prepare_trained(c);
    int64_t offset = 0;
    for (int64_t r0 = 0; r0 < s.n; r0 += s.chunk_rows) {
      const int64_t rows = std::min(s.chunk_rows, s.n - r0);
      const float* input = full_batch_input(c, r0, rows);
      mlp_forward(c, s.ws, s.params.data(), input, rows);
      clamped_squared_error(c.stream, s.ws.output(), s.targets.data() + r0 * s.channels, rows * s.channels,
                            s.mse_partial.data() + offset);
      offset += loss_partial_count(rows * s.channels);
    }
    reduce_sum(c.stream, s.mse_partial.data(), offset, out);
  }

  void capture_graph() {
    cudaGraph_t g = nullptr;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    try {
      enqueue_step(ctx());
    } catch (...) {
      (void)cudaStreamEndCapture(stream, &g);
      if (g) (void)cudaGraphDestroy(g);
      (void)cudaGetLastError();
      throw;
    }
    CUDA_CHECK(cudaStreamEndCapture(stream, &g));
    const cudaError_t e = cudaGraphInstantiate(&graph, g, 0);
    (void)cudaGraphDestroy(g);
    if (e != cudaSuccess) {
      graph = nullptr;
      throw_cuda_error(e, "cudaGraphInstantiate(&graph, g, 0)", __FILE__, __LINE__);
    }
  }

  /// Enqueues the step whose block was just written: graph replay, or eager. A step whose trained
  /// family's prepare() waits (the Gaussians' binning, for the pair count) is always eager.
  void launch_step() {
    if (graphs && !graph && eager_steps >= 1 && (!bound->trained || bound->trained->graph_safe())) {
      try {
        capture_graph();
      } catch (const BackendError& e) {
        graphs = false; // keep training, without graphs, and say why in device_description()
        graph_note = e.what();
      }
    }
    if (graphs && graph) {
      CUDA_CHECK(cudaGraphLaunch(graph, stream));
    } else {
      enqueue_step(ctx());
      ++eager_steps;
    }
  }
};


} // namespace redraw
