#pragma once
/// Fitting a run to the machine, as plain functions the panel and the tests share:
/// - first_launch_preset(): what a first launch (no settings yet) starts with: `instant`, whose
///   CPU batch is fixed (training.batch_cpu), so a recognisable picture forms within seconds on a
///   2-core CPU as on a GPU.
/// - suggested_training_side(): when a full-batch run's ETA is long, the longest training side
///   that would bring the whole run under a target time (a full-batch step's cost grows with the
///   pixel count), or 0 when no smaller size is needed or would help.
#include <cstdint>
#include <string>

namespace redraw {

/// The preset a first launch starts with.
std::string first_launch_preset();

/// ETAs above this (seconds) get a suggestion.
constexpr double k_eta_hint_seconds = 180.0;
/// What the suggestion aims at: the whole run in under a minute, with some margin.
constexpr double k_eta_target_seconds = 55.0;

/// side: the run's longest training side; pixels: its pixel count; batch: its batch (0 = full);
/// steps_per_s: the measured rate at that size; total_steps: the run's length. Returns the new
/// longest side (>= 16), or 0 when the run's ETA from the start is already under the target, a
/// minibatch smaller than the image fixes the step's cost, or the rate is not known yet.
int32_t suggested_training_side(int32_t side, int64_t pixels, int64_t batch, double steps_per_s, int64_t total_steps,
                                double target_seconds = k_eta_target_seconds);

} // namespace redraw
