#include "engine/frames/timelapse.h"

#include "engine/half_float.h"

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
  p.every = raw >= m ? raw / m * m : raw;
  return p;
}

size_t snapshot_bytes(const Snapshot& s) {
  // What the buffers hold allocated (capacity), so a buffer emptied but kept is counted.
  return sizeof(Snapshot) +
         (s.params.capacity() + s.optimizer.first.capacity() + s.optimizer.second.capacity()) * sizeof(float) +
         s.half_params.capacity() * sizeof(uint16_t) + s.picture.pixels.capacity();
}

size_t optimizer_bytes(const Snapshot& s) {
  return (s.optimizer.first.size() + s.optimizer.second.size()) * sizeof(float);
}

void drop_optimizer_state(Snapshot& s) {
  s.resumable = false;
  s.optimizer = OptimizerState{};
}

void make_keyframe(Snapshot& s) {
  drop_optimizer_state(s);
  if (s.params.empty()) return;
  // On every core: a photo-sized table is 7 M weights, and keyframes come at every power of two.
  const float* p = s.params.data();
  const auto n = int64_t(s.params.size());
  int64_t outside = 0;
#pragma omp parallel for schedule(static) reduction(+ : outside)
  for (int64_t i = 0; i < n; ++i) outside += in_half_range(p[i]) ? 0 : 1;
  if (outside > 0) return;
  s.half_params.resize(size_t(n));
  uint16_t* h = s.half_params.data();
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) h[i] = float_to_half_fast(p[i]);
  // A fresh vector, not `= {}`: that assigns an empty list and keeps the fp32 buffer allocated.
  s.params = std::vector<float>();
}

void fit_within(int32_t w, int32_t h, int32_t max_w, int32_t max_h, int32_t& fw, int32_t& fh) {
  fw = w, fh = h;
  const bool over_w = max_w > 0 && w > max_w, over_h = max_h > 0 && h > max_h;
  if (!over_w && !over_h) return;
  // The axis with the smaller scale sets it (max_w / w <= max_h / h, in integers); the other
  // side is rounded to the nearest pixel.
  if (over_w && (!over_h || int64_t(max_w) * h <= int64_t(max_h) * w)) {
    fw = max_w;
    fh = std::max<int32_t>(1, int32_t((int64_t(h) * max_w + w / 2) / w));
  } else {
    fh = max_h;
    fw = std::max<int32_t>(1, int32_t((int64_t(w) * max_h + h / 2) / h));
  }
}

void frame_picture_size(int32_t w, int32_t h, int32_t& pw, int32_t& ph) {
  fit_within(w, h, k_frame_picture_side, k_frame_picture_side, pw, ph);
}

FramePicture to_frame_picture(const Image& image) {
  FramePicture p{image.width, image.height, image.channels, std::vector<uint8_t>(image.pixels.size())};
  for (size_t i = 0; i < image.pixels.size(); ++i)
    p.pixels[i] = uint8_t(std::lround(std::clamp(image.pixels[i], 0.0f, 1.0f) * 255.0f));
  return p;
}

Image from_frame_picture(const FramePicture& picture) {
  Image im{picture.width, picture.height, picture.channels, std::vector<float>(picture.pixels.size())};
  for (size_t i = 0; i < picture.pixels.size(); ++i) im.pixels[i] = float(picture.pixels[i]) / 255.0f;
  return im;
}

namespace {
/// Of `holders` (ascending frame indices), the position of the one whose neighbouring holders
/// (or the ends of the timeline) are closest in log(1 + step): taking it keeps the rest evenly
/// spread. Ties go to the older. `ends` false: the first and last holders are never chosen.
size_t closest_holder(const std::vector<Snapshot>& frames, const std::vector<size_t>& holders, bool ends) {
  size_t best = 0;
  double best_gap = INFINITY;
  const size_t lo = ends ? 0 : 1, hi = ends ? holders.size() : holders.size() - 1;
  for (size_t k = lo; k < hi; ++k) {
    const int64_t before = k > 0 ? frames[holders[k - 1]].metrics.step : frames.front().metrics.step;
    const int64_t after = k + 1 < holders.size() ? frames[holders[k + 1]].metrics.step : frames.back().metrics.step;
    const double gap = std::log1p(double(after)) - std::log1p(double(before));
    if (gap < best_gap) {
      best_gap = gap;
      best = k;
    }
  }
  return best;
}

/// Applies `shrink` to holders (frames from `first` on for which `holds` is true, the newest
/// frame aside), one at a time evenly in log step, until `total` fits `cap_bytes`.
template <class Holds, class Shrink>
void thin_stage(std::vector<Snapshot>& frames, size_t& total, size_t cap_bytes, size_t first, Holds holds,
                Shrink shrink) {
  std::vector<size_t> holders;
  for (size_t i = first; i + 1 < frames.size(); ++i)
    if (holds(frames[i])) holders.push_back(i);
  while (total > cap_bytes && !holders.empty()) {
    const size_t k = closest_holder(frames, holders, true);
    Snapshot& s = frames[holders[k]];
    total -= snapshot_bytes(s);
    shrink(s);
    total += snapshot_bytes(s);
    holders.erase(holders.begin() + std::ptrdiff_t(k));
  }
}
} // namespace

std::vector<bool> file_keyframes(const std::vector<Snapshot>& frames, size_t keyframes) {
  std::vector<bool> keep(frames.size(), false);
  std::vector<size_t> holders;
  for (size_t i = 0; i < frames.size(); ++i) {
    if (!has_weights(frames[i])) continue;
    if (frames[i].picture.empty()) keep[i] = true; // nothing else to show: its weights stay
    else holders.push_back(i);
  }
  while (holders.size() > std::max<size_t>(keyframes, 2)) {
    const size_t k = closest_holder(frames, holders, false);
    holders.erase(holders.begin() + std::ptrdiff_t(k));
  }
  for (const size_t i : holders) keep[i] = true;
  return keep;
}

size_t thin_snapshots(std::vector<Snapshot>& frames, size_t cap_bytes) {
  size_t total = 0;
  for (const auto& f : frames)
    total += snapshot_bytes(f);
  // (1) exact state -> fp16 keyframes: exact branching from those frames is lost.
  thin_stage(frames, total, cap_bytes, 0,
             [](const Snapshot& s) { return optimizer_bytes(s) > 0 || !s.params.empty(); }, make_keyframe);
  // (2) keyframes with a picture -> pictures only; the first frame keeps its weights.
  thin_stage(frames, total, cap_bytes, 1, [](const Snapshot& s) { return has_weights(s) && !s.picture.empty(); },
             [](Snapshot& s) {
               s.params = std::vector<float>();
               s.half_params = std::vector<uint16_t>();
             });
  // (3) whole frames.
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
