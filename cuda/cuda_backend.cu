#include "cuda/cuda_backend_impl.cuh"
#include "engine/pixel_sample.h"

#include <chrono>

namespace redraw {

using namespace cuda;

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
  copier.reset();
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
  // A network of the fused kernels' shape that its loss keeps on cuBLAS: say why once, here.
  if (m->bound && m->precision == CudaPrecision::Auto && fused_mlp_unsupported(m->bound->setup.model).empty() &&
      !m->bound->ws.fused())
    s += " (fused fp16 MLP off: " + fused_loss_unsupported(m->bound->setup.loss, m->bound->setup.model.output_activation) + ")";
  return s;
}

std::string CudaBackend::model_refusal(const ModelSpec& model) const { return cuda_family_refusal(model.encoding); }

bool CudaBackend::supports(BackendFeature f) const {
  switch (f) {
  case BackendFeature::Training:
  case BackendFeature::Rendering:
  case BackendFeature::DeviceInterop:
  case BackendFeature::CudaGraphs:
  case BackendFeature::StepMetrics: return true;
  case BackendFeature::Tf32: return m->props.major >= 8;
  // Steps never wait for the device, so the host cannot split them into phases.
  case BackendFeature::StepProfile:
    return false;
  }
  return false;
}

StepProfile CudaBackend::take_step_profile() {
  // Only the device's memory: timing phases would need a wait (the GUI times whole steps itself).
  StepProfile p;
  size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess && total_b >= free_b) {
    p.device_used_bytes = int64_t(total_b - free_b);
    p.device_total_bytes = int64_t(total_b);
  } else {
    (void)cudaGetLastError();
  }
  return p;
}

int64_t CudaBackend::device_memory_in_use() { return take_step_profile().device_used_bytes; }

void CudaBackend::synchronize() { CUDA_CHECK(cudaStreamSynchronize(m->stream)); }

void CudaBackend::set_precision(CudaPrecision p) {
  if ((p == CudaPrecision::Tf32 || p == CudaPrecision::Bf16) && m->props.major < 8)
    throw BackendError(std::string("cuda: ") + cuda_precision_name(p) + " needs compute capability 8.0 or newer; " +
                       m->props.name + " has " +
                       std::to_string(m->props.major) + "." + std::to_string(m->props.minor));
  m->precision = p;
  m->apply_math_mode();
  m->drop_graph(); // cuBLAS picks its kernels at capture time
  synchronize();
  // auto and the others may differ in fused or cuBLAS buffers: the training workspace is rebuilt,
  // and the render workspace is dropped (the next large render builds it for this precision).
  m->render_ws.reset();
  if (m->bound)
    m->bound->ws.allocate(m->ctx(), m->bound->setup.model, m->bound->chunk_rows, true, &m->bound->setup.loss);
}

CudaPrecision CudaBackend::precision() const { return m->precision; }

bool CudaBackend::uses_fused_mlp(const ModelSpec& model, const LossParams* loss) const {
  return m->precision == CudaPrecision::Auto && fused_mlp_unsupported(model, loss).empty();
}

void CudaBackend::set_graphs_enabled(bool on) {
  m->graphs = on;
  m->graph_note.clear();
  m->drop_graph();
}

bool CudaBackend::graphs_enabled() const { return m->graphs; }

// ---- bound training state --------------------------------------------------------------------

namespace {
/// The shape of a bound network and dataset, before any device memory is taken.
std::unique_ptr<BoundState> bound_shape(const TrainSetup& setup, const Dataset& data) {
  auto s = std::make_unique<BoundState>();
  s->setup = setup;
  s->layers = dense_layers(setup.model);
  s->enc = setup.model.encoding.params();
  s->passes_coordinates = model_family(setup.model.encoding.kind).passes_coordinates;
  s->enc_width = setup.model.encoding.width();
  s->channels = data.channels();
  s->n = data.size();
  s->minibatch = setup.batch_size > 0;
  s->batch = s->minibatch ? setup.batch_size : s->n;
  s->param_count = redraw::parameter_count(setup.model);
  s->trained = cuda_trained_encoding(setup.model.encoding);
  s->table_floats = encoding_parameter_count(setup.model.encoding);
  return s;
}

/// What binding `s` takes: the fixed parts, then the largest chunk of rows that fits in what the
/// device and the pool have; BackendError naming every part when it does not fit. `copy_bytes`
/// and `copies`: the reserved timelapse copies' staging.
TrainingMemoryPlan plan_bound_memory(const BoundState& s, const DevicePool& pool, const std::string& device_name,
                                     uint64_t copy_bytes, int copies) {
  size_t free_b = 0, total_b = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  const uint64_t f = sizeof(float);
  const int arrays = optimizer_state_arrays(s.setup.optimizer);
  TrainingMemoryInput need;
  need.device_free = free_b;
  need.pool_reserved = pool.reserved_bytes();
  need.pool_used = pool.used_bytes();
  need.dataset_bytes = uint64_t(s.n) * (2 + s.channels) * f;
  // Parameters, gradients, optimizer state, and the staging of the reserved timelapse copies.
  need.param_bytes = uint64_t(s.param_count) * (2 + arrays) * f + uint64_t(copies) * copy_bytes;
  // A trained family's own buffers (the Gaussians' bins). Buffers that grow with the parameters
  // say so by name when the pool is short of memory.
  if (s.trained) need.param_bytes += s.trained->model_bytes();
  need.encoded_bytes = uint64_t(s.n) * s.enc_width * f;
  need.encoding_cacheable = !s.minibatch && !s.passes_coordinates && !s.trains_encoding() &&
                            need.encoded_bytes <= k_max_cached_encoding_bytes;
  need.max_rows = std::min(k_max_chunk_rows, std::max(s.batch, s.n));
  need.min_rows = k_min_chunk_rows;
  need.chunk_bytes = [&](int64_t rows) {
    return MlpWorkspace::bytes_needed(s.setup.model, rows, true) + uint64_t(rows) * s.channels * f +
           (s.trains_encoding() ? uint64_t(rows) * uint64_t(2 + s.enc_width) * f : 0) +
           (s.trained ? uint64_t(rows) * s.trained->row_bytes() : 0) +
           uint64_t(loss_partial_count(std::max(s.batch, s.n) * s.channels) + 64) * 2 * f;
  };
  const TrainingMemoryPlan plan = plan_training_memory(need);
  if (!plan.fits)
    throw BackendError("cuda: out of GPU memory: this network and image need " + format_mib(plan.needed) +
                       " (dataset " + format_mib(need.dataset_bytes) + ", parameters and optimizer state " +
                       format_mib(need.param_bytes) + ", activations for " + std::to_string(plan.chunk_rows) +
                       " samples " + format_mib(need.chunk_bytes(plan.chunk_rows)) + ") but " + device_name +
                       " has " + format_mib(plan.available) + " available (" + format_mib(free_b) + " free of " +
                       format_mib(total_b) + ", " +
                       format_mib(pool_cached_bytes(need.pool_reserved, need.pool_used)) + " cached)");
  return plan;
}

/// The dataset's coordinates and targets on the device, and a minibatch run's metric sample
/// (a recorded step measures these pixels, not all of them).
void upload_dataset(BoundState& s, const Dataset& data, const DevicePool& pool, cudaStream_t st) {
  std::vector<float> coords(size_t(s.n) * 2);
  for (int64_t i = 0; i < s.n; ++i) data.coordinate(i, coords[size_t(2 * i)], coords[size_t(2 * i + 1)]);
  s.coords = DeviceBuffer<float>(pool, st, coords.size(), "dataset coordinates");
  s.coords.upload(coords.data(), coords.size());
  s.targets = DeviceBuffer<float>(pool, st, size_t(s.n) * s.channels, "dataset targets");
  s.targets.upload(data.targets(), s.targets.size());
  s.metric_n = s.n;
  if (!s.minibatch) return;
  const PixelSample sample =
      stratified_pixel_sample(data.image.width, data.image.height, s.setup.metric_sample_pixels, 0);
  if (sample.whole) return;
  const size_t k = sample.indices.size();
  std::vector<float> mc(2 * k), mt(k * size_t(s.channels));
  for (size_t i = 0; i < k; ++i) {
    const int64_t p = sample.indices[i];
    data.coordinate(p, mc[2 * i], mc[2 * i + 1]);
    std::copy_n(data.targets() + p * s.channels, s.channels, mt.begin() + std::ptrdiff_t(i * size_t(s.channels)));
  }
  s.metric_n = int64_t(k);
  s.metric_coords = DeviceBuffer<float>(pool, st, mc.size(), "metric sample coordinates");
  s.metric_coords.upload(mc.data(), mc.size());
  s.metric_targets = DeviceBuffer<float>(pool, st, mt.size(), "metric sample targets");
  s.metric_targets.upload(mt.data(), mt.size());
}

/// The parameters, gradients, optimizer state, minibatch and loss buffers of `s`, zeroed.
void allocate_training_buffers(BoundState& s, const DevicePool& pool, cudaStream_t st) {
  const std::vector<float> fb = fourier_matrix(s.setup.model.encoding, s.setup.seed);
  s.fourier_b = DeviceBuffer<float>(pool, st, std::max<size_t>(fb.size(), 1), "Fourier matrix");
  s.fourier_b.upload(fb.data(), fb.size());
  s.params = DeviceBuffer<float>(pool, st, size_t(s.param_count), "parameters");
  s.params.zero();
  s.grads = DeviceBuffer<float>(pool, st, size_t(s.param_count), "gradients");
  s.grads.zero();
  const int arrays = optimizer_state_arrays(s.setup.optimizer);
  if (arrays >= 1) {
    s.first = DeviceBuffer<float>(pool, st, size_t(s.param_count), "optimizer state");
    s.first.zero();
  }
  if (arrays >= 2) {
    s.second = DeviceBuffer<float>(pool, st, size_t(s.param_count), "optimizer state");
    s.second.zero();
  }
  if (s.minibatch)
    s.batch_targets = DeviceBuffer<float>(pool, st, size_t(s.chunk_rows) * s.channels, "minibatch targets");
  if (s.trains_encoding()) {
    if (s.minibatch)
      s.batch_coords = DeviceBuffer<float>(pool, st, size_t(s.chunk_rows) * 2, "minibatch coordinates");
    s.enc_grad = DeviceBuffer<float>(pool, st, size_t(s.chunk_rows) * s.enc_width, "encoding gradients");
  }
  auto partials_for = [&](int64_t total) {
    int64_t p = 0;
    for (int64_t r0 = 0; r0 < total; r0 += s.chunk_rows)
      p += loss_partial_count(std::min(s.chunk_rows, total - r0) * s.channels);
    return p;
  };
  s.loss_partials = partials_for(s.batch);
  s.mse_partials = partials_for(s.n);
  s.loss_partial = DeviceBuffer<float>(pool, st, size_t(s.loss_partials), "loss partial sums");
  s.mse_partial = DeviceBuffer<float>(pool, st, size_t(s.mse_partials), "error partial sums");
  s.loss_sum = DeviceBuffer<float>(pool, st, 3, "loss"); // [sum, divergence flag, dataset error]: LossAndFlag
  s.loss_sum.zero();
  s.mse_sum = DeviceBuffer<float>(pool, st, 1, "error");
  s.step_params = DeviceBuffer<DeviceStepParams>(pool, st, 1, "step parameters");
}
} // namespace

void CudaBackend::configure_impl(const TrainSetup& setup, const Dataset& data) {
  CUDA_CHECK(cudaSetDevice(m->device));
  synchronize();
  m->drop_graph();
  m->copier.reset();
  m->bound.reset(); // its memory goes back to the pool, which the new shape reuses
  m->render_ws.reset();
  for (auto& slot : m->slots) slot.pending = false;
  synchronize();

  std::unique_ptr<BoundState> s = bound_shape(setup, data);
  const uint64_t copy_bytes = uint64_t(s->param_count) * (1 + optimizer_state_arrays(setup.optimizer)) * sizeof(float);
  const int copies = copy_bytes <= k_max_reserved_copy_bytes ? k_reserved_copies : 1;
  const TrainingMemoryPlan plan = plan_bound_memory(*s, *m->pool, m->props.name, copy_bytes, copies);
  s->chunk_rows = plan.chunk_rows;

  const DevicePool& pool = *m->pool;
  cudaStream_t st = m->stream;
  upload_dataset(*s, data, pool, st);
  allocate_training_buffers(*s, pool, st);
  const CudaContext c = m->ctx();
  s->ws.allocate(c, setup.model, s->chunk_rows, true, &setup.loss);
  if (plan.cache_encoding) {
    s->encoded = DeviceBuffer<float>(pool, st, size_t(s->n) * s->enc_width, "encoded dataset");
    cuda::encode(st, s->enc, s->fourier_b.data(), s->coords.data(), s->n, s->encoded.data());
  }
  m->copier.reserve(pool, st, size_t(copy_bytes / sizeof(float)), copies);
  synchronize(); // the host vectors above go out of scope
  m->bound = std::move(s);
}

void CudaBackend::set_parameters_impl(std::span<const float> p) {
  m->bound->params.upload(p.data(), p.size());
  CUDA_CHECK(cudaMemsetAsync(m->bound->loss_sum.data() + 1, 0, sizeof(float), m->stream)); // clear the flag
  synchronize();
  if (m->bound->trained) {
    // State kept from the old floats goes (sad's lists); a captured step would replay what that
    // state allowed (a refresh rather than a build), so the step is captured again.
    m->bound->trained->parameters_replaced();
    m->drop_graph();
  }
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

int64_t CudaBackend::begin_parameter_copy_impl(bool with_optimizer) {
  BoundState& s = *m->bound;
  std::vector<CopySource> sources{{s.params.data(), s.params.size()}};
  if (with_optimizer) {
    if (!s.first.empty()) sources.push_back({s.first.data(), s.first.size()});
    if (!s.second.empty()) sources.push_back({s.second.data(), s.second.size()});
  }
  const int64_t ticket = next_ticket();
  m->copier.begin(ticket, *m->pool, m->stream, sources);
  return ticket;
}

bool CudaBackend::finish_parameter_copy_impl(int64_t ticket, ParameterCopy& out, bool wait) {
  out.optimizer.first.clear();
  out.optimizer.second.clear();
  return m->copier.finish(ticket, wait, {&out.params, &out.optimizer.first, &out.optimizer.second});
}

void CudaBackend::drop_parameter_copy_impl(int64_t ticket) { m->copier.drop(ticket); }

void CudaBackend::train_step_impl(const StepArgs& args) {
  BoundState& s = *m->bound;
  // A minibatch step sees only its samples: the dataset's error of the starting point is measured
  // by a forward pass enqueued before the step (no wait; it arrives with the loss).
  const bool measure_error = args.record_mse && s.minibatch && args.record_loss;
  if (measure_error) m->enqueue_metric_error(m->ctx(), s.loss_sum.data() + 2);
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
  slot->has_error = !s.minibatch || measure_error;
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
  const LossAndFlag v = newest->value.value();
  LossSample sample{newest->step, double(v.sum) / (double(s.batch) * s.channels), nonfinite};
  if (newest->has_error) {
    // A minibatch step measured the metric sample; a full-batch step's own pass, every pixel.
    const bool sampled = s.minibatch && s.metric_n < s.n;
    sample.mse = double(v.error) / (double(sampled ? s.metric_n : s.n) * s.channels);
    sample.mse_sampled = sampled;
  }
  return sample;
}

double CudaBackend::dataset_mse_impl() {
  BoundState& s = *m->bound;
  const CudaContext c = m->ctx();
  m->enqueue_dataset_error(c, s.mse_sum.data());
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
        m->render_ws->allocate(c, s.setup.model, rows, false, &s.setup.loss);
      }
    }
    if (m->render_ws) ws = m->render_ws.get();
  }
  m->prepare_trained(c);
  for (int64_t p0 = 0; p0 < pixels; p0 += ws->rows()) {
    const int64_t count = std::min(ws->rows(), pixels - p0);
    const float* input = ws->input();
    if (s.trained)
      input = s.trained->encode_pixels(c, *ws, s.params.data(), w, h, p0, count);
    else
      encode_grid(c.stream, s.enc, s.fourier_b.data(), w, h, p0, count, ws->input());
    mlp_forward(c, *ws, s.params.data(), input, count);
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

} // namespace redraw
