#pragma once
/// The performance panel's data (ui/panels/perf_panel.cpp draws it), in the spirit of Tracy's timelines:
/// - The training thread's SessionProfile samples (one per publish, ~30 a second) and the GUI's
///   frame times are folded into bins of `bin_seconds`; the newest `capacity` bins are kept (a
///   short scrolling timeline, a minute by default).
/// - Per bin: the step time split into forward, backward, update and metrics (the backend's
///   BackendFeature::StepProfile split; a backend without it shows the whole step), per step and
///   averaged over the bin; preview rendering; steps/s; GUI frame time (mean and worst); the
///   process's resident memory and the device memory the backend reports.
/// - Plain data and pure functions, no ImGui: tests fold samples and check the sums.
#include "ui/session/session_snapshot.h"

#include <cstdint>
#include <deque>

namespace redraw {

/// One bin of the timelines. Times in milliseconds; a field with nothing measured is 0
/// (memory: -1 when unknown).
struct PerfBin {
  double end_s = 0; ///< clock (seconds, the GUI's ui.now) when the bin closed
  double span_s = 0; ///< training-thread time its samples cover (a step slower than a bin spans
                     ///< several: the step timeline draws it that wide, ending at end_s)
  int64_t steps = 0;
  float forward_ms = 0, backward_ms = 0, update_ms = 0, metrics_ms = 0; ///< per step
  float other_ms = 0;   ///< per step: the rest of Trainer::step() (snapshots, bookkeeping)
  float step_ms = 0;    ///< per step, the whole Trainer::step() (>= the phases above)
  bool split = false;   ///< the backend split the step into phases
  float preview_ms = 0; ///< per second of the bin: preview rendering on the training thread
  float steps_per_s = 0;                ///< over span_s; a bin with no training sample at all (a step in
                                        ///< progress) keeps the bin before's rate
  float frame_ms = 0, frame_max_ms = 0; ///< GUI frame CPU time, mean and worst
  int32_t frames = 0;
  float host_mb = -1, device_mb = -1;
};

struct PerfState {
  double bin_seconds = 0.25; ///< width of one bin
  size_t capacity = 240;     ///< bins kept (a minute at 0.25 s)
  std::deque<PerfBin> bins;  ///< oldest first
  // The bin being filled.
  double bin_start = -1;
  SessionProfile acc;
  double frame_sum_ms = 0, frame_max_ms = 0;
  int32_t frames = 0;
  int64_t device_used_bytes = -1, device_total_bytes = -1; ///< the newest the backend reported
};

/// Adds one training-thread sample to the bin being filled.
void perf_add_profile(PerfState& p, const SessionProfile& s);
/// Adds one GUI frame's CPU time (milliseconds).
void perf_add_frame(PerfState& p, double frame_ms);
/// True when perf_tick at `now` would close the bin (read the host memory only then).
inline bool perf_due(const PerfState& p, double now) { return p.bin_start < 0 || now - p.bin_start >= p.bin_seconds; }
/// Closes the bin being filled when `now` (seconds) is `bin_seconds` past its start, with the
/// host memory `host_bytes` (-1 unknown). Returns true when a bin was closed.
bool perf_tick(PerfState& p, double now, int64_t host_bytes);
/// The bin a set of samples makes (what perf_tick appends), exposed for tests.
PerfBin perf_make_bin(const SessionProfile& acc, double wall_s);
/// Resident memory of this process in bytes (/proc/self/statm), -1 when it cannot be read.
int64_t host_resident_bytes();

} // namespace redraw
