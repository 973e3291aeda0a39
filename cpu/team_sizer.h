#pragma once
/// The CPU backend's thread team: measured team sizing (TeamSizer).
/// - Every so often a backend times a few steps at each candidate team size (all cores, half of
///   them, one) and trains with the fastest, taking a smaller team when it is within
///   k_prefer_smaller of the best. So a busy neighbour (another process, or the GUI's own threads)
///   never leaves two threads slower than one: when it would, the measurement says so and the team
///   shrinks. Results do not depend on the team size (every reduction has a fixed blocking), so
///   switching never changes the weights.
/// - What the team may use is the process's thread budget (engine/thread_budget.h: the fixed count
///   of `--threads N` or the GUI's Threads control, the cores, the threads reserved for the GUI),
///   which the front ends set without knowing this backend.
/// - The OpenMP runtime's idle threads wait passively after a short spin: app/cli_openmp_env.cpp sets
///   GOMP_SPINCOUNT before the runtime starts (a user's OMP_WAIT_POLICY or GOMP_SPINCOUNT wins).
#include <cstdint>
#include <vector>

namespace redraw {

/// Picks a team size from measured step times. Pure logic: the backend reports how long each step
/// took at the size team() gave it.
class TeamSizer {
public:
  static constexpr int k_probe_steps = 5;          ///< per candidate; the first is not counted, the median of the rest is
  static constexpr int k_exploit_factor = 12;      ///< train this many probes' worth before probing again
  static constexpr double k_prefer_smaller = 0.05; ///< a smaller team within 5% of the best wins
  static constexpr int k_max_backoff = 8;          ///< a confirmed choice is measured up to 8x less often
  /// A new choice of fewer than all cores is checked again after this many probes' worth (not
  /// k_exploit_factor): one burst of a neighbour during a probe (the window's first frames, a
  /// software-GL frame) must not hold the run on one core for long. Confirmed, it backs off as usual.
  static constexpr int k_recheck_factor = 3;

  /// max_threads >= 1; fixed > 0 disables measuring (team() is always `fixed`). Candidates: all
  /// threads, all but `reserve` (when that leaves at least 2), half (4 or more), one.
  explicit TeamSizer(int max_threads, int fixed = 0, int reserve = 0);
  /// The team size for the next step.
  int team() const { return m_fixed > 0 ? m_fixed : m_team; }
  /// The last step, run at team(), took `seconds`.
  void record(double seconds);
  /// Candidate sizes, largest first.
  const std::vector<int>& candidates() const { return m_candidates; }
  bool probing() const { return m_probe >= 0; }

private:
  void start_probe();
  int m_fixed = 0;
  std::vector<int> m_candidates;
  std::vector<double> m_time; ///< mean counted step time per candidate in the current probe
  int m_team = 1;
  int m_probe = -1; ///< candidate being probed, -1 while exploiting
  int m_probe_steps = 0;
  std::vector<double> m_probe_times; ///< the counted steps of the candidate being probed
  int64_t m_exploit_left = 0;
  int m_team_before_probe = 0;
  int m_backoff = 1;
};

} // namespace redraw
