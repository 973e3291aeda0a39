#include "ui/state/perf_monitor.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace redraw {

void perf_add_profile(PerfState& p, const SessionProfile& s) {
  SessionProfile& a = p.acc;
  a.wall_s += s.wall_s;
  a.steps += s.steps;
  a.step_s += s.step_s;
  a.preview_s += s.preview_s;
  StepProfile& b = a.backend;
  b.steps += s.backend.steps;
  b.metrics_calls += s.backend.metrics_calls;
  b.forward_s += s.backend.forward_s;
  b.backward_s += s.backend.backward_s;
  b.update_s += s.backend.update_s;
  b.metrics_s += s.backend.metrics_s;
  b.step_s += s.backend.step_s;
  if (s.backend.device_used_bytes >= 0) p.device_used_bytes = s.backend.device_used_bytes;
  if (s.backend.device_total_bytes >= 0) p.device_total_bytes = s.backend.device_total_bytes;
}

void perf_add_frame(PerfState& p, double frame_ms) {
  p.frame_sum_ms += frame_ms;
  p.frame_max_ms = std::max(p.frame_max_ms, frame_ms);
  ++p.frames;
}

PerfBin perf_make_bin(const SessionProfile& acc, double wall_s) {
  PerfBin bin;
  bin.steps = acc.steps;
  const StepProfile& b = acc.backend;
  if (acc.steps > 0) {
    const double per = 1e3 / double(acc.steps);
    bin.step_ms = float(acc.step_s * per);
    bin.split = b.steps > 0 && b.forward_s + b.backward_s + b.update_s > 0;
    if (bin.split) {
      bin.forward_ms = float(b.forward_s * per);
      bin.backward_ms = float(b.backward_s * per);
      bin.update_ms = float(b.update_s * per);
    }
    // The PSNR measurement runs inside Trainer::step() on a metrics step: amortised per step.
    bin.metrics_ms = float(b.metrics_s * per);
    const float phases = bin.forward_ms + bin.backward_ms + bin.update_ms + bin.metrics_ms;
    bin.other_ms = std::max(0.0f, bin.step_ms - phases);
  }
  if (wall_s > 0) {
    bin.steps_per_s = float(double(acc.steps) / wall_s);
    bin.preview_ms = float(acc.preview_s * 1e3 / wall_s);
  }
  return bin;
}

bool perf_tick(PerfState& p, double now, int64_t host_bytes) {
  if (p.bin_start < 0) p.bin_start = now;
  if (now - p.bin_start < p.bin_seconds) return false;
  // The bin's own span: the training thread's samples can straddle bins, so steps/s uses the
  // wall time they say they cover when there is one.
  const double span = p.acc.wall_s > 0 ? p.acc.wall_s : now - p.bin_start;
  PerfBin bin = perf_make_bin(p.acc, span);
  bin.end_s = now;
  bin.span_s = span;
  if (p.acc.wall_s <= 0 && !p.bins.empty()) bin.steps_per_s = p.bins.back().steps_per_s; // no news: a long step
  bin.frames = p.frames;
  bin.frame_ms = p.frames > 0 ? float(p.frame_sum_ms / p.frames) : 0.0f;
  bin.frame_max_ms = float(p.frame_max_ms);
  bin.host_mb = host_bytes >= 0 ? float(double(host_bytes) / (1 << 20)) : -1.0f;
  bin.device_mb = p.device_used_bytes >= 0 ? float(double(p.device_used_bytes) / (1 << 20)) : -1.0f;
  p.bins.push_back(bin);
  while (p.bins.size() > p.capacity)
    p.bins.pop_front();
  p.acc = SessionProfile{};
  p.frame_sum_ms = p.frame_max_ms = 0;
  p.frames = 0;
  p.bin_start = now;
  return true;
}

int64_t host_resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return -1;
  long long size = 0, resident = 0;
  const int got = std::fscanf(f, "%lld %lld", &size, &resident);
  std::fclose(f);
  if (got != 2) return -1;
  const long page = sysconf(_SC_PAGESIZE);
  return page > 0 ? int64_t(resident) * page : -1;
}

} // namespace redraw
