#pragma once
/// The CPU backend's passes over rows of samples (cpu/cpu_backend.cpp binds them to a
/// training state): encoding, the forward pass in fixed row tiles, the backward pass with
/// weight-gradient slots, the slots' reduction in a fixed order, and the optimizer update. The
/// shapes of every piece of work are fixed whatever the thread count, so results are the same
/// bits on any team size (see k_tile_rows in cpu_passes.cpp).
#include "cpu/cpu_backend.h"
#include "cpu/cpu_family_encoders.h"
#include "engine/errors.h"
#include "engine/model_spec.h"
#include "engine/optimizer_math.h"

#include <cstdint>
#include <new>
#include <optional>
#include <string>
#include <vector>

namespace redraw::cpu {

/// Rows per block of every reduction. Fixed, so sums do not depend on the thread count.
constexpr int64_t k_block_rows = 512;
/// A full-batch run keeps the encoded dataset when it fits in this many bytes.
constexpr int64_t k_max_cached_encoding_bytes = int64_t(512) << 20;

inline int64_t blocks_of(int64_t rows) { return (rows + k_block_rows - 1) / k_block_rows; }

/// Everything a pass needs to know about one network.
struct NetView {
  const ModelSpec* model = nullptr;
  const std::vector<DenseLayer>* layers = nullptr;
  const float* params = nullptr;
  const float* fourier_b = nullptr;
  /// A trained family's kernels (cpu/cpu_family_encoders.h): its floats are params[0, ...), and
  /// backward_rows sets or adds their gradients (table_grads_zeroed). Null: a closed-form family.
  CpuTrainedEncoding* trained = nullptr;
  bool table_grads_zeroed = false; ///< the trained floats' gradients are zero before the step: backward adds
  /// When set: backward_rows writes the chunk's dLoss/dEncoding here (rows x encoding width) and
  /// leaves the trained floats' gradient to the caller (a hash grid's deferred update, level by level).
  float* encoding_grad = nullptr;
  /// grads[0] is this parameter's gradient: with encoding_grad set, the caller keeps no gradient
  /// array for the table, and grads start at the first network weight.
  int64_t grads_first = 0;
  /// Whether the encoding has trainable parameters at the start of params.
  bool trainable_encoding() const { return trained != nullptr; }
};

/// Encodes n coordinates by a closed-form encoding into out (n x width): copied, the CPU's own
/// encoder (cpu/cpu_family_encoders.h), or element by element.
void encode_rows(const EncodingParams& e, const float* b, const float* coords, int64_t n, float* out);
/// The network's input for n coordinates: its encoding (a trained family reads its floats in params).
void encode_input(const NetView& net, const float* coords, int64_t n, float* out);
/// Forward pass of `rows` encoded inputs; the outputs are ws.y.back().
void forward_rows(const NetView& net, CpuWorkspace& ws, const float* input, int64_t rows);
/// Loss of the forward pass just run, and its gradient accumulated (beta = 0 on the first chunk):
/// biases and a hash grid's table into grads, dense weights into ws.slots (reduce_weight_slots()
/// adds them into grads after the last chunk). inv_count = 1 / (samples in the whole batch *
/// channels). Returns the chunk's loss sum. coords: the chunk's coordinates (the hash grid's
/// backward pass needs them; null otherwise).
double backward_rows(const NetView& net, CpuWorkspace& ws, const float* coords, const float* input,
                     const float* targets, int64_t rows, const LossParams& loss, float inv_count, float* grads,
                     bool first_chunk, std::vector<float>& scratch);
/// grads' dense weights = the sum of the slots' partials from backward_rows(), slot by slot in
/// order. `rows`: the rows of the first (largest) chunk of the batch, which touched every slot used;
/// grads[0] is parameter grads_first's gradient (NetView::grads_first).
void reduce_weight_slots(const std::vector<DenseLayer>& layers, const CpuWorkspace& ws, int64_t rows, float* grads,
                         int64_t grads_first = 0);
/// One optimizer update of n parameters (Adam or SGD, with the spec's weight decay on all of them).
void optimizer_all(const OptimizerSpec& opt, float* params, const float* grads, float* first, float* second,
                   int64_t n, float lr, int64_t step);
/// One optimizer update of the whole array. The first `table` parameters (a hash grid's table,
/// the Gaussians) take no weight decay (it would pull rarely seen entries to zero) and have their
/// gradients zeroed in the same sweep, ready for a backward pass that adds into them
/// (NetView::table_grads_zeroed); `table_lanes` scales some lanes' learning rate there (the
/// Gaussians' means, gaussian_lane_step).
void optimizer_ranges(const OptimizerSpec& opt, float* params, float* grads, float* first, float* second, int64_t n,
                      float lr, int64_t step, int64_t table, LaneStep table_lanes = {});
/// optimizer_ranges' update of table parameters [begin, end) alone (no weight decay, gradients
/// zeroed as read); first and second may be null (plain SGD).
void optimizer_table_range(const OptimizerSpec& opt, float* params, float* grads, float* first, float* second,
                           int64_t begin, int64_t end, float lr, int64_t step);
/// The same update of n table parameters whose gradients are in a buffer of their own: params,
/// first and second point at the range's first parameter, grads at its gradient (zeroed as read).
void optimizer_table_slice(const OptimizerSpec& opt, float* params, float* grads, float* first, float* second,
                           int64_t n, float lr, int64_t step, LaneStep lanes = {});

/// Adam over parameters [i0, i1) eight at a time with AVX2, gradients zeroed as read; returns the
/// first index it left undone (fewer than eight remain). The same bits as adam_update() in the
/// baseline build (NaN aside: any NaN stays a NaN). Call only where the CPU has AVX2
/// (optimizer_table_slice and optimizer_ranges call it where hash_grid_detail::avx2_in_use()).
/// In cpu/cpu_optimizer_avx2.cpp.
int64_t adam_clear_rows_avx2(const AdamParams& a, AdamStep s, float* params, float* grads, float* first,
                             float* second, int64_t i0, int64_t i1);

template <class T> void resize_checked(std::vector<T>& v, int64_t n, const char* what) {
  try {
    v.resize(size_t(n));
  } catch (const std::bad_alloc&) {
    throw BackendError(std::string("cpu backend: out of memory allocating ") + what + " (" +
                       std::to_string(n * int64_t(sizeof(T)) >> 20) + " MiB)");
  }
}

} // namespace redraw::cpu
