#pragma once
/// The bounds a model's numbers must keep, and the counts that check them: one rule for what a run
/// keeps and what a model file may hold. The backends (Backend::copy_state_if_sound), the trainer's
/// good state and divergence check, the frames and the model file's writer and checks all use it,
/// so what is kept opens.
#include <cstdint>
#include <cstddef>
#include <span>

namespace redraw {

/// Largest |weight| a model may hold in its parameters and snapshots. Trained networks stay within
/// a few hundred; 3e38 (finite) overflows to inf and NaN in the first layer.
constexpr float k_max_model_weight = 1e6f;
/// Largest |value| a model may hold in its optimizer's state (Adam's second moment is a squared
/// gradient).
constexpr float k_max_optimizer_value = 1e12f;

/// Longest string a model may hold (a path, a name, a reason), in bytes: the model file's reader
/// refuses a longer one, a config's name past it is refused before a run starts, and a longer
/// source path is stored shortened (utf8_within, engine/display_text.h), so every model written
/// opens again.
constexpr size_t k_max_model_string_bytes = 4096;

/// How many values of `v` are NaN or infinite.
int64_t count_nonfinite(std::span<const float> v);
/// How many values of `v` are not sound: NaN, infinite, or beyond `limit` in magnitude.
int64_t count_unsound(std::span<const float> v, float limit);

} // namespace redraw
