#pragma once
/// The `gaussians` encoding on the device (engine/gaussian_math.h holds the per-sample math, the
/// CPU backend's too), as a tile-binned rasteriser with its backward.
/// - bin(): [-1, 1]^2 is cut into GaussianParams::bins bins per side. Each Gaussian's box (the
///   one that holds its support, gaussian_half_extent) covers a rectangle of bins; one thread per
///   Gaussian writes its (bin, Gaussian) pairs in row-major bin order, at the Gaussian's place in
///   an exclusive scan of the pair counts, and a stable radix sort by bin leaves every bin's
///   Gaussians in index order: the CPU's lists (cpu/cpu_gaussians.h), so the sums below add the
///   same terms in the same order. The pair count is read back to size the buffers: one 8-byte
///   copy and a wait per bin(), which is why a gaussians run steps without a CUDA graph.
/// - encode: one thread per sample sums its bin's list. Culling by box drops only zero terms.
/// - backward, deterministic without atomics: the samples sorted by bin (stable), one thread per
///   pair sums its bin's samples' contributions in that order into a partial of its own, and one
///   thread per Gaussian adds its partials in bin order. Every gradient is the same sum in the
///   same order on every run.
/// - A bin() serves every pass until the parameters change: the bound step bins once per step,
///   before its chunks, and the metric and render passes bin the weights they draw.
#include "cuda/device_buffer.h"
#include "engine/gaussian_math.h"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace redraw::cuda {

class GaussianBinning {
public:
  GaussianBinning() = default;
  ~GaussianBinning();
  GaussianBinning(const GaussianBinning&) = delete;
  GaussianBinning& operator=(const GaussianBinning&) = delete;

  /// Bins the g.count Gaussians of `params` (device, g.count x g.floats) on `stream`,
  /// growing the buffers from `pool` when they are short. Waits for the stream once (the pair
  /// count). BackendError, before the pair buffers grow, when the pairs pass the bound a model is
  /// held to (engine/gaussian_bounds.h: Gaussians far larger than the picture).
  void bin(const DevicePool& pool, cudaStream_t stream, const GaussianParams& g, const float* params);
  /// out (n x k_gaussian_channels) = the Gaussians' sum at coords (n x 2), for the parameters of
  /// the last bin().
  void encode(cudaStream_t stream, const float* params, const float* coords, int64_t n, float* out) const;
  /// The same at the pixel centres of a w x h image, linear pixel indices [p0, p0 + count).
  void encode_pixels(cudaStream_t stream, const float* params, int32_t w, int32_t h, int64_t p0, int64_t count,
                     float* out) const;
  /// grads (count x g.floats) += the gradient given d_out = dLoss/dEncoding
  /// (n x k_gaussian_channels) at coords; set rather than added to unless `accumulate`.
  void backward(const DevicePool& pool, cudaStream_t stream, const float* params, const float* coords,
                const float* d_out, int64_t n, float* grads, bool accumulate);

  int64_t pairs() const { return m_pairs; }

private:
  void reserve_temp(const DevicePool& pool, cudaStream_t stream, size_t bytes);
  GaussianParams m_g;
  int64_t m_pairs = 0;
  DeviceBuffer<float> m_shapes;          ///< per Gaussian: mx, my, 1/a, b, 1/c
  DeviceBuffer<int32_t> m_boxes;         ///< per Gaussian: x0, x1, y0, y1 in bins
  DeviceBuffer<int64_t> m_counts, m_offsets, m_total;
  DeviceBuffer<uint32_t> m_pair_bin, m_sorted_bin;
  DeviceBuffer<int32_t> m_pair_gauss, m_pair_index, m_sorted_pair, m_sorted_gauss;
  DeviceBuffer<int32_t> m_bin_start, m_bin_end; ///< per bin: its range in the sorted pairs
  // backward
  DeviceBuffer<uint32_t> m_sample_bin, m_sorted_sample_bin;
  DeviceBuffer<int32_t> m_sample_index, m_sorted_sample, m_sample_start, m_sample_end;
  DeviceBuffer<float> m_partial; ///< per pair (in generation order): g.floats
  DeviceBuffer<uint8_t> m_temp;  ///< cub's scratch
  int64_t* m_host_total = nullptr; ///< pinned
};

} // namespace redraw::cuda
