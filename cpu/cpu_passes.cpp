#include "cpu/cpu_passes.h"

#include "cpu/cpu_family_encoders.h"
#include "cpu/cpu_hash_grid.h"
#include "cpu/cpu_kernels.h"

#include "engine/model_family.h"

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
  if (model_family(e.kind).passes_coordinates) {
    std::memcpy(out, coords, size_t(n) * 2 * sizeof(float));
    return;
  }
  if (const CpuEncoder encode = cpu_family_encoder(e.kind)) {
    encode(e, b, coords, n, out);
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const float x = coords[2 * i], y = coords[2 * i + 1];
    float* o = out + i * w;
    for (int32_t j = 0; j < w; ++j) o[j] = encoding_value<float>(e, b, x, y, j);
  }
}

/// The network's input for n coordinates: its encoding (a trained family reads its floats in params).
void encode_input(const NetView& net, const float* coords, int64_t n, float* out) {
  if (net.trained)
    net.trained->encode(net.params, coords, n, out);
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
  const float omega = net.model->omega_0, scale = net.model->gauss_scale;
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
        kern.bias_activate(L.activation, z, y, net.params + L.bias_offset, r0, r1, L.out, omega, scale);
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
/// `g`, block blk's rows from g + blk * block_stride on, the blocks shared among the team (called
/// inside a parallel region; ends with a barrier).
void loss_blocks(const LossParams& loss, const float* pred, const float* targets, int64_t rows, int32_t C,
                 float inv_count, float* g, int64_t block_stride, std::vector<double>& partial) {
  const int64_t nb = blocks_of(rows);
#pragma omp for schedule(static)
  for (int64_t blk = 0; blk < nb; ++blk) {
    double sum = 0;
    const int64_t e0 = blk * k_block_rows * C, e1 = std::min(rows, (blk + 1) * k_block_rows) * C;
    float* gb = g + blk * block_stride - e0;
    for (int64_t e = e0; e < e1; ++e) {
      sum += double(loss_value<float>(loss, pred[e], targets[e]));
      gb[e] = loss_gradient<float>(loss, pred[e], targets[e]) * inv_count;
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

namespace {
/// Layer L's weight gradient from `n` rows of dZ (g, rows of L.out) and X (x, rows of L.in) into
/// one slot's partial (`part`), which it overwrites on the first chunk and adds to after.
void slot_weight_gradient(const CpuKernels& kern, const DenseLayer& L, const float* g, const float* x, int64_t n,
                          float* part, bool first_chunk) {
  if (is_thin_layer(L.in, L.out))
    kern.thin_weight_grad(g, x, part, n, L.in, L.out, 0, L.out <= k_thin_width ? L.in : L.out, !first_chunk);
  else
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, L.out, L.in, int(n), 1.0f, g, L.out, x, L.in,
                first_chunk ? 0.0f : 1.0f, part, L.in);
}

/// Layer L's input gradient dX = dZ W for `n` rows of g (rows of L.out) into dx (rows of L.in).
void tile_input_gradient(const CpuKernels& kern, const DenseLayer& L, const float* w, const float* g, float* dx,
                         int64_t n) {
  if (is_thin_layer(L.in, L.out))
    kern.thin_input_grad(g, w, dx, 0, n, L.in, L.out);
  else
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(n), L.in, L.out, 1.0f, g, L.out, w, L.in, 0.0f, dx,
                L.in);
}

/// acc[j] = the sum of column j over rows [r0, r1) of g (`out` wide), in row order.
void tile_bias_sum(const float* g, int64_t r0, int64_t r1, int32_t out, float* acc) {
  std::fill(acc, acc + out, 0.0f);
  for (int64_t r = r0; r < r1; ++r) {
    const float* row = g + r * out;
#pragma omp simd
    for (int32_t j = 0; j < out; ++j)
      acc[j] += row[j];
  }
}

/// A thread's tiles [tile0, tile1) through the backward pass, one tile at a time through every
/// layer (its rows stay in cache): dZ, the tile's bias partial, its weight-gradient slot (slot k
/// is tile k: ws.slot_rows == k_tile_rows) and the input gradient. The ping-pong gradients are
/// laid out by tile (tile k's rows from k * k_tile_rows * grad_width on, at each layer's width), so
/// a tile never writes where another tile's rows lie; dLoss/dEncoding goes to net.encoding_grad.
void backward_own_tiles(const NetView& net, CpuWorkspace& ws, const float* input, int64_t rows, bool first_chunk,
                        float* const bufs[2], int64_t tile0, int64_t tile1) {
  const auto& layers = *net.layers;
  const float omega = net.model->omega_0, scale = net.model->gauss_scale;
  const CpuKernels& kern = cpu_kernels();
  for (int64_t tile = tile0; tile < tile1; ++tile) {
    const int64_t r0 = tile * k_tile_rows, n = std::min(rows, r0 + k_tile_rows) - r0;
    float* const tb[2] = {bufs[0] + r0 * ws.grad_width, bufs[1] + r0 * ws.grad_width};
    int cur = 0;
    for (size_t li = layers.size(); li-- > 0;) {
      const DenseLayer& L = layers[li];
      float* g = tb[cur];
      kern.activation_backward(L.activation, g, ws.z[li].data() + r0 * L.out, ws.y[li].data() + r0 * L.out, 0,
                               n * L.out, omega, scale);
      tile_bias_sum(g, 0, n, L.out, ws.bias_parts.data() + tile * ws.bias_part_floats + ws.bias_part_offset[li]);
      const float* x = (li == 0 ? input : ws.y[li - 1].data()) + r0 * L.in;
      slot_weight_gradient(kern, L, g, x, n, ws.slots.data() + tile * ws.slot_floats + ws.slot_offset[li],
                           first_chunk);
      if (li > 0)
        tile_input_gradient(kern, L, net.params + L.weight_offset, g, tb[1 - cur], n);
      else if (net.encoding_grad)
        tile_input_gradient(kern, L, net.params + L.weight_offset, g, net.encoding_grad + r0 * L.in, n);
      cur = 1 - cur;
    }
  }
}

/// The bias gradients from the chunk's tile partials (called by the whole team after every tile
/// is done): per column, the tiles' partials added in tile order (zero first on the first chunk).
void reduce_bias_tiles(const NetView& net, const CpuWorkspace& ws, int64_t tiles, float* grads, bool first_chunk) {
  for (size_t li = 0; li < net.layers->size(); ++li) {
    const DenseLayer& L = (*net.layers)[li];
    float* db = grads + (L.bias_offset - net.grads_first);
#pragma omp for schedule(static) nowait
    for (int32_t j = 0; j < L.out; ++j) {
      float v = first_chunk ? 0.0f : db[j];
      for (int64_t tile = 0; tile < tiles; ++tile)
        v += ws.bias_parts[size_t(tile * ws.bias_part_floats + ws.bias_part_offset[li] + j)];
      db[j] = v;
    }
  }
}
} // namespace

namespace {
/// backward_rows' layers one at a time over the whole chunk, for a network whose weight-gradient
/// slot spans several tiles (ws.slot_rows > k_tile_rows: a wide network's slots would not fit
/// otherwise). Thread t of nt; called inside the parallel region, after the loss.
void backward_layer_major(const NetView& net, CpuWorkspace& ws, const float* input, int64_t rows, float* grads,
                          bool first_chunk, float* const bufs[2], int t, int nt, float* acc) {
  const auto& layers = *net.layers;
  const float omega = net.model->omega_0, scale = net.model->gauss_scale;
  const CpuKernels& kern = cpu_kernels();
  const int64_t nslots = (rows + ws.slot_rows - 1) / ws.slot_rows;
  int64_t tile0 = 0, tile1 = 0;
  own_tiles(rows, t, nt, tile0, tile1);
  int cur = 0;
  for (size_t li = layers.size(); li-- > 0;) {
    const DenseLayer& L = layers[li];
    float* g = bufs[cur];
    // dZ = dY * act'(z): each thread its own tiles (which it also produced in the step before).
    for (int64_t tile = tile0; tile < tile1; ++tile) {
      const int64_t r0 = tile * k_tile_rows, r1 = std::min(rows, r0 + k_tile_rows);
      kern.activation_backward(L.activation, g, ws.z[li].data(), ws.y[li].data(), r0 * L.out, r1 * L.out, omega,
                               scale);
    }
    // The layer's one synchronisation point: below, every thread reads all rows of dZ and X.
    // (Each sync costs a scheduler wake-up when the machine is busy: they are kept few.)
#pragma omp barrier
    // Bias gradient, each thread its own columns: per column, fixed 512-row blocks each summed
    // in row order, the blocks added in order (thread-count independent).
    bias_gradient(g, rows, L.out, t, nt, acc, grads + (L.bias_offset - net.grads_first), first_chunk);
    // Weight gradient dW = dZ^T X: one partial per slot of rows (whichever thread takes it),
    // accumulated over the chunks; reduce_weight_slots() adds the slots in order.
    const float* x = li == 0 ? input : ws.y[li - 1].data();
#pragma omp for schedule(static) nowait
    for (int64_t slot = 0; slot < nslots; ++slot) {
      const int64_t s0 = slot * ws.slot_rows, s1 = std::min(rows, s0 + ws.slot_rows);
      slot_weight_gradient(kern, L, g + s0 * L.out, x + s0 * L.in, s1 - s0,
                           ws.slots.data() + slot * ws.slot_floats + ws.slot_offset[li], first_chunk);
    }
    // Input gradient for the layer below (or the hash grid): each thread its own tiles.
    float* input_grad = li == 0 && net.encoding_grad ? net.encoding_grad : bufs[1 - cur];
    for (int64_t tile = tile0; (li > 0 || net.trainable_encoding()) && tile < tile1; ++tile) {
      const int64_t r0 = tile * k_tile_rows, r1 = std::min(rows, r0 + k_tile_rows);
      tile_input_gradient(kern, L, net.params + L.weight_offset, g + r0 * L.out, input_grad + r0 * L.in, r1 - r0);
    }
    // No barrier here: the next layer's barrier comes before anything reads another thread's
    // rows or writes what this layer's weight gradient reads.
    cur = 1 - cur;
  }
}
} // namespace

double backward_rows(const NetView& net, CpuWorkspace& ws, const float* coords, const float* input,
                     const float* targets, int64_t rows, const LossParams& loss, float inv_count, float* grads,
                     bool first_chunk, std::vector<float>& scratch) {
  const auto& layers = *net.layers;
  const int32_t C = layers.back().out;
  const float* pred = ws.y.back().data();
  ws.partial.assign(size_t(blocks_of(rows)), 0.0);
  int32_t widest = 1;
  for (const auto& L : layers) widest = std::max(widest, L.out);
  scratch.resize(size_t(std::max(1, omp_get_max_threads())) * size_t(widest)); // one row per thread
  float* const bufs[2] = {ws.grad_a.data(), ws.grad_b.data()};
  // A slot of one tile (every network but the widest): each tile goes through all the layers on
  // its own, and the team meets once, for the bias partials. Not for a trained family's gradient
  // left to this pass (the layer-by-layer pass leaves dLoss/dEncoding in one piece for its
  // backward).
  static_assert(k_tile_rows == k_block_rows && k_tile_rows == k_slot_rows, "a tile is a block and a slot");
  const bool tile_slots = ws.slot_rows == k_tile_rows && !(net.trainable_encoding() && !net.encoding_grad);

#pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    // The loss gradient in the layout of the pass that reads it (by tile, or in one piece).
    loss_blocks(loss, pred, targets, rows, C, inv_count, bufs[0],
                tile_slots ? k_tile_rows * ws.grad_width : k_block_rows * C, ws.partial);
    if (tile_slots) {
      int64_t tile0 = 0, tile1 = 0;
      own_tiles(rows, t, nt, tile0, tile1);
      backward_own_tiles(net, ws, input, rows, first_chunk, bufs, tile0, tile1);
#pragma omp barrier
      reduce_bias_tiles(net, ws, tiles_of(rows), grads, first_chunk);
    } else {
      backward_layer_major(net, ws, input, rows, grads, first_chunk, bufs, t, nt,
                           scratch.data() + size_t(t) * size_t(widest));
    }
  }
  // The last product wrote dLoss/dEncoding into the buffer the loop would use next.
  if (net.trained && !net.encoding_grad) // not deferred: their gradients start at parameter 0 (grads_first 0)
    net.trained->backward(net.params, coords, bufs[layers.size() % 2], rows, grads,
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
/// optimizer_pass with a learning-rate factor on some lanes (LaneStep): element by element, two
/// learning rates. Its arrays are small beside the step (a Gaussian's 8 floats against its pairs).
template <bool Clear, class Grad>
void optimizer_lanes(const OptimizerSpec& opt, float* params, Grad* grads, float* first, float* second, int64_t n,
                     float lr, int64_t step, LaneStep lanes) {
  const float lr_lane = lr * lanes.factor;
  if (opt.kind == OptimizerKind::Adam) {
    const AdamParams a = opt.adam;
    const float bias1 = float(1.0 - std::pow(double(a.beta1), double(step + 1)));
    const float bias2 = float(1.0 - std::pow(double(a.beta2), double(step + 1)));
    const AdamStep plain = adam_step(lr, bias1, bias2), scaled = adam_step(lr_lane, bias1, bias2);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) {
      adam_update(a, lanes.scales(i) ? scaled : plain, params[i], grads[i], first[i], second[i]);
      if constexpr (Clear) grads[i] = 0.0f;
    }
  } else {
    const SgdParams s = opt.sgd;
    float dummy = 0;
#pragma omp parallel for schedule(static) firstprivate(dummy)
    for (int64_t i = 0; i < n; ++i) {
      sgd_update(s, lanes.scales(i) ? lr_lane : lr, params[i], grads[i], first ? first[i] : dummy);
      if constexpr (Clear) grads[i] = 0.0f;
    }
  }
}

/// One optimizer update of n parameters; with Clear, each gradient is zeroed once read (in the
/// same sweep: a separate clear would be a second pass over memory).
template <bool Clear, class Grad>
void optimizer_pass(const OptimizerSpec& opt, float* params, Grad* grads, float* first, float* second, int64_t n,
                    float lr, int64_t step, LaneStep lanes = {}) {
  if (lanes.lanes > 0) {
    optimizer_lanes<Clear>(opt, params, grads, first, second, n, lr, step, lanes);
    return;
  }
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
                           int64_t n, float lr, int64_t step, LaneStep lanes) {
  // Without weight decay (it would pull rarely seen entries to zero), the gradients cleared for
  // the next step's backward to add into.
  OptimizerSpec plain = opt;
  plain.adam.weight_decay = plain.sgd.weight_decay = 0.0f;
  optimizer_pass<true>(plain, params, grads, first, second, n, lr, step, lanes);
}

void optimizer_table_range(const OptimizerSpec& opt, float* params, float* grads, float* first, float* second,
                           int64_t begin, int64_t end, float lr, int64_t step) {
  optimizer_table_slice(opt, params + begin, grads + begin, first ? first + begin : nullptr,
                        second ? second + begin : nullptr, end - begin, lr, step);
}

void optimizer_ranges(const OptimizerSpec& opt, float* params, float* grads, float* first, float* second, int64_t n,
                      float lr, int64_t step, int64_t table, LaneStep table_lanes) {
  optimizer_table_slice(opt, params, grads, first, second, table, lr, step, table_lanes);
  optimizer_pass<false>(opt, params + table, grads + table, first ? first + table : nullptr,
                        second ? second + table : nullptr, n - table, lr, step);
}

} // namespace cpu

namespace {
/// Bytes one row takes in a CpuWorkspace (reserve's arrays, slots aside) and in its coordinates.
int64_t workspace_bytes_per_row(const std::vector<DenseLayer>& layers, int32_t encoding_width) {
  int64_t floats = encoding_width + 2;
  int32_t widest = encoding_width;
  for (const auto& L : layers) {
    floats += 2 * int64_t(L.out);
    widest = std::max({widest, L.in, L.out});
  }
  return (floats + 2 * int64_t(widest)) * int64_t(sizeof(float));
}
} // namespace

int64_t cpu_chunk_rows(const std::vector<DenseLayer>& layers, int32_t encoding_width) {
  const int64_t per_row = workspace_bytes_per_row(layers, encoding_width);
  int64_t rows = k_max_chunk_rows;
  while (rows > k_min_chunk_rows && rows * per_row > k_max_workspace_bytes) rows /= 2;
  return rows;
}

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
  grad_width = widest;
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
  bias_part_offset.assign(layers.size(), 0);
  bias_part_floats = 0;
  for (size_t l = 0; l < layers.size(); ++l) {
    bias_part_offset[l] = bias_part_floats;
    bias_part_floats += layers[l].out;
  }
  cpu::resize_checked(bias_parts, bias_part_floats * cpu::blocks_of(n), "bias-gradient parts");
}

} // namespace redraw
