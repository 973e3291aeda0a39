#pragma once
/// Which hash-grid kernels the CUDA backend runs, a process-wide switch for comparing them on a
/// GPU (parity and speed), in plain C++ so the CPU tests check its parsing (no CUDA headers).
/// - encode: per-sample (default): one thread per sample loops over the levels and writes its row
///   with 16-byte stores where the row allows; per-level: one thread per (sample, level), the
///   earlier kernel.
/// - backward: shared-dense (default): per-sample with the coarse dense levels that fit a block's
///   shared memory (cuda/hash_grid_shared_levels.h) summed per block with shared-memory atomics
///   (feature-major, a few persistent blocks per SM, several samples per thread), then one global
///   atomic per non-zero entry; the finer levels as per-sample. Instant's samples/s at 2^18 on a
///   user's 512x512 grid: 1.35x per-sample's on an H100 (3.21e8 against 2.38e8) and on an H200;
///   per-sample: one thread per sample loops over the levels, one float (or float2) atomic per
///   corner and feature; it reads its sample once and spreads the coarse levels' contended entries
///   over the whole launch (0.45 against 0.52 ms per instant step at 2^18 samples on an H100,
///   against atomic); atomic: one thread per (sample, level), the earlier kernel;
///   warp-aggregated: per (sample, level), lanes of a warp that hit the same table entry add their
///   values first and one lane adds the sum (0.96 ms on the H100: slower).
/// - features: fp16 (default): where the fused fp16 MLP reads the encoding, the encoder writes fp16
///   straight into the MLP's input (its layer-0 activations), padded to 16 columns; fp32: the
///   encoder writes fp32 rows and the MLP converts them as it loads them.
/// - REDRAW_HASH_GRID_ENCODE, REDRAW_HASH_GRID_BACKWARD and REDRAW_HASH_GRID_FEATURES set them at
///   start-up (the names above); an unknown name throws ConfigError listing the known ones.
#include "engine/errors.h"

#include <cstdint>
#include <string>

namespace redraw::cuda {

enum class HashGridEncodeKernel : int32_t { PerSample = 0, PerLevel };
enum class HashGridBackwardKernel : int32_t { Atomic = 0, WarpAggregated, PerSample, SharedDense };

struct HashGridKernels {
  HashGridEncodeKernel encode = HashGridEncodeKernel::PerSample;
  HashGridBackwardKernel backward = HashGridBackwardKernel::SharedDense;
  bool half_features = true; ///< fp16 features for the fused MLP
};

inline const char* hash_grid_encode_kernel_name(HashGridEncodeKernel k) {
  return k == HashGridEncodeKernel::PerLevel ? "per-level" : "per-sample";
}
inline const char* hash_grid_backward_kernel_name(HashGridBackwardKernel k) {
  return k == HashGridBackwardKernel::WarpAggregated ? "warp-aggregated"
         : k == HashGridBackwardKernel::PerSample    ? "per-sample"
         : k == HashGridBackwardKernel::SharedDense  ? "shared-dense"
                                                     : "atomic";
}

/// The kernels named by the settings; null or empty keeps the default.
inline HashGridKernels parse_hash_grid_kernels(const char* encode, const char* backward,
                                               const char* features = nullptr) {
  HashGridKernels k;
  const std::string e = encode ? encode : "", b = backward ? backward : "", f = features ? features : "";
  if (f == "fp32")
    k.half_features = false;
  else if (!f.empty() && f != "fp16")
    throw ConfigError("REDRAW_HASH_GRID_FEATURES: '" + f + "' not found (known: fp16, fp32)");
  if (e == "per-level")
    k.encode = HashGridEncodeKernel::PerLevel;
  else if (!e.empty() && e != "per-sample")
    throw ConfigError("REDRAW_HASH_GRID_ENCODE: '" + e + "' not found (known: per-sample, per-level)");
  if (b == "warp-aggregated")
    k.backward = HashGridBackwardKernel::WarpAggregated;
  else if (b == "atomic")
    k.backward = HashGridBackwardKernel::Atomic;
  else if (b == "per-sample")
    k.backward = HashGridBackwardKernel::PerSample;
  else if (!b.empty() && b != "shared-dense")
    throw ConfigError("REDRAW_HASH_GRID_BACKWARD: '" + b +
                      "' not found (known: shared-dense, per-sample, atomic, warp-aggregated)");
  return k;
}

/// The kernels the CUDA backend's hash-grid passes run: the environment's at first use, else the
/// defaults. Defined in cuda/hash_grid_kernels.cu (the CUDA library); thread-safe.
HashGridKernels hash_grid_kernels();
/// Changes them for the whole process from the next pass on (tests, the benchmark).
void set_hash_grid_kernels(const HashGridKernels& k);

} // namespace redraw::cuda
