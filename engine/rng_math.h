#pragma once
/// Counter-based random numbers: a value is a pure function of (seed, stream, counter), so the CPU
/// and the GPU draw the same minibatch indices and initial weights without sharing any state.
#include "engine/hd_common.h"

namespace redraw {

/// SplitMix64 finaliser: a bijective 64-bit mix with good avalanche.
REDRAW_HD inline uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

REDRAW_HD inline uint64_t random_u64(uint64_t seed, uint64_t stream, uint64_t counter) {
  return mix64(mix64(seed ^ mix64(stream)) + counter);
}

/// Uniform in [0, 1) with 53 random bits.
REDRAW_HD inline double random_unit(uint64_t seed, uint64_t stream, uint64_t counter) {
  return double(random_u64(seed, stream, counter) >> 11) * (1.0 / 9007199254740992.0);
}

/// Uniform integer in [0, n), n < 2^32 (Lemire's multiply-shift; bias below 2^-32 * n).
REDRAW_HD inline uint32_t random_below(uint64_t seed, uint64_t stream, uint64_t counter, uint32_t n) {
  return uint32_t(((random_u64(seed, stream, counter) >> 32) * uint64_t(n)) >> 32);
}

/// Stream ids keep independent uses of one seed apart.
enum RandomStream : uint64_t {
  k_stream_init = 1,
  k_stream_fourier = 2,
  k_stream_minibatch = 3,
  k_stream_hash_grid = 4,
  k_stream_gaussians = 5,
  k_stream_sad = 6,     ///< the sites' initial floats (engine/sad_family.cpp)
  k_stream_sad_jfa = 7,  ///< the sites' top-K lists' random candidates (engine/sad_list_math.h)
  k_stream_gaussian_growth = 16, ///< the pixels a relocation draws, any family (engine/growth.cpp)
  k_stream_gaussian_carrier = 17 ///< the carrier's frequencies: initial, and a relocated Gaussian's
};

/// Index of sample i of the minibatch drawn at step `step` from a dataset of n samples.
REDRAW_HD inline uint32_t minibatch_index(uint64_t seed, int64_t step, int64_t i, uint32_t n) {
  return random_below(seed, k_stream_minibatch, (uint64_t(step) << 32) ^ uint64_t(i), n);
}

} // namespace redraw
