#include "engine/training/run_tree.h"

#include <algorithm>
#include <stdexcept>

namespace redraw {

std::string RunLine::label() const {
  const std::string range = "steps " + std::to_string(fork_step) + ".." + std::to_string(end_step);
  if (id == 0) return "main: " + range;
  return "branch at " + std::to_string(fork_step) + ": " + range;
}

void RunTree::reset() {
  m_stored.clear();
  m_active = RunLine{0, -1, 0, 0, true, true, 0};
  m_next_id = 1;
}

namespace {
/// What a stored line holds besides its frames: weights, optimizer state, curves.
size_t fixed_bytes(const Checkpoint& c) {
  return (c.params.size() + c.optimizer.first.size() + c.optimizer.second.size()) * sizeof(float) +
         c.history.size() * sizeof(MetricsRow);
}
size_t frame_bytes(const Checkpoint& c) {
  size_t b = 0;
  for (const Snapshot& s : c.snapshots)
    b += snapshot_bytes(s);
  return b;
}
} // namespace

size_t RunTree::bytes_of(const Checkpoint& c) { return fixed_bytes(c) + frame_bytes(c); }

size_t RunTree::stored_bytes() const {
  size_t b = 0;
  for (const Stored& s : m_stored)
    b += s.line.bytes;
  return b;
}

std::vector<std::string> RunTree::fit(Trainer& t) {
  std::vector<std::string> notices;
  const size_t half = m_cap / 2;
  for (;;) {
    if (m_stored.empty()) break;
    const size_t share = half / m_stored.size();
    size_t total = 0;
    for (Stored& s : m_stored) {
      const size_t fixed = fixed_bytes(s.state);
      (void)thin_snapshots(s.state.snapshots, share > fixed ? share - fixed : 0);
      s.line.bytes = bytes_of(s.state);
      total += s.line.bytes;
    }
    if (total <= half || m_stored.size() == 1) break;
    const RunLine gone = m_stored.front().line;
    m_stored.erase(m_stored.begin());
    notices.push_back("the run tree is over its memory (half the frame memory cap): dropped the line \"" +
                      gone.label() + "\"; raise the frame memory cap to keep more branches");
  }
  const size_t stored = stored_bytes();
  t.set_snapshot_cap_bytes(std::max(m_cap > stored ? m_cap - stored : 0, half));
  return notices;
}

std::vector<std::string> RunTree::set_cap_bytes(Trainer& t, size_t cap_bytes) {
  m_cap = cap_bytes;
  return fit(t);
}

void RunTree::store_active(Trainer& t) {
  Stored s;
  s.state = t.checkpoint();
  s.line = m_active;
  s.line.active = false;
  s.line.end_step = s.state.step;
  s.line.bytes = bytes_of(s.state);
  m_stored.push_back(std::move(s));
}

RunTree::BranchResult RunTree::branch(Trainer& t, size_t frame) {
  if (frame >= t.frames().store().size()) throw std::out_of_range("run tree: no frame " + std::to_string(frame));
  BranchResult r;
  store_active(t);
  try {
    r.exact = t.branch_from_snapshot(frame);
  } catch (...) {
    m_stored.pop_back();
    throw;
  }
  m_active = RunLine{m_next_id++, m_stored.back().line.id, t.current_step(), t.current_step(), true, r.exact, 0};
  r.notices = fit(t);
  return r;
}

bool RunTree::switch_to(Trainer& t, int32_t id, std::vector<std::string>& notices) {
  const auto it = std::find_if(m_stored.begin(), m_stored.end(), [id](const Stored& s) { return s.line.id == id; });
  if (it == m_stored.end()) return false;
  Stored target = std::move(*it);
  m_stored.erase(it);
  try {
    store_active(t);
  } catch (...) {
    m_stored.push_back(std::move(target));
    throw;
  }
  // The timelapse cap first, so restore() keeps as many of the line's frames as fit.
  const size_t stored = stored_bytes();
  t.set_snapshot_cap_bytes(std::max(m_cap > stored ? m_cap - stored : 0, m_cap / 2));
  t.restore(target.state);
  m_active = target.line;
  m_active.active = true;
  m_active.bytes = 0;
  notices = fit(t);
  return true;
}

std::vector<RunLine> RunTree::lines(const Trainer& t) const {
  std::vector<RunLine> out;
  out.reserve(m_stored.size() + 1);
  for (const Stored& s : m_stored)
    out.push_back(s.line);
  RunLine a = m_active;
  a.end_step = t.current_step();
  out.push_back(a);
  std::sort(out.begin(), out.end(), [](const RunLine& x, const RunLine& y) { return x.id < y.id; });
  return out;
}

} // namespace redraw
