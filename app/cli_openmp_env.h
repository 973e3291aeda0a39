#pragma once
/// How the OpenMP runtime's idle threads wait (app/cli_openmp_env.cpp).

namespace redraw::cli {

/// Called first thing in main(): unless the user set OMP_WAIT_POLICY or GOMP_SPINCOUNT, sets a
/// short spin (and OPENBLAS_NUM_THREADS=1 unless set) and re-executes the program once so the
/// OpenMP runtime, which reads them only when it loads, starts with them. Returns when nothing was
/// to be done or the re-execution failed (the program then runs with the runtime's defaults).
void ensure_openmp_environment(char** argv);

} // namespace redraw::cli
