// The unit tests' main: doctest's, after the OpenBLAS kernel family is settled as the program's
// own main settles it (cpu/openblas_kernels.h), so the tests run the kernels users get.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "cpu/openblas_kernels.h"

#include <unistd.h>

int main(int argc, char** argv) {
  if (redraw::prepare_openblas_environment()) execv("/proc/self/exe", argv);
  doctest::Context context;
  context.applyCommandLine(argc, argv);
  return context.run();
}
