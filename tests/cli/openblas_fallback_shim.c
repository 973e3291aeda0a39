/* Stands in for a processor OpenBLAS does not know (tests/cli/openblas_fallback.sh): preloaded,
 * it reports OpenBLAS's 2004 Prescott kernels while OPENBLAS_CORETYPE is unset, as Debian 12's
 * OpenBLAS 0.3.21 does on a 2023 Xeon, and OpenBLAS's own answer once the variable is set. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>

char* openblas_get_corename(void) {
  const char* set = getenv("OPENBLAS_CORETYPE");
  if (!set || !*set) return (char*)"Prescott";
  char* (*real)(void) = (char* (*)(void))dlsym(RTLD_NEXT, "openblas_get_corename");
  return real ? real() : (char*)"unknown";
}
