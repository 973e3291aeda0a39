#pragma once
/// How the OpenMP runtime's idle threads wait (app/cli_openmp_env.cpp).

namespace redraw::cli {

/// Called first thing in main(): unless the user set OMP_WAIT_POLICY or GOMP_SPINCOUNT, sets a
/// short spin (and OPENBLAS_NUM_THREADS=1 unless set), and when OpenBLAS fell back to kernels
/// without AVX sets the family the CPU's features choose (cpu/openblas_kernels.h); then
/// re-executes the program once so the OpenMP runtime and OpenBLAS, which read them only when they
/// load, start with them. Returns when nothing was
/// to be done or the re-execution failed (the program then runs with the runtime's defaults).
void ensure_openmp_environment(char** argv);

} // namespace redraw::cli
