#pragma once
/// Subnormal floats kept out of the CPU backend's arithmetic: every entry point computes with
/// flush-to-zero and denormals-are-zero set (FTZ, DAZ on x86-64; FZ on AArch64), in the calling
/// thread and in every thread of the OpenMP team its regions use.
/// - Why: Intel cores handle a subnormal operand or result in microcode, tens of times slower than
///   a normal one. A Gauss or Gabor window held just above the smallest normal float (2.7e-38)
///   times any weight under 0.43 is subnormal, and a step then spent nearly all its time in
///   OpenBLAS's sgemm. AMD cores hide the cost, so the mode is set on every machine: the same
///   bits everywhere (a value that would be subnormal is 0 on every CPU).
/// - OpenBLAS runs single-threaded inside the team's threads (CpuBackend), so its own pool
///   computes nothing; the team's threads are the ones that multiply.
/// - The calling thread's mode is put back when the scope ends (it may be a Python program's
///   thread, whose numpy must keep IEEE subnormals); the team's worker threads keep it, as they
///   run only the backend's regions.
namespace redraw {

class FlushedTeam {
public:
  /// Sets the mode in the calling thread and in each of `team` threads of an OpenMP region.
  explicit FlushedTeam(int team);
  ~FlushedTeam();
  FlushedTeam(const FlushedTeam&) = delete;
  FlushedTeam& operator=(const FlushedTeam&) = delete;

private:
  unsigned long m_saved = 0; ///< the calling thread's control register before
};

/// An entry point's first line: the calling thread's OpenMP regions get `team` threads, and each
/// of them, the caller too, computes with subnormals flushed until the call returns.
[[nodiscard]] FlushedTeam use_team(int team);

/// Whether the calling thread flushes subnormals now (a test's probe; false where the CPU has no
/// such mode).
bool subnormals_flushed_here();

/// A test's probe of an OpenMP region of `team` threads: how many threads ran it, and how many of
/// them computed a subnormal product (1e-20 squared) instead of 0.
struct TeamFlushProbe {
  int threads = 0, not_flushed = 0;
};
TeamFlushProbe probe_team_flush(int team);

} // namespace redraw
