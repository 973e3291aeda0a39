#pragma once
/// "Compare runs": a second run B made from run A's config with one change,
/// trained beside A on the same image and shown next to it.
/// - config_with_change builds B's config: A's data spec (so both train on the same pixels) and
///   seed, with one thing changed (the whole preset, the hidden activation, omega_0 or lr_max).
/// - SliceTurns lets the runs take turns on one device: a run holds the device for one training
///   slice, and a run that waits is served before the one that just finished asks again (a ticket
///   lock, so turns alternate while both train). Any thread.
/// - split_view is the geometry of the canvas's split mode (A left of a draggable divider, B right).
/// - compose_side_by_side puts two pictures next to each other with a label on each (the export).
#include "engine/images/image.h"
#include "engine/run_config.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

namespace redraw {

enum class CompareChangeKind : int32_t { Preset = 0, Activation, Omega0, LrMax };

/// The one change that makes run B. Only the field of `kind` is read.
struct CompareChange {
  CompareChangeKind kind = CompareChangeKind::Preset;
  std::string preset_name;            ///< Preset: the label ("fourier")
  std::optional<RunConfig> preset;    ///< Preset: that preset's config (load_preset)
  Activation activation = Activation::Relu;
  float omega_0 = 30.0f;
  double lr_max = 1e-3;
};

/// B's config: `a` with `change` applied. A preset keeps `a`'s data spec and seed (the same
/// training image, the same random start where the shapes allow). lr_max lowers lr_min to stay
/// at or below it. ConfigError for a Preset change without a config, or a value out of range
/// (omega_0 <= 0, lr_max <= 0).
RunConfig config_with_change(const RunConfig& a, const CompareChange& change);
/// A short name for the change, for captions and the legend: "fourier", "tanh", "omega_0 60",
/// "lr_max 0.01".
std::string describe_change(const CompareChange& change);

/// How compared runs keep pace with each other.
/// - SameSecond: they take equal turns on the device, so each has trained about as many seconds as
///   the others (a cheap network then shows more steps: what a second buys).
/// - SameStep: a run that is ahead waits while the others train, so all show the same step (within
///   one): what a step buys, whatever it costs.
enum class ComparePace : int32_t { SameSecond = 0, SameStep };
const char* compare_pace_name(ComparePace p);

/// Round-robin turns on one device for the runs training on it (see the file comment), and the
/// pace between them. Runs report where they stand under a slot (0: run A, 1: run B, ...). Any thread.
class SliceTurns {
public:
  /// The most runs that report under a slot (the app shows at most this many side by side).
  static constexpr int32_t k_slots = 8;
  /// Blocks until it is this caller's turn; every call must be followed by end_slice().
  void begin_slice();
  void end_slice();
  /// Callers blocked in begin_slice() now (tests).
  int32_t waiting() const;

  void set_pace(ComparePace p);
  ComparePace pace() const;
  /// Run `slot` is at `step` and trains (or not: paused, finished, closed). Wakes a run waiting for it.
  void report(int32_t slot, int64_t step, bool training);
  /// The step run `slot` may train up to, exclusive of nothing: it may take steps while its step is
  /// below this. SameStep with other runs training: one past the step of the slowest of them, so
  /// they leapfrog and never stand more than one step apart (the slowest may always step).
  /// Otherwise no bound (INT64_MAX).
  int64_t step_bound(int32_t slot) const;
  /// Waits up to `wait` for run `slot`, at `step`, to be allowed a step (the others moved on,
  /// stopped training, or the pace changed); true when it may train now.
  bool wait_to_step(int32_t slot, int64_t step, std::chrono::milliseconds wait);

private:
  int64_t bound_locked(int32_t slot) const;
  mutable std::mutex m_mutex;
  std::condition_variable m_cv;
  uint64_t m_next_ticket = 0, m_serving = 0;
  ComparePace m_pace = ComparePace::SameSecond;
  int64_t m_step[k_slots] = {};
  bool m_training[k_slots] = {};
};

/// Holds the device for one training slice while it lives (`turns` null: the device is not shared).
class SliceTurn {
public:
  explicit SliceTurn(SliceTurns* turns) : m_turns(turns) {
    if (m_turns) m_turns->begin_slice();
  }
  ~SliceTurn() {
    if (m_turns) m_turns->end_slice();
  }
  SliceTurn(const SliceTurn&) = delete;
  SliceTurn& operator=(const SliceTurn&) = delete;

private:
  SliceTurns* m_turns;
};

/// The split view of a pane [x0, x0 + width): A is drawn left of `divider_x`, B right of it.
struct SplitGeometry {
  float divider_x = 0;
  float a_min = 0, a_max = 0; ///< A's visible x range
  float b_min = 0, b_max = 0; ///< B's visible x range
};
/// `fraction` (0..1 of the width, clamped to [0.02, 0.98] so the divider stays grabbable).
SplitGeometry split_view(float x0, float width, float fraction);
/// The fraction a divider dragged to screen x `mouse_x` stands at (clamped like split_view).
float split_fraction_at(float x0, float width, float mouse_x);

/// [a | gap | b]: (a.w + gap + b.w) x max(a.h, b.h), 3 channels when either has 3 (grey is
/// repeated), the rest (gap, below the shorter picture) `background` grey. A non-empty label is
/// drawn in the top-left corner of its picture. Labels use the tiny bitmap font (overlay_text.h).
Image compose_side_by_side(const Image& a, const Image& b, const std::string& label_a, const std::string& label_b,
                           int32_t gap = 8, float background = 0.1f);

} // namespace redraw
