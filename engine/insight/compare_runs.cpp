#include "engine/insight/compare_runs.h"

#include "engine/errors.h"
#include "engine/export/overlay_text.h"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace redraw {

RunConfig config_with_change(const RunConfig& a, const CompareChange& change) {
  RunConfig b = a;
  switch (change.kind) {
  case CompareChangeKind::Preset:
    if (!change.preset) throw ConfigError("compare: no preset config for '" + change.preset_name + "'");
    b = *change.preset;
    b.data = a.data;
    b.training.seed = a.training.seed;
    break;
  case CompareChangeKind::Activation:
    std::fill(b.model.hidden_activations.begin(), b.model.hidden_activations.end(), change.activation);
    break;
  case CompareChangeKind::Omega0:
    if (!(change.omega_0 > 0)) throw ConfigError("compare: omega_0 must be > 0");
    b.model.omega_0 = change.omega_0;
    break;
  case CompareChangeKind::LrMax:
    if (!(change.lr_max > 0)) throw ConfigError("compare: lr_max must be > 0");
    b.schedule.lr_max = change.lr_max;
    b.schedule.lr_min = std::min(b.schedule.lr_min, change.lr_max);
    break;
  }
  return b;
}

std::string describe_change(const CompareChange& change) {
  char buf[64];
  switch (change.kind) {
  case CompareChangeKind::Preset:
    return change.preset_name;
  case CompareChangeKind::Activation:
    return activation_name(change.activation);
  case CompareChangeKind::Omega0:
    std::snprintf(buf, sizeof buf, "omega_0 %g", double(change.omega_0));
    return buf;
  case CompareChangeKind::LrMax:
    std::snprintf(buf, sizeof buf, "lr_max %g", change.lr_max);
    return buf;
  }
  return {};
}

void SliceTurns::begin_slice() {
  std::unique_lock lock(m_mutex);
  const uint64_t ticket = m_next_ticket++;
  m_cv.wait(lock, [&] { return m_serving == ticket; });
}

void SliceTurns::end_slice() {
  {
    std::lock_guard lock(m_mutex);
    ++m_serving;
  }
  m_cv.notify_all();
}

const char* compare_pace_name(ComparePace p) { return p == ComparePace::SameStep ? "same step" : "same second"; }

void SliceTurns::set_pace(ComparePace p) {
  {
    std::lock_guard lock(m_mutex);
    m_pace = p;
  }
  m_cv.notify_all();
}

ComparePace SliceTurns::pace() const {
  std::lock_guard lock(m_mutex);
  return m_pace;
}

void SliceTurns::report(int32_t slot, int64_t step, bool training) {
  if (slot < 0 || slot >= k_slots) return;
  {
    std::lock_guard lock(m_mutex);
    m_step[slot] = step;
    m_training[slot] = training;
  }
  m_cv.notify_all();
}

int64_t SliceTurns::bound_locked(int32_t slot) const {
  int64_t bound = std::numeric_limits<int64_t>::max();
  if (m_pace != ComparePace::SameStep || slot < 0 || slot >= k_slots) return bound;
  for (int32_t other = 0; other < k_slots; ++other)
    if (other != slot && m_training[other]) bound = std::min(bound, m_step[other] + 1);
  return bound;
}

int64_t SliceTurns::step_bound(int32_t slot) const {
  std::lock_guard lock(m_mutex);
  return bound_locked(slot);
}

bool SliceTurns::wait_to_step(int32_t slot, int64_t step, std::chrono::milliseconds wait) {
  std::unique_lock lock(m_mutex);
  return m_cv.wait_for(lock, wait, [&] { return step < bound_locked(slot); });
}

int32_t SliceTurns::waiting() const {
  std::lock_guard lock(m_mutex);
  // Tickets handed out but not yet served, less the one being served (if any holds it).
  const uint64_t out = m_next_ticket - m_serving;
  return out > 0 ? int32_t(out - 1) : 0;
}

SplitGeometry split_view(float x0, float width, float fraction) {
  const float f = std::clamp(fraction, 0.02f, 0.98f);
  SplitGeometry g;
  g.divider_x = x0 + f * width;
  g.a_min = x0;
  g.a_max = g.divider_x;
  g.b_min = g.divider_x;
  g.b_max = x0 + width;
  return g;
}

float split_fraction_at(float x0, float width, float mouse_x) {
  if (!(width > 0)) return 0.5f;
  return std::clamp((mouse_x - x0) / width, 0.02f, 0.98f);
}

namespace {
/// Copies `src` into `dst` with its top-left at (x0, 0), repeating grey into every channel.
void blit(Image& dst, const Image& src, int32_t x0) {
  for (int32_t y = 0; y < src.height; ++y)
    for (int32_t x = 0; x < src.width; ++x)
      for (int32_t c = 0; c < dst.channels; ++c)
        dst.at(x0 + x, y, c) = src.at(x, y, std::min(c, src.channels - 1));
}

/// The label's scale: about 1/24 of the picture's height, at least 1.
int32_t label_scale(const Image& img) { return std::max(1, img.height / (24 * k_glyph_height)); }
} // namespace

Image compose_side_by_side(const Image& a, const Image& b, const std::string& label_a, const std::string& label_b,
                           int32_t gap, float background) {
  if (a.channels < 1 || b.channels < 1) throw ConfigError("compose: an empty picture");
  gap = std::max(0, gap);
  Image out;
  out.width = a.width + gap + b.width;
  out.height = std::max(a.height, b.height);
  out.channels = std::max(a.channels, b.channels) >= 3 ? 3 : 1;
  out.pixels.assign(size_t(out.width) * size_t(out.height) * size_t(out.channels), background);
  blit(out, a, 0);
  blit(out, b, a.width + gap);
  // The labels go on copies of each half's region only, so one never spills into the other.
  auto label = [&](const Image& src, int32_t x0, const std::string& text) {
    if (text.empty()) return;
    Image half = src;
    if (half.channels != out.channels) {
      half.channels = out.channels;
      half.pixels.assign(size_t(src.width) * size_t(src.height) * size_t(out.channels), 0.0f);
      blit(half, src, 0);
    }
    const int32_t s = label_scale(src);
    draw_text(half, 2 * s, 2 * s, text, s);
    blit(out, half, x0);
  };
  label(a, 0, label_a);
  label(b, a.width + gap, label_b);
  return out;
}

} // namespace redraw
