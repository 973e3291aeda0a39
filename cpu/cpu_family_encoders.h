#pragma once
/// The CPU backend's own encoders of closed-form families (engine/encoding_math.h), registered in
/// one table (cpu/cpu_family_encoders.cpp, one line per family that has one). A family without one
/// is encoded element by element through encoding_value; a family whose output is the coordinates
/// (its record's passes_coordinates) is copied. The trained families' kernels (hash grid,
/// Gaussians) are bound by the backend from hash_grid_of / gaussians_of (engine/model_spec.h).
#include "engine/encoding_math.h"

#include <cstdint>

namespace redraw::cpu {

/// Encodes n coordinates into out (n x width) with the calling thread's OpenMP team.
using CpuEncoder = void (*)(const EncodingParams& e, const float* fixed, const float* coords, int64_t n, float* out);

/// The CPU's own encoder for `kind`, or null.
CpuEncoder cpu_family_encoder(EncodingKind kind);

} // namespace redraw::cpu
