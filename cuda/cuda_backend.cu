#include "cuda/cuda_backend.h"

#include "cuda/cuda_check.h"
#include "cuda/device_buffer.h"
#include "cuda/encoding_kernels.cuh"
#include "cuda/hash_grid_kernels.cuh"
#include "cuda/loss_kernels.cuh"
#include "cuda/matmul.h"
#include "cuda/memory_plan.h"
#include "cuda/mlp_pass.h"
#include "cuda/optimizer_kernels.cuh"
#include "cuda/render_kernels.cuh"
#include "engine/errors.h"
#include "engine/renderer.h"

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

/// What a recorded step copies to the host: the loss sum and the divergence flag (1 when a step
/// since the last copy had a non-finite loss), adjacent in device memory so one copy moves both.
struct LossAndFlag {
  float sum = 0;
  float nonfinite = 0;
};

/// A recorded loss on its way to the host.
struct LossSlot {
  PinnedValue<LossAndFlag> value;
  cudaEvent_t done = nullptr;
  int64_t step = -1;
  bool pending = false;
};

} // namespace

namespace cuda {

/// The bound training state: everything configure() allocates.
struct BoundState {
  TrainSetup setup;
  std::vector<DenseLayer> layers;
  EncodingParams enc;
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
  std::optional<HashGridParams> grid; ///< HashGrid: its levels; the table leads params and grads
  int64_t table_floats = 0;
  DeviceBuffer<float> batch_coords; ///< HashGrid minibatch: the chunk's coordinates (backward needs them)
  DeviceBuffer<float> enc_grad;     ///< HashGrid: dLoss/dEncoding of a chunk
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
    for (int64_t r0 = 0; r0 < s.batch; r0 += s.chunk_rows) {
      const int64_t rows = std::min(s.chunk_rows, s.batch - r0);
      const float* input = nullptr;
      const float* targets = nullptr;
      const float* chunk_coords = s.coords.data() + r0 * 2; // full batch
      {
        TimedOp t(c.timer, c.stream, "input");
        if (s.minibatch && s.grid) {
          gather_minibatch_samples(c.stream, s.coords.data(), s.targets.data(), s.channels, uint32_t(s.n), s.setup.seed,
                                   s.step_params.data(), r0, rows, s.batch_coords.data(), s.batch_targets.data());
          chunk_coords = s.batch_coords.data();
          hash_grid_encode(c.stream, *s.grid, s.params.data(), chunk_coords, rows, s.ws.input());
          input = s.ws.input();
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
      mlp_backward(c, s.ws, s.params.data(), input, targets, rows, s.setup.loss, inv_count,
                   s.loss_partial.data() + partial_offset, s.grads.data(), r0 > 0,
                   s.grid ? s.enc_grad.data() : nullptr);
      if (s.grid) {
        TimedOp t(c.timer, c.stream, "hash grid backward");
        if (r0 == 0) CUDA_CHECK(cudaMemsetAsync(s.grads.data(), 0, size_t(s.table_floats) * sizeof(float), c.stream));
        hash_grid_backward(c.stream, *s.grid, chunk_coords, s.enc_grad.data(), rows, s.grads.data());
      }
      partial_offset += loss_partial_count(rows * s.channels);
    }
    {
      TimedOp t(c.timer, c.stream, "loss sum");
      reduce_sum(c.stream, s.loss_partial.data(), partial_offset, s.loss_sum.data(), s.loss_sum.data() + 1);
    }
    TimedOp t(c.timer, c.stream, "optimizer");
    const OptimizerSpec& o = s.setup.optimizer;
    float* first = s.first.empty() ? nullptr : s.first.data();
    float* second = s.second.empty() ? nullptr : s.second.data();
    const bool adam = o.kind == OptimizerKind::Adam;
    int64_t start = 0;
    if (s.table_floats > 0 && (o.adam.weight_decay != 0.0f || o.sgd.weight_decay != 0.0f)) {
      // Weight decay spares the hash table (it would pull rarely seen entries to zero).
      AdamParams a = o.adam;
      SgdParams g = o.sgd;
      a.weight_decay = g.weight_decay = 0.0f;
      cuda::optimizer_update(c.stream, adam, a, g, s.params.data(), s.grads.data(), first, second, s.table_floats,
                             s.step_params.data());
      start = s.table_floats;
    }
    cuda::optimizer_update(c.stream, adam, o.adam, o.sgd, s.params.data() + start, s.grads.data() + start,
                           first ? first + start : nullptr, second ? second + start : nullptr, s.param_count - start,
                           s.step_params.data());
  }

  /// Encoded inputs of dataset rows [r0, r0 + rows): the cache, the coordinates themselves
  /// (identity encoding), or encoded now into the workspace.
  const float* full_batch_input(const CudaContext& c, int64_t r0, int64_t rows) {
    BoundState& s = *bound;
    if (s.grid) {
      hash_grid_encode(c.stream, *s.grid, s.params.data(), s.coords.data() + r0 * 2, rows, s.ws.input());
      return s.ws.input();
    }
    if (!s.encoded.empty()) return s.encoded.data() + r0 * s.enc_width;
    if (s.enc.kind == EncodingKind::Identity) return s.coords.data() + r0 * 2;
    cuda::encode(c.stream, s.enc, s.fourier_b.data(), s.coords.data() + r0 * 2, rows, s.ws.input());
    return s.ws.input();
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

  /// Enqueues the step whose block was just written: graph replay, or eager.
  void launch_step() {
    if (graphs && !graph && eager_steps >= 1) {
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

CudaBackend::CudaBackend(int device) {
  std::string why;
  const int count = cuda_device_count(&why);
  if (count == 0) throw BackendError("cuda backend unavailable: " + why);
  if (device < 0 || device >= count)
    throw BackendError("cuda: device " + std::to_string(device) + " does not exist (" + std::to_string(count) +
                       " found)");
  CUDA_CHECK(cudaSetDevice(device));
  m = std::make_unique<Impl>(); // its pinned buffers need a working device
  m->device = device;
  CUDA_CHECK(cudaGetDeviceProperties(&m->props, device));
  // A kernel image for this device must exist in the build; probing one kernel says so early.
  {
    cudaFuncAttributes attr{};
    const cudaError_t e = probe_kernel_image(&attr);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      throw BackendError("cuda: " + std::string(m->props.name) + " (compute capability " +
                         std::to_string(m->props.major) + "." + std::to_string(m->props.minor) +
                         ") cannot run this build's kernels (" + cuda_build_description() + "): " +
                         cudaGetErrorString(e));
    }
  }
  CUDA_CHECK(cudaStreamCreateWithFlags(&m->stream, cudaStreamNonBlocking));
  m->pool = DevicePool::shared(device);
  CUBLAS_CHECK(cublasCreate(&m->blas));
  CUBLAS_CHECK(cublasSetStream(m->blas, m->stream));
  m->blas_workspace = DeviceBuffer<uint8_t>(*m->pool, m->stream, k_cublas_workspace_bytes, "cuBLAS workspace");
  CUBLAS_CHECK(cublasSetWorkspace(m->blas, m->blas_workspace.data(), m->blas_workspace.bytes()));
  m->apply_math_mode();
  for (auto& slot : m->slots) CUDA_CHECK(cudaEventCreateWithFlags(&slot.done, cudaEventDisableTiming));
}

CudaBackend::~CudaBackend() = default;

CudaBackend::Impl::~Impl() {
  // Also runs when the constructor fails half-way, so every handle may still be null.
  if (stream) (void)cudaStreamSynchronize(stream);
  drop_graph();
  bound.reset();
  if (blas) (void)cublasDestroy(blas);
  blas_workspace = {};
  if (stream) (void)cudaStreamSynchronize(stream);
  for (auto& slot : slots)
    if (slot.done) (void)cudaEventDestroy(slot.done);
  render_ws.reset();
  if (stream) (void)cudaStreamSynchronize(stream);
  // What this backend cached goes back to the driver (other backends' live buffers stay).
  if (pool) pool->trim();
  pool.reset();
  if (stream) (void)cudaStreamDestroy(stream);
  (void)cudaGetLastError();
}

std::string CudaBackend::device_description() const {
  char b[512];
  std::snprintf(b, sizeof b, "%s (%.1f GiB, compute capability %d.%d, %d SMs), %s, CUDA graphs %s", m->props.name,
                double(m->props.totalGlobalMem) / double(1ull << 30), m->props.major, m->props.minor,
                m->props.multiProcessorCount, cuda_precision_name(m->precision), m->graphs ? "on" : "off");
  std::string s = b;
  if (!m->graph_note.empty()) s += " (capture failed: " + m->graph_note + ")";
  return s;
}

bool CudaBackend::supports(BackendFeature f) const {
  switch (f) {
  case BackendFeature::Training:
  case BackendFeature::Rendering:
  case BackendFeature::DeviceInterop:
  case BackendFeature::CudaGraphs: return true;
  case BackendFeature::Tf32: return m->props.major >= 8;
  }
  return false;
}

void CudaBackend::synchronize() { CUDA_CHECK(cudaStreamSynchronize(m->stream)); }

void CudaBackend::set_precision(CudaPrecision p) {
  if ((p == CudaPrecision::Tf32 || p == CudaPrecision::Bf16) && m->props.major < 8)
    throw BackendError(std::string("cuda: ") + cuda_precision_name(p) + " needs compute capability 8.0 or newer; " +
                       m->props.name + " has " +
                       std::to_string(m->props.major) + "." + std::to_string(m->props.minor));
  m->precision = p;
  m->apply_math_mode();
  m->drop_graph(); // cuBLAS picks its kernels at capture time
  if (m->bound) {  // auto and the others may differ in fused or cuBLAS buffers
    synchronize();
    m->bound->ws.allocate(m->ctx(), m->bound->setup.model, m->bound->chunk_rows, true);
  }
}

CudaPrecision CudaBackend::precision() const { return m->precision; }

bool CudaBackend::uses_fused_mlp(const ModelSpec& model) const {
  return m->precision == CudaPrecision::Auto && fused_mlp_unsupported(model).empty();
}

void CudaBackend::set_graphs_enabled(bool on) {
  m->graphs = on;
  m->graph_note.clear();
  m->drop_graph();
}

bool CudaBackend::graphs_enabled() const { return m->graphs; }

// ---- bound training state --------------------------------------------------------------------

void CudaBackend::configure_impl(const TrainSetup& setup, const Dataset& data) {
  CUDA_CHECK(cudaSetDevice(m->device));
  synchronize();
  m->drop_graph();
  m->bound.reset(); // its memory goes back to the pool, which the new shape reuses
  m->render_ws.reset();
  for (auto& slot : m->slots) slot.pending = false;
  synchronize();

  auto s = std::make_unique<BoundState>();
  s->setup = setup;
  s->layers = dense_layers(setup.model);
  s->enc = setup.model.encoding.params();
  s->enc_width = setup.model.encoding.width();
  s->channels = data.channels();
  s->n = data.size();
  s->minibatch = setup.batch_size > 0;
  s->batch = s->minibatch ? setup.batch_size : s->n;
  s->param_count = redraw::parameter_count(setup.model);
  if (setup.model.encoding.kind == EncodingKind::HashGrid) s->grid = hash_grid_params(setup.model.encoding);
  s->table_floats = encoding_parameter_count(setup.model.encoding);
  const int arrays = optimizer_state_arrays(setup.optimizer);

  // Plan the memory: fixed parts, then the largest chunk that fits.
  size_t free_b = 0, total_b = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  const uint64_t f = sizeof(float);
  TrainingMemoryInput need;
  need.device_free = free_b;
  need.pool_reserved = m->pool->reserved_bytes();
  need.pool_used = m->pool->used_bytes();
  need.dataset_bytes = uint64_t(s->n) * (2 + s->channels) * f;
  need.param_bytes = uint64_t(s->param_count) * (2 + arrays) * f;
  need.encoded_bytes = uint64_t(s->n) * s->enc_width * f;
  need.encoding_cacheable = !s->minibatch && s->enc.kind != EncodingKind::Identity && !s->grid &&
                            need.encoded_bytes <= k_max_cached_encoding_bytes;
  need.max_rows = std::min(k_max_chunk_rows, std::max(s->batch, s->n));
  need.min_rows = k_min_chunk_rows;
  need.chunk_bytes = [&](int64_t rows) {
    return MlpWorkspace::bytes_needed(setup.model, rows, true) + uint64_t(rows) * s->channels * f +
           (s->grid ? uint64_t(rows) * uint64_t(2 + s->enc_width) * f : 0) +
           uint64_t(loss_partial_count(std::max(s->batch, s->n) * s->channels) + 64) * 2 * f;
  };
  const TrainingMemoryPlan plan = plan_training_memory(need);
  if (!plan.fits)
    throw BackendError("cuda: out of GPU memory: this network and image need " + format_mib(plan.needed) +
                       " (dataset " + format_mib(need.dataset_bytes) + ", parameters and optimizer state " +
                       format_mib(need.param_bytes) + ", activations for " + std::to_string(plan.chunk_rows) +
                       " samples " + format_mib(need.chunk_bytes(plan.chunk_rows)) + ") but " + m->props.name +
                       " has " + format_mib(plan.available) + " available (" + format_mib(free_b) + " free of " +
                       format_mib(total_b) + ", " +
                       format_mib(pool_cached_bytes(need.pool_reserved, need.pool_used)) + " cached)");
  const bool cache_encoding = plan.cache_encoding;
  s->chunk_rows = plan.chunk_rows;

  const DevicePool& pool = *m->pool;
  cudaStream_t st = m->stream;
  std::vector<float> coords(size_t(s->n) * 2);
  for (int64_t i = 0; i < s->n; ++i) data.coordinate(i, coords[size_t(2 * i)], coords[size_t(2 * i + 1)]);
  s->coords = DeviceBuffer<float>(pool, st, coords.size(), "dataset coordinates");
  s->coords.upload(coords.data(), coords.size());
  s->targets = DeviceBuffer<float>(pool, st, size_t(s->n) * s->channels, "dataset targets");
  s->targets.upload(data.targets(), s->targets.size());
  const std::vector<float> fb = fourier_matrix(setup.model.encoding, setup.seed);
  s->fourier_b = DeviceBuffer<float>(pool, st, std::max<size_t>(fb.size(), 1), "Fourier matrix");
  s->fourier_b.upload(fb.data(), fb.size());
  s->params = DeviceBuffer<float>(pool, st, size_t(s->param_count), "parameters");
  s->params.zero();
  s->grads = DeviceBuffer<float>(pool, st, size_t(s->param_count), "gradients");
  s->grads.zero();
  if (arrays >= 1) {
    s->first = DeviceBuffer<float>(pool, st, size_t(s->param_count), "optimizer state");
    s->first.zero();
  }
  if (arrays >= 2) {
    s->second = DeviceBuffer<float>(pool, st, size_t(s->param_count), "optimizer state");
    s->second.zero();
  }
  if (s->minibatch)
    s->batch_targets = DeviceBuffer<float>(pool, st, size_t(s->chunk_rows) * s->channels, "minibatch targets");
  if (s->grid) {
    if (s->minibatch)
      s->batch_coords = DeviceBuffer<float>(pool, st, size_t(s->chunk_rows) * 2, "minibatch coordinates");
    s->enc_grad = DeviceBuffer<float>(pool, st, size_t(s->chunk_rows) * s->enc_width, "encoding gradients");
  }
  auto partials_for = [&](int64_t total) {
    int64_t p = 0;
    for (int64_t r0 = 0; r0 < total; r0 += s->chunk_rows)
      p += loss_partial_count(std::min(s->chunk_rows, total - r0) * s->channels);
    return p;
  };
  s->loss_partials = partials_for(s->batch);
  s->mse_partials = partials_for(s->n);
  s->loss_partial = DeviceBuffer<float>(pool, st, size_t(s->loss_partials), "loss partial sums");
  s->mse_partial = DeviceBuffer<float>(pool, st, size_t(s->mse_partials), "error partial sums");
  s->loss_sum = DeviceBuffer<float>(pool, st, 2, "loss"); // [sum, divergence flag]: see LossAndFlag
  s->loss_sum.zero();
  s->mse_sum = DeviceBuffer<float>(pool, st, 1, "error");
  s->step_params = DeviceBuffer<DeviceStepParams>(pool, st, 1, "step parameters");
  const CudaContext c = m->ctx();
  s->ws.allocate(c, setup.model, s->chunk_rows, true);
  if (cache_encoding) {
    s->encoded = DeviceBuffer<float>(pool, st, size_t(s->n) * s->enc_width, "encoded dataset");
    cuda::encode(st, s->enc, s->fourier_b.data(), s->coords.data(), s->n, s->encoded.data());
  }
  synchronize(); // the host vectors above go out of scope
  m->bound = std::move(s);
}

void CudaBackend::set_parameters_impl(std::span<const float> p) {
  m->bound->params.upload(p.data(), p.size());
  CUDA_CHECK(cudaMemsetAsync(m->bound->loss_sum.data() + 1, 0, sizeof(float), m->stream)); // clear the flag
  synchronize();
}

void CudaBackend::get_parameters_impl(std::vector<float>& out) {
  out.resize(size_t(m->bound->param_count));
  m->bound->params.download(out.data(), out.size());
  synchronize();
}

void CudaBackend::set_optimizer_state_impl(const OptimizerState& st) {
  BoundState& s = *m->bound;
  if (!s.first.empty()) s.first.upload(st.first.data(), s.first.size());
  if (!s.second.empty()) s.second.upload(st.second.data(), s.second.size());
  synchronize();
}

void CudaBackend::get_optimizer_state_impl(OptimizerState& out) {
  BoundState& s = *m->bound;
  out.first.resize(s.first.size());
  out.second.resize(s.second.size());
  s.first.download(out.first.data(), out.first.size());
  s.second.download(out.second.data(), out.second.size());
  synchronize();
}

void CudaBackend::train_step_impl(const StepArgs& args) {
  BoundState& s = *m->bound;
  set_step_params(m->stream, s.step_params.data(), make_step_params(s.setup.optimizer.adam, args.learning_rate, args.step, args.bias_step()));
  m->launch_step();
  if (!args.record_loss) return;
  // The newest slot wins; when every slot is still in flight the oldest is overwritten (its
  // loss is then never reported, which poll_loss allows: it returns the newest arrived loss).
  LossSlot* slot = nullptr;
  for (auto& candidate : m->slots)
    if (!candidate.pending) {
      slot = &candidate;
      break;
    }
  if (!slot) {
    slot = &m->slots[0];
    for (auto& candidate : m->slots)
      if (candidate.step < slot->step) slot = &candidate;
  }
  CUDA_CHECK(
      cudaMemcpyAsync(slot->value.get(), s.loss_sum.data(), sizeof(LossAndFlag), cudaMemcpyDeviceToHost, m->stream));
  CUDA_CHECK(cudaMemsetAsync(s.loss_sum.data() + 1, 0, sizeof(float), m->stream)); // the flag travels once
  CUDA_CHECK(cudaEventRecord(slot->done, m->stream));
  slot->step = args.step;
  slot->pending = true;
}

std::optional<LossSample> CudaBackend::poll_loss_impl() {
  if (!m->bound) return std::nullopt;
  const BoundState& s = *m->bound;
  LossSlot* newest = nullptr;
  for (auto& slot : m->slots) {
    if (!slot.pending) continue;
    const cudaError_t e = cudaEventQuery(slot.done);
    if (e == cudaErrorNotReady) continue;
    if (e != cudaSuccess) throw_cuda_error(e, "cudaEventQuery(slot.done)", __FILE__, __LINE__);
    if (!newest || slot.step > newest->step) newest = &slot;
  }
  if (!newest) return std::nullopt;
  // Arrived losses older than the newest are dropped (their divergence flags are kept); ones still
  // in flight stay pending.
  bool nonfinite = false;
  for (auto& slot : m->slots)
    if (slot.pending && slot.step <= newest->step && cudaEventQuery(slot.done) == cudaSuccess) {
      slot.pending = false;
      nonfinite = nonfinite || slot.value.value().nonfinite != 0.0f;
    }
  (void)cudaGetLastError();
  return LossSample{newest->step, double(newest->value.value().sum) / (double(s.batch) * s.channels), nonfinite};
}

double CudaBackend::dataset_mse_impl() {
  BoundState& s = *m->bound;
  const CudaContext c = m->ctx();
  int64_t offset = 0;
  for (int64_t r0 = 0; r0 < s.n; r0 += s.chunk_rows) {
    const int64_t rows = std::min(s.chunk_rows, s.n - r0);
    const float* input = m->full_batch_input(c, r0, rows);
    mlp_forward(c, s.ws, s.params.data(), input, rows);
    clamped_squared_error(c.stream, s.ws.output(), s.targets.data() + r0 * s.channels, rows * s.channels,
                          s.mse_partial.data() + offset);
    offset += loss_partial_count(rows * s.channels);
  }
  reduce_sum(c.stream, s.mse_partial.data(), offset, s.mse_sum.data());
  CUDA_CHECK(cudaMemcpyAsync(m->mse_host.get(), s.mse_sum.data(), sizeof(float), cudaMemcpyDeviceToHost, c.stream));
  synchronize();
  return double(m->mse_host.value()) / (double(s.n) * s.channels);
}

// ---- rendering --------------------------------------------------------------------------------

void CudaBackend::render_rgba8_device(int32_t w, int32_t h, void* dst_device) {
  if (!configured() || !m->bound) throw BackendError("render_rgba8_device: backend 'cuda' has no model configured");
  if (w < 1 || h < 1 || w > k_max_render_side || h > k_max_render_side)
    throw ConfigError("render: " + std::to_string(w) + "x" + std::to_string(h) + " is outside 1.." +
                      std::to_string(k_max_render_side) + " per side");
  if (!dst_device) throw BackendError("render_rgba8_device: null destination");
  BoundState& s = *m->bound;
  const CudaContext c = m->ctx();
  const int64_t pixels = int64_t(w) * h;
  auto* dst = static_cast<uint8_t*>(dst_device);
  // The training chunk's buffers serve renders up to its size (the live preview); a larger render
  // gets tiles of its own, sized by memory, instead of thousands of training-sized ones.
  MlpWorkspace* ws = &s.ws;
  if (pixels > s.chunk_rows) {
    if (!m->render_ws) {
      size_t free_b = 0, total_b = 0;
      CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
      const uint64_t available = free_b + pool_cached_bytes(m->pool->reserved_bytes(), m->pool->used_bytes());
      // The elementwise kernels index a pass with 32 bits: rows x the widest layer stays below 2^31.
      int64_t widest = s.enc_width;
      for (const auto& l : s.layers) widest = std::max<int64_t>(widest, l.out);
      const int64_t cap = std::max(k_min_render_tile, std::min(k_max_render_tile, (int64_t(1) << 31) / widest));
      const int64_t rows = render_tile_rows(int64_t(k_max_render_side) * k_max_render_side,
                                            MlpWorkspace::bytes_needed(s.setup.model, 1, false), available,
                                            k_min_render_tile, cap);
      if (rows > s.chunk_rows) {
        m->render_ws = std::make_unique<MlpWorkspace>();
        m->render_ws->allocate(c, s.setup.model, rows, false);
      }
    }
    if (m->render_ws) ws = m->render_ws.get();
  }
  for (int64_t p0 = 0; p0 < pixels; p0 += ws->rows()) {
    const int64_t count = std::min(ws->rows(), pixels - p0);
    if (s.grid)
      hash_grid_encode_grid(c.stream, *s.grid, s.params.data(), w, h, p0, count, ws->input());
    else
      encode_grid(c.stream, s.enc, s.fourier_b.data(), w, h, p0, count, ws->input());
    mlp_forward(c, *ws, s.params.data(), ws->input(), count);
    pack_rgba8(c.stream, ws->output(), s.channels, count, dst + p0 * 4);
  }
  synchronize();
}

std::vector<uint8_t> CudaBackend::render_rgba8(int32_t w, int32_t h) {
  if (w < 1 || h < 1 || w > k_max_render_side || h > k_max_render_side)
    throw ConfigError("render: " + std::to_string(w) + "x" + std::to_string(h) + " is outside 1.." +
                      std::to_string(k_max_render_side) + " per side");
  const size_t bytes = size_t(w) * size_t(h) * 4;
  DeviceBuffer<uint8_t> image(*m->pool, m->stream, bytes, "rendered image");
  render_rgba8_device(w, h, image.data());
  std::vector<uint8_t> out(bytes);
  image.download(out.data(), bytes);
  synchronize();
  return out;
}

// ---- benchmark -------------------------------------------------------------------------------

CudaStepProfile CudaBackend::profile_steps(const StepArgs& args, int64_t steps) {
  if (!configured() || !m->bound) throw BackendError("profile_steps: backend 'cuda' has no model configured");
  BoundState& s = *m->bound;
  CudaStepProfile prof;
  prof.steps = std::max<int64_t>(steps, 1);
  int64_t step = args.step;
  auto write_block = [&] {
    set_step_params(m->stream, s.step_params.data(), make_step_params(s.setup.optimizer.adam, args.learning_rate, step, step));
    ++step;
  };
  cudaEvent_t a = nullptr, b = nullptr;
  CUDA_CHECK(cudaEventCreate(&a));
  CUDA_CHECK(cudaEventCreate(&b));
  auto elapsed = [&] {
    float ms = 0;
    CUDA_CHECK(cudaEventSynchronize(b));
    CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    return double(ms);
  };
  try {
    // Warm-up: the eager first step, then the capture.
    for (int i = 0; i < 3; ++i) {
      write_block();
      m->launch_step();
    }
    synchronize();
    prof.graphs = m->graphs && m->graph;
    if (prof.graphs) {
      const auto t0 = std::chrono::steady_clock::now();
      CUDA_CHECK(cudaEventRecord(a, m->stream));
      for (int64_t i = 0; i < prof.steps; ++i) {
        write_block();
        CUDA_CHECK(cudaGraphLaunch(m->graph, m->stream));
      }
      CUDA_CHECK(cudaEventRecord(b, m->stream));
      const auto t1 = std::chrono::steady_clock::now();
      prof.graph_ms_per_step = elapsed() / double(prof.steps);
      prof.host_enqueue_us_per_step = std::chrono::duration<double, std::micro>(t1 - t0).count() / double(prof.steps);
    }
    CUDA_CHECK(cudaEventRecord(a, m->stream));
    for (int64_t i = 0; i < prof.steps; ++i) {
      write_block();
      m->enqueue_step(m->ctx());
    }
    CUDA_CHECK(cudaEventRecord(b, m->stream));
    prof.eager_ms_per_step = elapsed() / double(prof.steps);

    OpTimer timer;
    const int64_t timed = std::min<int64_t>(prof.steps, 5);
    for (int64_t i = 0; i < timed; ++i) {
      write_block();
      m->enqueue_step(m->ctx(&timer));
    }
    synchronize();
    prof.kernel_ms_per_step = timer.kernel_ms() / double(timed);
    prof.per_op_ms = timer.per_op_ms();
    for (auto& [name, ms] : prof.per_op_ms) ms /= double(timed);
  } catch (...) {
    (void)cudaEventDestroy(a);
    (void)cudaEventDestroy(b);
    throw;
  }
  (void)cudaEventDestroy(a);
  (void)cudaEventDestroy(b);
  return prof;
}

// ---- stateless ops ---------------------------------------------------------------------------

void CudaBackend::predict_impl(const ModelSpec& model, std::span<const float> params, std::span<const float> fourier_b,
                               const float* coords, int64_t n, float* out) {
  CUDA_CHECK(cudaSetDevice(m->device));
  const CudaContext c = m->ctx();
  const DevicePool& pool = *m->pool;
  const int32_t C = model.output_channels;
  const int64_t rows = std::min(n, k_stateless_rows);
  MlpWorkspace ws;
  ws.allocate(c, model, rows, false);
  DeviceBuffer<float> p(pool, c.stream, params.size(), "parameters");
  p.upload(params.data(), params.size());
  DeviceBuffer<float> fb(pool, c.stream, std::max<size_t>(fourier_b.size(), 1), "Fourier matrix");
  fb.upload(fourier_b.data(), fourier_b.size());
  DeviceBuffer<float> xy(pool, c.stream, size_t(rows) * 2, "coordinates");
  const EncodingParams enc = model.encoding.params();
  std::optional<HashGridParams> grid;
  if (enc.kind == EncodingKind::HashGrid) grid = hash_grid_params(model.encoding);
  // Memory stays bounded by one chunk for any n; the next chunk's upload waits in stream order.
  for (int64_t r0 = 0; r0 < n; r0 += rows) {
    const int64_t k = std::min(rows, n - r0);
    xy.upload(coords + 2 * r0, size_t(k) * 2);
    if (grid)
      hash_grid_encode(c.stream, *grid, p.data(), xy.data(), k, ws.input());
    else
      cuda::encode(c.stream, enc, fb.data(), xy.data(), k, ws.input());
    mlp_forward(c, ws, p.data(), ws.input(), k);
    CUDA_CHECK(cudaMemcpyAsync(out + r0 * C, ws.output(), size_t(k * C) * sizeof(float), cudaMemcpyDeviceToHost,
                               c.stream));
  }
  synchronize();
}

double CudaBackend::loss_and_gradients_impl(const ModelSpec& model, const LossParams& loss,
                                            std::span<const float> params, std::span<const float> fourier_b,
                                            const float* coords, const float* targets, int64_t n,
                                            std::span<float> grads) {
  CUDA_CHECK(cudaSetDevice(m->device));
  const CudaContext c = m->ctx();
  const DevicePool& pool = *m->pool;
  const int32_t C = model.output_channels;
  const int64_t rows = std::min(n, k_stateless_rows);
  MlpWorkspace ws;
  ws.allocate(c, model, rows, true);
  DeviceBuffer<float> p(pool, c.stream, params.size(), "parameters");
  p.upload(params.data(), params.size());
  DeviceBuffer<float> g(pool, c.stream, grads.size(), "gradients");
  DeviceBuffer<float> fb(pool, c.stream, std::max<size_t>(fourier_b.size(), 1), "Fourier matrix");
  fb.upload(fourier_b.data(), fourier_b.size());
  DeviceBuffer<float> xy(pool, c.stream, size_t(rows) * 2, "coordinates");
  DeviceBuffer<float> t(pool, c.stream, size_t(n) * C, "targets");
  t.upload(targets, size_t(n) * C);
  int64_t partials = 0;
  for (int64_t r0 = 0; r0 < n; r0 += rows) partials += loss_partial_count(std::min(rows, n - r0) * C);
  DeviceBuffer<float> partial(pool, c.stream, size_t(partials), "loss partial sums");
  DeviceBuffer<float> sum(pool, c.stream, 1, "loss");
  const EncodingParams enc = model.encoding.params();
  std::optional<HashGridParams> grid;
  DeviceBuffer<float> enc_grad;
  if (enc.kind == EncodingKind::HashGrid) {
    grid = hash_grid_params(model.encoding);
    enc_grad = DeviceBuffer<float>(pool, c.stream, size_t(rows) * size_t(model.encoding.width()), "encoding gradients");
    CUDA_CHECK(
        cudaMemsetAsync(g.data(), 0, size_t(encoding_parameter_count(model.encoding)) * sizeof(float), c.stream));
  }
  const float inv_count = float(1.0 / (double(n) * C));
  int64_t offset = 0;
  for (int64_t r0 = 0; r0 < n; r0 += rows) {
    const int64_t k = std::min(rows, n - r0);
    xy.upload(coords + 2 * r0, size_t(k) * 2);
    if (grid)
      hash_grid_encode(c.stream, *grid, p.data(), xy.data(), k, ws.input());
    else
      cuda::encode(c.stream, enc, fb.data(), xy.data(), k, ws.input());
    mlp_forward(c, ws, p.data(), ws.input(), k);
    mlp_backward(c, ws, p.data(), ws.input(), t.data() + r0 * C, k, loss, inv_count, partial.data() + offset, g.data(),
                 r0 > 0, grid ? enc_grad.data() : nullptr);
    if (grid) hash_grid_backward(c.stream, *grid, xy.data(), enc_grad.data(), k, g.data());
    offset += loss_partial_count(k * C);
  }
  reduce_sum(c.stream, partial.data(), offset, sum.data());
  g.download(grads.data(), grads.size());
  float loss_sum = 0;
  sum.download(&loss_sum, 1);
  synchronize();
  return double(loss_sum) / (double(n) * C);
}

void CudaBackend::optimizer_update_impl(const OptimizerSpec& opt, std::span<float> params,
                                        std::span<const float> grads, OptimizerState& state, float lr, int64_t step) {
  CUDA_CHECK(cudaSetDevice(m->device));
  const DevicePool& pool = *m->pool;
  cudaStream_t st = m->stream;
  const size_t n = params.size();
  DeviceBuffer<float> p(pool, st, n, "parameters"), g(pool, st, n, "gradients");
  p.upload(params.data(), n);
  g.upload(grads.data(), n);
  const int arrays = optimizer_state_arrays(opt);
  DeviceBuffer<float> first, second;
  if (arrays >= 1) {
    first = DeviceBuffer<float>(pool, st, n, "optimizer state");
    first.upload(state.first.data(), n);
  }
  if (arrays >= 2) {
    second = DeviceBuffer<float>(pool, st, n, "optimizer state");
    second.upload(state.second.data(), n);
  }
  DeviceBuffer<DeviceStepParams> block(pool, st, 1, "step parameters");
  set_step_params(st, block.data(), make_step_params(opt.adam, lr, step, step));
  cuda::optimizer_update(st, opt.kind == OptimizerKind::Adam, opt.adam, opt.sgd, p.data(), g.data(),
                   first.empty() ? nullptr : first.data(), second.empty() ? nullptr : second.data(), int64_t(n),
                   block.data());
  p.download(params.data(), n);
  if (arrays >= 1) first.download(state.first.data(), n);
  if (arrays >= 2) second.download(state.second.data(), n);
  synchronize();
}

void CudaBackend::encode_impl(const EncodingSpec& enc, std::span<const float> fourier_b, const float* coords, int64_t n,
                              float* out) {
  CUDA_CHECK(cudaSetDevice(m->device));
  const DevicePool& pool = *m->pool;
  cudaStream_t st = m->stream;
  const size_t width = size_t(enc.width());
  DeviceBuffer<float> fb(pool, st, std::max<size_t>(fourier_b.size(), 1), "Fourier matrix");
  fb.upload(fourier_b.data(), fourier_b.size());
  DeviceBuffer<float> xy(pool, st, size_t(n) * 2, "coordinates");
  xy.upload(coords, size_t(n) * 2);
  DeviceBuffer<float> result(pool, st, size_t(n) * width, "encoded coordinates");
  if (enc.kind == EncodingKind::HashGrid)
    hash_grid_encode(st, hash_grid_params(enc), fb.data(), xy.data(), n, result.data());
  else
    cuda::encode(st, enc.params(), fb.data(), xy.data(), n, result.data());
  result.download(out, size_t(n) * width);
  synchronize();
}

} // namespace redraw
