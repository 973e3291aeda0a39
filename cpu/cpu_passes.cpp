#include "cpu/cpu_passes.h"

#include "cpu/cpu_hash_grid.h"
#include "cpu/cpu_kernels.h"

#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace redraw {
namespace cpu {

/// Contiguous slice [begin, end) of n items for thread t of nt (aligned to `align`).
inline void thread_slice(int64_t n, int t, int nt, int64_t align, int64_t& begin, int64_t& end) {
  const int64_t units = (n + align - 1) / align;
  begin = std::min(n, units * t / nt * align);
  end = std::min(n, units * (t + 1) / nt * align);
}

void encode_rows(const EncodingParams& e, const float* b, const float* coords, int64_t n, float* out) {
  const int32_t w = encoding_width(e);
  if (e.kind == EncodingKind::Identity) {
    std::memcpy(out, coords, size_t(n) * 2 * sizeof(float));
    return;
  }
  if (e.kind == EncodingKind::Fourier) {
    const CpuKernels& k = cpu_kernels();
#pragma omp parallel
    {
      int64_t r0 = 0, r1 = 0;
      thread_slice(n, omp_get_thread_num(), omp_get_num_threads(), 1, r0, r1);
      if (r1 > r0) k.fourier_encode(b, e.features, coords, r0, r1, out);
    }
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const float x = coords[2 * i], y = coords[2 * i + 1];
    float* o = out + i * w;
    for (int32_t j = 0; j < w; ++j) o[j] = encoding_value<float>(e, b, x, y, j);
  }
}

/// The network's input for n coordinates: its encoding (the hash grid reads the table in params).
void encode_input(const NetView& net, const float* coords, int64_t n, float* out) {
  if (net.grid)
    hash_grid_encode_rows(*net.grid, net.params, coords, n, out);
  else
    encode_rows(net.model->encoding.params(), net.fourier_b, coords, n, out);
}

/// Rows per tile of the forward and input-gradient products. Every product is cut into these
/// tiles whatever the team size: OpenBLAS kernels (Haswell's among them) round a row differently
/// depending on where it falls in the call's M split, so a split that followed the thread count
/// would change the bits with the load. As big as a weight-gradient slot: smaller tiles cost more
/// in OpenBLAS's per-call packing of the weights than they gain (classic: 6% at 128 rows).
constexpr int64_t k_tile_rows = 512;

int64_t tiles_of(int64_t rows) { return (rows + k_tile_rows - 1) / k_tile_rows; }

/// The tiles [first, last) of rows that thread t of nt owns: contiguous, and the same in every
/// pass over the same rows, so a thread only ever reads rows it wrote itself.
inline void own_tiles(int64_t rows, int t, int nt, int64_t& first, int64_t& last) {
  thread_slice(tiles_of(rows), t, nt, 1, first, last);
}

/// Forward pass of `rows` encoded inputs; the outputs are ws.y.back(). Each thread multiplies its
/// own tiles (single-threaded sgemm, one call per tile) and applies bias + activation to each tile
/// while it is in cache.
void forward_rows(const NetView& net, CpuWorkspace& ws, const float* input, int64_t rows) {
  const auto& layers = *net.layers;
  const float omega = net.model->omega_0;
  const CpuKernels& kern = cpu_kernels();
#pragma omp parallel
  {
    int64_t tile0 = 0, tile1 = 0;
    own_tiles(rows, omp_get_thread_num(), omp_get_num_threads(), tile0, tile1);
    const float* x = input;
    for (size_t l = 0; l < layers.size(); ++l) {
      const DenseLayer& L = layers[l];
      float* z = ws.z[l].data();
      float* y = ws.y[l].data();
      for (int64_t tile = tile0; tile < tile1; ++tile) {
        const int64_t r0 = tile * k_tile_rows, r1 = std::min(rows, r0 + k_tile_rows);
        if (is_thin_layer(L.in, L.out))
          kern.thin_forward(x, net.params + L.weight_offset, z, r0, r1, L.in, L.out);
        else
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(r1 - r0), L.out, L.in, 1.0f, x + r0 * L.in, L.in,
                      net.params + L.weight_offset, L.in, 0.0f, z + r0 * L.out, L.out);
        kern.bias_activate(L.activation, z, y, net.params + L.bias_offset, r0, r1, L.out, omega);
      }
      x = y; // each thread only ever reads its own rows: no barrier needed between layers
    }
  }
}

/// Loss of the forward pass just run, and its gradient accumulated (beta = 0 on the first chunk):
/// biases and a hash grid's table into grads, dense weights into ws.slots (reduce_weight_slots()
/// adds them into grads after the last chunk). inv_count = 1 / (samples in the whole batch *
/// channels). Returns the chunk's loss sum. coords: the chunk's coordinates (the hash grid's
/// backward pass needs them).
namespace {
/// The loss of each fixed block of rows into `partial` and its gradient (times inv_count) into
/// `g`, the blocks shared among the team (called inside a parallel region).
void loss_blocks(const LossParams& loss, const float* pred, const float* targets, int64_t rows, int32_t C,
                 float inv_count, float* g, std::vector<double>& partial) {
  const int64_t nb = blocks_of(rows);
#pragma omp for schedule(static)
  for (int64_t blk = 0; blk < nb; ++blk) {
    double sum = 0;
    const int64_t e1 = std::min(rows, (blk + 1) * k_block_rows) * C;
    for (int64_t e = blk * k_block_rows * C; e < e1; ++e) {
      sum += double(loss_value<float>(loss, pred[e], targets[e]));
      g[e] = loss_gradient<float>(loss, pred[e], targets[e]) * inv_count;
    }
    partial[size_t(blk)] = sum;
  }
}

/// Thread t's columns of the bias gradient db from dZ (`rows` x `out`): per column, fixed
/// 512-row blocks each summed in row order, the blocks added in order (thread-count
/// independent); `acc` is the thread's own row of scratch.
void bias_gradient(const float* g, int64_t rows, int32_t out, int t, int nt, float* acc, float* db, bool first_chunk) {
  int64_t c0 = 0, c1 = 0;
  thread_slice(out, t, nt, 1, c0, c1);
  if (first_chunk) std::fill(db + c0, db + c1, 0.0f);
  const int64_t nb = blocks_of(rows);
  for (int64_t blk = 0; blk < nb && c1 > c0; ++blk) {
    std::fill(acc + c0, acc + c1, 0.0f);
    const int64_t e1 = std::min(rows, (blk + 1) * k_block_rows);
    for (int64_t r = blk * k_block_rows; r < e1; ++r) {
      const float* row = g + r * out;
#pragma omp simd
      for (int64_t j = c0; j < c1; ++j)
        acc[j] += row[j];
    }
    for (int64_t j = c0; j < c1; ++j)
      db[j] += acc[j];
  }
}
} // namespace

double backward_rows(const NetView& net, CpuWorkspace& ws, const float* coords, const float* input,
                     const float* targets, int64_t rows, const LossParams& loss, float inv_count, float* grads,
                     bool first_chunk, std::vector<float>& scratch) {
  const auto& layers = *net.layers;
  const float omega = net.model->omega_0;
  const int32_t C = layers.back().out;
  const float* pred = ws.y.back().data();
  const CpuKernels& kern = cpu_kernels();
  const int64_t nb = blocks_of(rows);
  const int64_t nslots = (rows + ws.slot_rows - 1) / ws.slot_rows;
  ws.partial.assign(size_t(nb), 0.0);
  int32_t widest = 1;
  for (const auto& L : layers) widest = std::max(widest, L.out);
  scratch.resize(size_t(std::max(1, omp_get_max_threads())) * size_t(widest)); // one row per thread
  float* bufs[2] = {ws.grad_a.data(), ws.grad_b.data()};

#pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    loss_blocks(loss, pred, targets, rows, C, inv_count, bufs[0], ws.partial);
    int64_t tile0 = 0, tile1 = 0;
    own_tiles(rows, t, nt, tile0, tile1);
    int cur = 0;
    for (size_t li = layers.size(); li-- > 0;) {
      const DenseLayer& L = layers[li];
      float* g = bufs[cur];
      // dZ = dY * act'(z): each thread its own tiles (which it also produced in the step before).
      for (int64_t tile = tile0; tile < tile1; ++tile) {
        const int64_t r0 = tile * k_tile_rows, r1 = std::min(rows, r0 + k_tile_rows);
        kern.activation_backward(L.activation, g, ws.z[li].data(), ws.y[li].data(), r0 * L.out, r1 * L.out, omega);
      }
      // The layer's one synchronisation point: below, every thread reads all rows of dZ and X.
      // (Each sync costs a scheduler wake-up when the machine is busy: they are kept few.)
#pragma omp barrier
      // Bias gradient, each thread its own columns: per column, fixed 512-row blocks each summed
      // in row order, the blocks added in order (thread-count independent).
      bias_gradient(g, rows, L.out, t, nt, scratch.data() + size_t(t) * size_t(widest),
                    grads + (L.bias_offset - net.grads_first), first_chunk);
      // Weight gradient dW = dZ^T X: one partial per slot of rows (whichever thread takes it),
      // accumulated over the chunks; reduce_weight_slots() adds the slots in order.
      const float* x = li == 0 ? input : ws.y[li - 1].data();
      const float beta = first_chunk ? 0.0f : 1.0f;
#pragma omp for schedule(static) nowait
      for (int64_t slot = 0; slot < nslots; ++slot) {
        const int64_t s0 = slot * ws.slot_rows, s1 = std::min(rows, s0 + ws.slot_rows);
        float* part = ws.slots.data() + slot * ws.slot_floats + ws.slot_offset[li];
        if (is_thin_layer(L.in, L.out))
          kern.thin_weight_grad(g + s0 * L.out, x + s0 * L.in, part, s1 - s0, L.in, L.out, 0,
                                L.out <= k_thin_width ? L.in : L.out, !first_chunk);
        else
          cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, L.out, L.in, int(s1 - s0), 1.0f, g + s0 * L.out, L.out,
                      x + s0 * L.in, L.in, beta, part, L.in);
      }
      // Input gradient for the layer below (or the hash grid): each thread its own tiles.
      float* input_grad = li == 0 && net.encoding_grad ? net.encoding_grad : bufs[1 - cur];
      for (int64_t tile = tile0; (li > 0 || net.grid) && tile < tile1; ++tile) {
        const int64_t r0 = tile * k_tile_rows, r1 = std::min(rows, r0 + k_tile_rows);
        if (is_thin_layer(L.in, L.out))
          kern.thin_input_grad(g, net.params + L.weight_offset, input_grad, r0, r1, L.in, L.out);
        else
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(r1 - r0), L.in, L.out, 1.0f, g + r0 * L.out,
                      L.out, net.params + L.weight_offset, L.in, 0.0f, input_grad + r0 * L.in, L.in);
      }
      // No barrier here: the next layer's barrier comes before anything reads another thread's
      // rows or writes what this layer's weight gradient reads.
      cur = 1 - cur;
    }
  }
  // The last product wrote dLoss/dEncoding into the buffer the loop would use next.
  if (net.grid && !net.encoding_grad)
    hash_grid_backward_rows(*net.grid, coords, bufs[layers.size() % 2], rows, grads,
                            !first_chunk || net.table_grads_zeroed);
  double loss_sum = 0;
  for (double p : ws.partial) loss_sum += p;
  return loss_sum;
}

/// grads' dense weights = the sum of the slots' partials from backward_rows(), slot by slot in
/// order. `rows`: the rows of the first (largest) chunk of the batch, which touched every slot used.
void reduce_weight_slots(const std::vector<DenseLayer>& layers, const CpuWorkspace& ws, int64_t rows, float* grads,
                         int64_t grads_first) {
  const int64_t used = (rows + ws.slot_rows - 1) / ws.slot_rows;
#pragma omp parallel
  for (size_t li = 0; li < layers.size(); ++li) {
    const DenseLayer& L = layers[li];
    const float* part = ws.slots.data() + ws.slot_offset[li];
    float* dw = grads + (L.weight_offset - grads_first);
#pragma omp for schedule(static) nowait
    for (int64_t e = 0; e < int64_t(L.in) * L.out; ++e) {
      float v = part[e];
      for (int64_t slot = 1; slot < used; ++slot)
        v += part[slot * ws.slot_floats + e];
      dw[e] = v;
    }
  }
}

namespace {
/// One optimizer update of n parameters; with Clear, each gradient is zeroed once read (in the
/// same sweep: a separate clear would be a second pass over memory).
template <bool Clear, class Grad>
void optimizer_pass(const OptimizerSpec& opt, float* params, Grad* grads, float* first, float* second, int64_t n,
                    float lr, int64_t step) {
  if (opt.kind == OptimizerKind::Adam) {
    const AdamParams a = opt.adam;
    const float bias1 = float(1.0 - std::pow(double(a.beta1), double(step + 1)));
    const float bias2 = float(1.0 - std::pow(double(a.beta2), double(step + 1)));
    // Two plain floats into the parallel region: a captured struct (loaded as one aggregate per
    // weight) kept GCC from vectorizing the loop.
    const AdamStep scalars = adam_step(lr, bias1, bias2);
    const float step_size = scalars.step_size, inv_sqrt_bias2 = scalars.inv_sqrt_bias2;
    if constexpr (Clear) {
      // The table's sweep in AVX2 where the CPU has it (the same bits): SSE2's square roots and
      // divisions bound it where the arrays are in cache.
      if (hash_grid_detail::avx2_in_use()) {
#pragma omp parallel
        {
          const int64_t team = omp_get_num_threads(), t = omp_get_thread_num();
          const int64_t i0 = n * t / team, i1 = n * (t + 1) / team;
          for (int64_t i = adam_clear_rows_avx2(a, scalars, params, grads, first, second, i0, i1); i < i1; ++i) {
            adam_update(a, AdamStep{step_size, inv_sqrt_bias2}, params[i], grads[i], first[i], second[i]);
            grads[i] = 0.0f;
          }
        }
        return;
      }
    }
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) {
      adam_update(a, AdamStep{step_size, inv_sqrt_bias2}, params[i], grads[i], first[i], second[i]);
      if constexpr (Clear) grads[i] = 0.0f;
    }
  } else {
    const SgdParams s = opt.sgd;
    float dummy = 0;
#pragma omp parallel for schedule(static) firstprivate(dummy)
    for (int64_t i = 0; i < n; ++i) {
      sgd_update(s, lr, params[i], grads[i], first ? first[i] : dummy);
      if constexpr (Clear) grads[i] = 0.0f;
    }
  }
}
} // namespace

void optimizer_all(const OptimizerSpec& opt, float* params, const float* grads, float* first, float* second,
                   int64_t n, float lr, int64_t step) {
  optimizer_pass<false>(opt, params, grads, first, second, n, lr, step);
}

void optimizer_table_slice(const OptimizerSpec& opt, float* params, float* grads, float* first, float* second,
                           int64_t n, float lr, int64_t step) {
  // Without weight decay (it would pull rarely seen entries to zero), the gradients cleared for
  // the next step's backward to add into.
  OptimizerSpec plain = opt;
  plain.adam.weight_decay = plain.sgd.weight_decay = 0.0f;
  optimizer_pass<true>(plain, params, grads, first, second, n, lr, step);
}

void optimizer_table_range(const OptimizerSpec& opt, float* params, float* grads, float* first, float* second,
                           int64_t begin, int64_t end, float lr, int64_t step) {
  optimizer_table_slice(opt, params + begin, grads + begin, first ? first + begin : nullptr,
                        second ? second + begin : nullptr, end - begin, lr, step);
}

void optimizer_ranges(const OptimizerSpec& opt, float* params, float* grads, float* first, float* second, int64_t n,
                      float lr, int64_t step, int64_t table) {
  optimizer_table_range(opt, params, grads, first, second, 0, table, lr, step);
  optimizer_pass<false>(opt, params + table, grads + table, first ? first + table : nullptr,
                        second ? second + table : nullptr, n - table, lr, step);
}

} // namespace cpu

void CpuWorkspace::reserve(const std::vector<DenseLayer>& layers, int32_t encoding_width, int64_t n) {
  rows = n;
  int32_t widest = encoding_width;
  z.resize(layers.size());
  y.resize(layers.size());
  for (size_t l = 0; l < layers.size(); ++l) {
    cpu::resize_checked(z[l], n * layers[l].out, "activations");
    cpu::resize_checked(y[l], n * layers[l].out, "activations");
    widest = std::max({widest, layers[l].in, layers[l].out});
  }
  cpu::resize_checked(input, n * encoding_width, "encoded inputs");
  cpu::resize_checked(grad_a, n * widest, "gradients");
  cpu::resize_checked(grad_b, n * widest, "gradients");
  slot_offset.assign(layers.size(), 0);
  slot_floats = 0;
  for (size_t l = 0; l < layers.size(); ++l) {
    slot_offset[l] = slot_floats;
    slot_floats += int64_t(layers[l].in) * layers[l].out;
  }
  // k_slot_rows per slot, or more when that many slots would not fit in k_max_slot_bytes (wide
  // networks): the count follows the network and the chunk, never the team.
  const int64_t fit = std::max<int64_t>(1, k_max_slot_bytes / (std::max<int64_t>(1, slot_floats) * 4));
  const int64_t count = std::min((n + k_slot_rows - 1) / k_slot_rows, fit);
  slot_rows = std::max(k_slot_rows, (n + count - 1) / count);
  cpu::resize_checked(slots, slot_floats * ((n + slot_rows - 1) / slot_rows), "weight-gradient slots");
}

} // namespace redraw
