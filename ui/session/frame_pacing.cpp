#include "ui/session/frame_pacing.h"

#include <algorithm>

namespace redraw {

FramePacing frame_pacing_for(std::string_view gl_renderer) {
  FramePacing p;
  p.software_renderer =
      gl_renderer.find("llvmpipe") != std::string_view::npos || gl_renderer.find("softpipe") != std::string_view::npos;
  if (p.software_renderer) {
    p.watch_seconds = 1.0 / 10.0;
    p.poll_seconds = p.watch_seconds;
    p.draw_share = 0.05;
  }
  return p;
}

double watch_gap(const FramePacing& p, double frame_seconds) {
  if (p.draw_share <= 0 || frame_seconds <= 0) return p.watch_seconds;
  return std::min(p.heartbeat_seconds, std::max(p.watch_seconds, frame_seconds / p.draw_share));
}

double preview_cost_gap(double render_seconds, double share) {
  if (!(render_seconds > 0) || !(share > 0) || share >= 1) return 0;
  return render_seconds * (1 - share) / share;
}

FrameDecision decide_frame(const FramePacing& p, const FrameEvents& e) {
  constexpr double k_slack = 1e-3; // a wake-up this early still counts as on time
  const double since = e.now - e.last_frame;
  const bool interacting = e.item_active || e.now - e.last_input < p.input_hold_seconds;
  const bool eager = e.forced || interacting; // frames at the full rate
  const double poll = e.training ? p.poll_seconds : p.idle_poll_seconds;
  // `gap`: the least time between two frames for the reason there is to draw (none: the heartbeat).
  const bool news = e.changed || e.animating || (e.minor_change && !e.training);
  const double gap = eager ? p.interact_seconds
                     : news ? (e.training ? watch_gap(p, e.frame_seconds) : p.interact_seconds)
                            : p.heartbeat_seconds;
  FrameDecision d;
  d.draw = since >= gap - k_slack;
  if (d.draw) // the next wake-up: the next frame of an ongoing reason, else a look for news
    d.wait_seconds = eager || e.animating ? gap : std::min(poll, p.heartbeat_seconds);
  else if (eager || news)
    d.wait_seconds = gap - since;
  else
    d.wait_seconds = std::min(poll, gap - since);
  d.wait_seconds = std::max(d.wait_seconds, k_slack);
  return d;
}

void PreviewPacing::set_every(int32_t steps) { m_every = std::max(1, steps); }

void PreviewPacing::set_min_interval(double seconds) { m_min_interval = std::clamp(seconds, 0.0, 10.0); }

void PreviewPacing::set_share(double share) {
  m_share = share;
  m_cost_gap = 0;
}

bool PreviewPacing::due(int64_t step, double since_last) const {
  return step % m_every == 0 && since_last >= std::max(m_min_interval, m_cost_gap);
}

void PreviewPacing::set_limit(PreviewSize limit) {
  m_max_w = limit.w;
  m_max_h = limit.h;
}

void PreviewPacing::limit_posted(PreviewSize limit) {
  if (!(limit == m_made)) m_host_wanted = true;
}

PreviewSize PreviewPacing::begin() {
  m_made = limit();
  return m_made;
}

void PreviewPacing::rendered(double render_seconds) {
  m_cost_gap = preview_cost_gap(render_seconds, m_share);
  m_host_wanted = false;
}

} // namespace redraw
