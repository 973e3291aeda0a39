#pragma once
/// The process's thread budget for CPU compute: a setting the front ends turn (`--threads N`, the
/// GUI's Threads control and its reserved core) and the CPU backend reads when it sizes its team
/// (cpu/team_sizer.h). Backend-neutral: app/ and ui/ set it without including cpu/.
/// - set_cpu_threads(n) with n > 0 fixes every CPU backend's team at n threads; 0 (the default)
///   lets each backend measure.
/// - set_cpu_reserved_threads(1) (the GUI: its UI thread and the GL driver's work) adds "all cores
///   but that many" to the measured candidates on 3 or more cores, so the team can leave the
///   window a core when that is faster; it never forces a smaller team.
namespace redraw {

/// Logical cores this process may use (the OpenMP runtime's count, which follows the affinity mask).
int cpu_core_count();
/// n > 0: every CPU backend uses exactly n threads (clamped to 1..1024); 0: measured (the default).
void set_cpu_threads(int n);
/// The setting: 0 for measured, else the fixed count.
int cpu_threads_setting();
/// Threads the process keeps busy besides training (0..64; the GUI sets 1). Backends made after the
/// call measure the extra candidate (TeamSizer's `reserve`).
void set_cpu_reserved_threads(int n);
int cpu_reserved_threads();

} // namespace redraw
