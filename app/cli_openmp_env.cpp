// How the OpenMP runtime's idle threads wait, chosen before the runtime starts.
// libgomp reads OMP_WAIT_POLICY and GOMP_SPINCOUNT once, in its own constructor, so setting them
// from main() would be too late. A function in the executable's .preinit_array runs before any
// shared library's constructor (the ELF rule glibc follows), so it can set them first.
//
// Why: libgomp's default lets a thread that waits at a barrier spin for about 300,000 iterations
// (milliseconds) before it sleeps. Next to a busy process that spin takes the core the other
// thread of the team needs, and two threads fell far below one (issue 15). A short spin (a few
// microseconds, which still catches the quick hand-overs between a step's parallel regions) then a
// sleep keeps two threads ahead of one; engine/cpu_threads.h measures the rest.
//
// The user's own OMP_WAIT_POLICY or GOMP_SPINCOUNT is left alone. OpenBLAS runs single-threaded
// inside Redraw's OpenMP regions, so its own pool is not started (OPENBLAS_NUM_THREADS=1 unless set).
#include <cstdlib>

namespace {

void redraw_openmp_environment(int, char**, char**) {
  if (!std::getenv("OMP_WAIT_POLICY") && !std::getenv("GOMP_SPINCOUNT")) setenv("GOMP_SPINCOUNT", "10000", 0);
  setenv("OPENBLAS_NUM_THREADS", "1", 0);
}

} // namespace

// Not static-initialisation order: the dynamic loader calls this before every library's constructor.
__attribute__((section(".preinit_array"),
               used)) static void (*redraw_preinit_openmp)(int, char**, char**) = &redraw_openmp_environment;
