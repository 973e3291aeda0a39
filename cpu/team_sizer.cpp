#include "cpu/team_sizer.h"

#include <algorithm>

namespace redraw {

TeamSizer::TeamSizer(int max_threads, int fixed, int reserve) : m_fixed(fixed) {
  max_threads = std::max(1, max_threads);
  m_candidates.push_back(max_threads);
  if (reserve > 0 && max_threads - reserve >= 2) m_candidates.push_back(max_threads - reserve);
  if (max_threads >= 4 && max_threads / 2 < m_candidates.back()) m_candidates.push_back(max_threads / 2);
  if (max_threads >= 2) m_candidates.push_back(1);
  m_time.assign(m_candidates.size(), 0.0);
  m_team = max_threads;
  if (m_fixed <= 0 && m_candidates.size() > 1) start_probe();
}

void TeamSizer::start_probe() {
  m_team_before_probe = m_team;
  m_probe = 0;
  m_probe_steps = 0;
  m_probe_times.clear();
  m_team = m_candidates[0];
}

void TeamSizer::record(double seconds) {
  if (m_fixed > 0 || m_candidates.size() < 2) return;
  if (m_probe < 0) {
    if (--m_exploit_left <= 0) start_probe();
    return;
  }
  // The first step at a new size pays for waking threads and refilling caches: not counted. The
  // median of the others: a neighbour's burst during one step does not decide.
  if (m_probe_steps > 0) m_probe_times.push_back(seconds);
  if (++m_probe_steps < k_probe_steps) return;
  std::sort(m_probe_times.begin(), m_probe_times.end());
  const size_t n = m_probe_times.size();
  m_time[size_t(m_probe)] = n % 2 ? m_probe_times[n / 2] : 0.5 * (m_probe_times[n / 2 - 1] + m_probe_times[n / 2]);
  if (size_t(++m_probe) < m_candidates.size()) {
    m_probe_steps = 0;
    m_probe_times.clear();
    m_team = m_candidates[size_t(m_probe)];
    return;
  }
  // Every candidate measured: the fastest, or a smaller one within k_prefer_smaller of it.
  size_t best = 0;
  for (size_t i = 1; i < m_time.size(); ++i)
    if (m_time[i] < m_time[best]) best = i;
  for (size_t i = m_time.size(); i-- > best + 1;)
    if (m_time[i] <= m_time[best] * (1.0 + k_prefer_smaller)) {
      best = i;
      break;
    }
  // The same answer again: measure less often (up to k_max_backoff times less); a new one: soon.
  m_backoff = m_candidates[best] == m_team_before_probe ? std::min(m_backoff * 2, k_max_backoff) : 1;
  m_team = m_candidates[best];
  m_probe = -1;
  const bool unconfirmed_smaller = m_backoff == 1 && best > 0;
  m_exploit_left = int64_t(unconfirmed_smaller ? k_recheck_factor : k_exploit_factor * m_backoff) * k_probe_steps *
                   int64_t(m_candidates.size());
}

} // namespace redraw
