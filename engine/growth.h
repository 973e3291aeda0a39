#pragma once
/// What every family that grows shares (training.grow, GrowSpec): at a fixed capacity (every
/// array, the parameter count and the model file stay as they are), every GrowSpec::every steps
/// the least useful of a model's primitives relocate to pixels drawn where the picture's error is.
/// Each family's own rules (which move, how a moved one is placed) are beside its math:
/// engine/gaussian_growth.h (Gaussians), engine/sad_growth.h (sad sites); a family grows when its
/// record has ModelFamily::grow (engine/model_family.h).
/// - Where to: error_weighted_pixels, an Efraimidis-Spirakis draw from the run's seed and the step:
///   the same pixels on every machine and thread count.
/// - When: grow_due_at, at multiples of grow.every of the schedule's position, so a time budget
///   holds as many as training.steps would; the events of a run follow from its config (growth_events_until), so a
///   checkpoint needs no field for them.
#include "engine/run_config.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace redraw {

/// One relocation: after `step` completed steps, `moved` primitives went where the error was.
struct GrowthEvent {
  int64_t step = 0;
  int64_t moved = 0;
  bool operator==(const GrowthEvent&) const = default;
};

/// Why `c` cannot grow ("training.grow: ..."), or empty (also when growth is off).
std::string grow_problem(const RunConfig& c);
/// The primitives one relocation moves: fraction of count, rounded, at least 1 and at most count.
int64_t grow_count(int64_t count, double fraction);
/// Whether a relocation follows the step that reached `step` completed steps, counted in steps: a
/// multiple of grow.every, above 0, with `progress` below grow.until * training.steps. The same
/// relocations as grow_due_at for a run without a time budget (progress == step); a bench that
/// steps a trainer itself reads this one.
bool grow_due(const RunConfig& c, int64_t step, int64_t progress);
/// The relocations a run of `c` owes once its schedule stands at `progress`: one at each multiple
/// of grow.every in (0, progress] below grow.until * training.steps.
int64_t grow_events_reached(const RunConfig& c, int64_t progress);
/// Whether a relocation follows a step after which the schedule stands at `progress`
/// (Trainer::schedule_step) and `done` relocations have happened: progress below grow.until *
/// training.steps and more relocations reached than done. `every` counts schedule steps, so a run
/// under a time budget (where progress is the step its elapsed share of the budget stands for)
/// relocates as often in its budget as a run of training.steps steps: grow.until * steps / every
/// times, spread over the first grow.until of the budget, however many steps the machine makes;
/// at most one a step, a missed one made up at the next step while below until. Without a time
/// budget the same steps as grow_due.
bool grow_due_at(const RunConfig& c, int64_t progress, int64_t done);
/// The relocations of a run of `c` (without a time budget) up to and including step count `step`,
/// oldest first.
std::vector<GrowthEvent> growth_events_until(const RunConfig& c, int64_t step);

/// m distinct pixels of `error` (one non-negative value per pixel) drawn without replacement with
/// probability proportional to it, from (seed, step); most likely first. Fewer when fewer pixels
/// have an error above 0.
std::vector<int64_t> error_weighted_pixels(std::span<const double> error, int64_t m, uint64_t seed, int64_t step);

/// The picture a relocation fits: width x height pixels of `channels` values, row-major.
struct GrowthPicture {
  int32_t width = 0, height = 0, channels = 0;
  const float* targets = nullptr;    ///< the dataset's pixels
  const float* prediction = nullptr; ///< the model's output at the pixel centres, before the move
  /// The bound encoding's per-node site lists as its last step used them (the sad family's top-K
  /// lists, engine/sad_lists.h: Backend::bound_site_lists), or empty: a family that needs them
  /// then builds them afresh.
  std::span<const int32_t> site_lists;
};

/// A linear colour head's pseudo-inverse P (in x C, row-major; head: C x in weights, C <= 4,
/// in <= 8): P = H^T (H H^T)^-1, so that H P a = a; zero when H H^T is singular (a moved
/// primitive then starts without colour). It maps a colour wanted at the output to the
/// primitive's colour of least norm that gives it.
std::vector<double> head_pseudo_inverse(const float* head, int32_t C, int32_t in);

} // namespace redraw
