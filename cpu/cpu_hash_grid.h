#pragma once
/// The CPU backend's hash-grid passes (engine/hash_grid_math.h), on every core with OpenMP.
/// - Both compute a level's corners a few rows ahead and prefetch their table entries: a fine
///   level's lookups are cache misses scattered over the table, and this keeps several in flight.
/// - Forward: rows are split among threads; each output is a plain function of the table.
/// - Backward: levels are split among threads, and each level's entries receive their rows'
///   contributions in row order, whatever the thread count. Every table gradient is therefore the
///   same sum in the same order on every run: the same seed gives bit-identical tables, without
///   atomics and without a partial table per thread (which at 16 levels x 2^17 x 2 floats would be
///   16 MiB per thread to clear and add up every step).
/// - Where the CPU has AVX2, both passes take eight rows at a time (cpu_hash_grid_avx2.cpp), with
///   the same bits: the backward's additions still go one at a time, in row order.
#include "engine/hash_grid_math.h"

#include <cstdint>
#include <memory>
#include <type_traits>

namespace redraw {
struct EncodingSpec;
namespace cpu {
class CpuTrainedEncoding;
}

/// out (n x L*F) = the encoding of coords (n x 2) with `table` (hash_grid_entries x F floats).
void hash_grid_encode_rows(const HashGridParams& g, const float* table, const float* coords, int64_t n, float* out);

/// Level l's columns of out (n x L*F) for all n rows; the other columns are left as they are. The
/// CPU backend encodes a minibatch level by level, each level right after its table's deferred
/// gradient and optimizer update, while that level's entries are still in cache.
void hash_grid_encode_level(const HashGridParams& g, int32_t l, const float* table, const float* coords, int64_t n,
                            float* out);

/// table_grad (entries x F) += the gradient of the encoding given d_out = dLoss/dEncoding
/// (n x L*F); `table_grad` is cleared first unless `accumulate`.
void hash_grid_backward_rows(const HashGridParams& g, const float* coords, const float* d_out, int64_t n,
                             float* table_grad, bool accumulate);

/// Level l's part of hash_grid_backward_rows on the calling thread alone: level_grad (the level's
/// entries x F, level_grad[0] being entry g.offset[l]'s) += its rows' contributions, in row order.
/// The CPU backend scatters a level's gradient this way just before the level's update, into a
/// buffer the size of one level that stays in cache.
void hash_grid_backward_level(const HashGridParams& g, int32_t l, const float* coords, const float* d_out, int64_t n,
                              float* level_grad);

namespace hash_grid_detail {
/// Calls fn(std::integral_constant<int, F>) for the grid's features per level (1, 2, 4 or 8), so
/// each pass is compiled for a constant F.
template <class Fn> void with_features(int32_t n_features, Fn&& fn) {
  switch (n_features) {
  case 1:
    fn(std::integral_constant<int, 1>{});
    return;
  case 2:
    fn(std::integral_constant<int, 2>{});
    return;
  case 4:
    fn(std::integral_constant<int, 4>{});
    return;
  default:
    fn(std::integral_constant<int, 8>{});
    return;
  }
}

/// Level l's columns of rows [r0, r1) of out, eight rows at a time with AVX2 (the same bits as the
/// scalar pass below for every finite coordinate); returns the first row it left undone (fewer
/// than eight remain). Call only where avx2_available().
int64_t encode_level_rows_avx2(const HashGridParams& g, int32_t l, const float* table, const float* coords, int64_t r0,
                               int64_t r1, int32_t width, float* out);
/// The backward pass's additions into level l's gradients (level_grad[0] is entry g.offset[l]'s)
/// for rows [r0, r1), eight rows at a time (the corners and products as vectors, the additions in
/// the scalar pass's order); returns the first row it left undone. Call only where avx2_available().
int64_t backward_level_rows_avx2(const HashGridParams& g, int32_t l, const float* coords, const float* d_out,
                                 int64_t r0, int64_t r1, int32_t width, float* level_grad);
bool avx2_available();
/// The scalar pass (hash_grid_corners and hash_grid_encode_level's arithmetic, entries prefetched
/// a few rows ahead), for rows [r0, r1).
void encode_level_rows_scalar(const HashGridParams& g, int32_t l, const float* table, const float* coords, int64_t r0,
                              int64_t r1, int32_t width, float* out);
/// The scalar backward pass's additions for rows [r0, r1) of level l (level_grad as above).
void backward_level_rows_scalar(const HashGridParams& g, int32_t l, const float* coords, const float* d_out, int64_t r0,
                                int64_t r1, int32_t width, float* level_grad);
/// The CPU has AVX2 and REDRAW_SIMD does not say sse2 (the table's AVX2 sweep, cpu_passes.cpp).
bool avx2_in_use();
/// Whether the passes above use the AVX2 form for grid g: the CPU has it, REDRAW_SIMD does not say
/// sse2, and the table's floats fit the gathers' 32-bit offsets.
bool passes_use_avx2(const HashGridParams& g);
} // namespace hash_grid_detail

/// The hash grid's kernels behind the CPU's trained-family interface (cpu/cpu_family_encoders.h):
/// encode and backward above, and its levels for the deferred minibatch update.
std::unique_ptr<cpu::CpuTrainedEncoding> make_cpu_hash_grid_encoding(const EncodingSpec& enc);

} // namespace redraw
