// How the OpenMP runtime's idle threads wait, chosen before the runtime starts.
//
// Why: libgomp's default lets a thread that waits at a barrier spin for about 300,000 iterations
// (up to milliseconds) before it sleeps. Next to a busy process that spin takes the core the other
// thread of the team needs, and two threads fell far below one. A short spin (which
// still catches the quick hand-overs between a step's parallel regions) then a sleep costs the
// neighbour little; the CPU backend's measured team (cpu/team_sizer.h) does the rest.
//
// libgomp reads OMP_WAIT_POLICY and GOMP_SPINCOUNT once, in its own constructor, before main(),
// and offers no call to change them later; an ELF .preinit_array entry runs early enough but libc
// then resets the environment it changed. So main() sets them and re-executes the program once
// (the same process id, arguments and open files; a few milliseconds). The user's own
// OMP_WAIT_POLICY or GOMP_SPINCOUNT is left alone, and so is a set OPENBLAS_NUM_THREADS (OpenBLAS
// runs single-threaded inside Redraw's OpenMP regions, so its own pool is not started).
// The same re-execution, when OpenBLAS fell back to kernels without AVX on a processor it does not
// know, loads it again with the family the CPU's features choose (cpu/openblas_kernels.h).
#include "app/cli_openmp_env.h"

#include "cpu/openblas_kernels.h"

#include <cstdlib>
#include <unistd.h>

namespace redraw::cli {

namespace {
/// Sets the OpenMP runtime's waiting, unless chosen (by the user, or before a re-execution).
bool prepare_openmp_environment() {
  if (std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT")) return false;
  if (setenv("GOMP_SPINCOUNT", "10000", 1) != 0) return false;
  setenv("OPENBLAS_NUM_THREADS", "1", 0);
  return true;
}
} // namespace

void ensure_openmp_environment(char** argv) {
  const bool openmp = prepare_openmp_environment();
  const bool blas = prepare_openblas_environment();
  if (openmp || blas) execv("/proc/self/exe", argv);
  // Not re-executed (no /proc, say): carry on with the runtime's defaults; nothing else depends on it.
}

} // namespace redraw::cli
