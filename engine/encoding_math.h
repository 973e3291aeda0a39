#pragma once
/// Input encodings of a 2-D coordinate (x, y) in [-1, 1]^2, one output element at a time, so a
/// CUDA kernel can give each thread one element and the CPU loops over the same function. Each
/// family's per-element math is its own header; this file lists the families once
/// (REDRAW_MODEL_FAMILIES) and dispatches on the kind:
/// - Identity (engine/identity_math.h), Positional (engine/positional_math.h), Fourier
///   (engine/fourier_math.h): closed forms.
/// - HashGrid (engine/hash_grid_math.h), Gaussians (engine/gaussian_math.h) and Sad
///   (engine/sad_math.h) read trainable parameters, so encoding_value() gives only their width and returns 0; callers take their paths.
/// Everything else a family is (its config, layout, init, export, views) is its record,
/// engine/model_family.h.
#include "engine/fourier_math.h"
#include "engine/gaussian_math.h"
#include "engine/hash_grid_math.h"
#include "engine/hd_common.h"
#include "engine/identity_math.h"
#include "engine/positional_math.h"
#include "engine/sad_math.h"

namespace redraw {

/// The registry of model families, one line per family: its kind, its per-element math (its own
/// header, included above) and its record (engine/model_family.h, defined in its own
/// engine/<name>_family.cpp; engine/model_families.cpp makes the table of them from this list).
/// The order gives EncodingKind's values (Identity = 0, Positional, Fourier, HashGrid, Gaussians),
/// which model files store: a new family goes at the end (tests/engine/core/test_model_families.cpp
/// pins the stored values).
#define REDRAW_MODEL_FAMILIES(X)                                                                                      \
  X(Identity, IdentityMath, k_identity_family)                                                                        \
  X(Positional, PositionalMath, k_positional_family)                                                                  \
  X(Fourier, FourierMath, k_fourier_family)                                                                           \
  X(HashGrid, HashGridMath, k_hash_grid_family)                                                                       \
  X(Gaussians, GaussiansMath, k_gaussians_family)                                                                     \
  X(Sad, SadMath, k_sad_family)                                                                                       \
  /* a new family: one line above this one */

#define REDRAW_ENCODING_KIND(kind_name, Math, record) kind_name,
enum class EncodingKind : int32_t { REDRAW_MODEL_FAMILIES(REDRAW_ENCODING_KIND) };
#undef REDRAW_ENCODING_KIND
/// A spec's encoding until a config says otherwise.
constexpr EncodingKind k_default_encoding = EncodingKind::Identity;

struct EncodingParams {
  EncodingKind kind = k_default_encoding;
  int32_t levels = 0;   ///< Positional: L; HashGrid: levels
  int32_t features = 0; ///< Fourier: F; HashGrid: features per level
};

REDRAW_HD inline int32_t encoding_width(const EncodingParams& e) {
#define REDRAW_ENCODING_WIDTH(kind_name, Math, record)                                                                        \
  case EncodingKind::kind_name: return Math::width(e.levels, e.features);
  switch (e.kind) { REDRAW_MODEL_FAMILIES(REDRAW_ENCODING_WIDTH) }
#undef REDRAW_ENCODING_WIDTH
  return 2;
}

/// Output element j of the encoding of (x, y). fourier_b is F x 2 row-major (b_j = fourier_b[2j..2j+1]).
template <class T>
REDRAW_HD inline T encoding_value(const EncodingParams& e, const float* fourier_b, T x, T y, int32_t j) {
#define REDRAW_ENCODING_VALUE(kind_name, Math, record)                                                                        \
  case EncodingKind::kind_name: return Math::template value<T>(e.levels, e.features, fourier_b, x, y, j);
  switch (e.kind) { REDRAW_MODEL_FAMILIES(REDRAW_ENCODING_VALUE) }
#undef REDRAW_ENCODING_VALUE
  return T(0);
}

/// d encoding_value / dx and / dy for element j (used by gradient checks and coordinate gradients).
template <class T>
REDRAW_HD inline void encoding_derivative(const EncodingParams& e, const float* fourier_b, T x, T y, int32_t j,
                                          T& d_dx, T& d_dy) {
  d_dx = T(0);
  d_dy = T(0);
#define REDRAW_ENCODING_DERIVATIVE(kind_name, Math, record)                                                                   \
  case EncodingKind::kind_name: Math::template derivative<T>(e.levels, e.features, fourier_b, x, y, j, d_dx, d_dy); return;
  switch (e.kind) { REDRAW_MODEL_FAMILIES(REDRAW_ENCODING_DERIVATIVE) }
#undef REDRAW_ENCODING_DERIVATIVE
}

} // namespace redraw
