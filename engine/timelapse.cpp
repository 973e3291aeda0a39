#include "engine/timelapse.h"

#include <algorithm>
#include <cmath>

namespace redraw {

bool SnapshotPolicy::should_snapshot(int64_t step) const {
  if (!enabled || step < 0) return false;
  if (step == 0) return initial;
  if (every > 0 && step % every == 0) return true;
  if (per_octave <= 0) return false;
  const double k_est = double(per_octave) * std::log2(double(step));
  for (int64_t k = int64_t(std::floor(k_est)) - 1; k <= int64_t(std::ceil(k_est)) + 1; ++k) {
    if (k < 0) continue;
    if (std::llround(std::exp2(double(k) / double(per_octave))) == step) return true;
  }
  return false;
}

SnapshotPolicy SnapshotPolicy::for_run(int64_t total_steps, int64_t metrics_every, int64_t regular_frames) {
  SnapshotPolicy p;
  const int64_t m = std::max<int64_t>(1, metrics_every);
  const int64_t raw = std::max<int64_t>(1, total_steps / std::max<int64_t>(1, regular_frames));
  p.every = std::max<int64_t>(m, (raw + m - 1) / m * m);
  return p;
}

size_t snapshot_bytes(const Snapshot& s) {
  return sizeof(Snapshot) + (s.params.size() + s.optimizer.first.size() + s.optimizer.second.size()) * sizeof(float);
}

size_t optimizer_bytes(const Snapshot& s) {
  return (s.optimizer.first.size() + s.optimizer.second.size()) * sizeof(float);
}

void drop_optimizer_state(Snapshot& s) {
  s.resumable = false;
  s.optimizer = OptimizerState{};
}

size_t strip_optimizer_states(std::vector<Snapshot>& frames, size_t& total, size_t cap_bytes) {
  size_t stripped = 0;
  std::vector<size_t> holders; // frames whose optimizer state costs memory, the newest frame aside
  for (size_t i = 0; i + 1 < frames.size(); ++i)
    if (optimizer_bytes(frames[i]) > 0) holders.push_back(i);
  while (total > cap_bytes && !holders.empty()) {
    // Strip the holder whose neighbouring holders (or the ends of the timeline) are closest in
    // log(1 + step): the frames that keep their state stay evenly spread. Ties go to the older.
    size_t best = 0;
    double best_gap = INFINITY;
    for (size_t k = 0; k < holders.size(); ++k) {
      const int64_t before = k > 0 ? frames[holders[k - 1]].metrics.step : frames.front().metrics.step;
      const int64_t after = k + 1 < holders.size() ? frames[holders[k + 1]].metrics.step : frames.back().metrics.step;
      const double gap = std::log1p(double(after)) - std::log1p(double(before));
      if (gap < best_gap) {
        best_gap = gap;
        best = k;
      }
    }
    Snapshot& s = frames[holders[best]];
    total -= optimizer_bytes(s);
    drop_optimizer_state(s);
    holders.erase(holders.begin() + std::ptrdiff_t(best));
    ++stripped;
  }
  return stripped;
}

size_t thin_snapshots(std::vector<Snapshot>& frames, size_t cap_bytes) {
  size_t total = 0;
  for (const auto& f : frames)
    total += snapshot_bytes(f);
  // First the optimizer states (exact branching from those frames is lost), then whole frames.
  strip_optimizer_states(frames, total, cap_bytes);
  size_t dropped = 0;
  while (total > cap_bytes && frames.size() > 2) {
    // Drop the interior frame whose removal leaves the smallest gap in log(1 + step): the
    // remaining frames stay as evenly spread over the log-step axis as they can. Ties go to the
    // older frame.
    size_t best = 1;
    double best_gap = INFINITY;
    for (size_t i = 1; i + 1 < frames.size(); ++i) {
      const double gap =
          std::log1p(double(frames[i + 1].metrics.step)) - std::log1p(double(frames[i - 1].metrics.step));
      if (gap < best_gap) {
        best_gap = gap;
        best = i;
      }
    }
    total -= snapshot_bytes(frames[best]);
    frames.erase(frames.begin() + std::ptrdiff_t(best));
    ++dropped;
  }
  return dropped;
}

void SnapshotStore::thin() {
  m_thinned += thin_snapshots(m_frames, m_cap);
  m_bytes = 0;
  for (const auto& f : m_frames)
    m_bytes += snapshot_bytes(f);
}

void SnapshotStore::add(Snapshot frame) {
  truncate_after(frame.metrics.step - 1);
  m_bytes += snapshot_bytes(frame);
  m_frames.push_back(std::move(frame));
  if (m_bytes > m_cap) thin();
}

void SnapshotStore::assign(std::vector<Snapshot> frames) {
  std::stable_sort(frames.begin(), frames.end(),
                   [](const Snapshot& a, const Snapshot& b) { return a.metrics.step < b.metrics.step; });
  m_frames = std::move(frames);
  thin();
}

void SnapshotStore::clear() {
  m_frames.clear();
  m_bytes = 0;
}

void SnapshotStore::truncate_after(int64_t step) {
  while (!m_frames.empty() && m_frames.back().metrics.step > step) {
    m_bytes -= snapshot_bytes(m_frames.back());
    m_frames.pop_back();
  }
}

void SnapshotStore::set_cap_bytes(size_t cap_bytes) {
  m_cap = cap_bytes;
  if (m_bytes > m_cap) thin();
}

size_t SnapshotStore::index_at_step(int64_t step) const {
  const auto it = std::upper_bound(m_frames.begin(), m_frames.end(), step,
                                   [](int64_t s, const Snapshot& f) { return s < f.metrics.step; });
  return it == m_frames.begin() ? 0 : size_t(it - m_frames.begin()) - 1;
}

} // namespace redraw
