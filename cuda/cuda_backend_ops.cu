// The CUDA backend's benchmark profile and its stateless ops (predict, loss and gradients,
// optimizer update, encode), which allocate per call and serve rendering and the parity tests.
#include "cuda/cuda_backend_impl.cuh"

#include <chrono>

namespace redraw {

using namespace cuda;

// ---- benchmark -------------------------------------------------------------------------------

CudaStepProfile CudaBackend::profile_steps(const StepArgs& args, int64_t steps) {
  if (!configured() || !m->bound) throw BackendError("profile_steps: backend 'cuda' has no model configured");
  BoundState& s = *m->bound;
  CudaStepProfile prof;
  prof.steps = std::max<int64_t>(steps, 1);
  int64_t step = args.step;
  auto write_block = [&] {
    set_step_params(m->stream, s.step_params.data(),
                    make_step_params(s.setup.optimizer.adam, args.learning_rate, step, step));
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
    for (auto& [name, ms] : prof.per_op_ms)
      ms /= double(timed);
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

namespace {

/// What the stateless ops share: the parameters and the Fourier matrix on the device, a chunk of
/// at most k_stateless_rows coordinates and the workspace for it. Memory stays bounded by one
/// chunk for any n; the next chunk's upload waits in stream order.
struct ChunkedPass {
  CudaContext c;
  int64_t rows;
  MlpWorkspace ws;
  DeviceBuffer<float> p, fb, xy;
  EncodingParams enc;
  /// A trained family's kernels, prepared once for the pass's one set of parameters (null: a
  /// closed-form family).
  std::unique_ptr<CudaTrainedEncoding> trained;

  ChunkedPass(const CudaContext& ctx, const DevicePool& pool, const ModelSpec& model, std::span<const float> params,
              std::span<const float> fourier_b, int64_t n, const LossParams* loss)
      : c(ctx), rows(std::min(n, k_stateless_rows)), p(pool, c.stream, params.size(), "parameters"),
        fb(pool, c.stream, std::max<size_t>(fourier_b.size(), 1), "Fourier matrix"),
        xy(pool, c.stream, size_t(rows) * 2, "coordinates"), enc(model.encoding.params()) {
    ws.allocate(c, model, rows, loss != nullptr, loss);
    p.upload(params.data(), params.size());
    fb.upload(fourier_b.data(), fourier_b.size());
    trained = cuda_trained_encoding(model.encoding);
    if (trained) trained->prepare(pool, c.stream, p.data());
  }
  /// Uploads and encodes coordinates [r0, r0 + k), runs them forward and returns the network's input.
  const float* forward(const float* coords, int64_t r0, int64_t k) {
    xy.upload(coords + 2 * r0, size_t(k) * 2);
    const float* input = ws.input();
    if (trained)
      input = trained->encode_input(c, ws, p.data(), xy.data(), k);
    else
      cuda::encode(c.stream, enc, fb.data(), xy.data(), k, ws.input());
    mlp_forward(c, ws, p.data(), input, k);
    return input;
  }
};

} // namespace

void CudaBackend::predict_impl(const ModelSpec& model, std::span<const float> params, std::span<const float> fourier_b,
                               const float* coords, int64_t n, float* out) {
  CUDA_CHECK(cudaSetDevice(m->device));
  ChunkedPass pass(m->ctx(), *m->pool, model, params, fourier_b, n, nullptr);
  const int32_t C = model.output_channels;
  for (int64_t r0 = 0; r0 < n; r0 += pass.rows) {
    const int64_t k = std::min(pass.rows, n - r0);
    pass.forward(coords, r0, k);
    CUDA_CHECK(cudaMemcpyAsync(out + r0 * C, pass.ws.output(), size_t(k * C) * sizeof(float), cudaMemcpyDeviceToHost,
                               pass.c.stream));
  }
  synchronize();
}

double CudaBackend::loss_and_gradients_impl(const ModelSpec& model, const LossParams& loss,
                                            std::span<const float> params, std::span<const float> fourier_b,
                                            const float* coords, const float* targets, int64_t n,
                                            std::span<float> grads) {
  CUDA_CHECK(cudaSetDevice(m->device));
  const DevicePool& pool = *m->pool;
  ChunkedPass pass(m->ctx(), pool, model, params, fourier_b, n, &loss);
  const cudaStream_t stream = pass.c.stream;
  const int32_t C = model.output_channels;
  const int64_t rows = pass.rows;
  DeviceBuffer<float> g(pool, stream, grads.size(), "gradients");
  DeviceBuffer<float> t(pool, stream, size_t(n) * C, "targets");
  t.upload(targets, size_t(n) * C);
  int64_t partials = 0;
  for (int64_t r0 = 0; r0 < n; r0 += rows)
    partials += loss_partial_count(std::min(rows, n - r0) * C);
  DeviceBuffer<float> partial(pool, stream, size_t(partials), "loss partial sums");
  DeviceBuffer<float> sum(pool, stream, 1, "loss");
  DeviceBuffer<float> enc_grad;
  if (pass.trained)
    enc_grad = DeviceBuffer<float>(pool, stream, size_t(rows) * size_t(model.encoding.width()), "encoding gradients");
  const float inv_count = float(1.0 / (double(n) * C));
  int64_t offset = 0;
  for (int64_t r0 = 0; r0 < n; r0 += rows) {
    const int64_t k = std::min(rows, n - r0);
    const float* input = pass.forward(coords, r0, k);
    mlp_backward(pass.c, pass.ws, pass.p.data(), input, t.data() + r0 * C, k, loss, inv_count, partial.data() + offset,
                 g.data(), r0 > 0, enc_grad.empty() ? nullptr : enc_grad.data());
    if (pass.trained)
      pass.trained->backward(pool, stream, pass.p.data(), pass.xy.data(), enc_grad.data(), k, g.data(), r0 > 0);
    offset += loss_partial_count(k * C);
  }
  reduce_sum(stream, partial.data(), offset, sum.data());
  g.download(grads.data(), grads.size());
  float loss_sum = 0;
  sum.download(&loss_sum, 1);
  synchronize();
  return double(loss_sum) / (double(n) * C);
}

void CudaBackend::optimizer_update_impl(const OptimizerSpec& opt, std::span<float> params, std::span<const float> grads,
                                        OptimizerState& state, float lr, int64_t step) {
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
  const auto trained = cuda_trained_encoding(enc); // its floats come as the encoding's parameters, in fourier_b
  if (trained) {
    trained->prepare(pool, st, fb.data());
    trained->encode(st, fb.data(), xy.data(), n, result.data());
  } else {
    cuda::encode(st, enc.params(), fb.data(), xy.data(), n, result.data());
  }
  result.download(out, size_t(n) * width);
  synchronize(); // before the kernels' buffers go
}

} // namespace redraw
