// The CPU kernels for avx2 (cpu/cpu_kernels.h).
#define REDRAW_KERNEL_TARGET __attribute__((target("avx2,fma")))
#define REDRAW_KERNEL_NAME avx2
#define REDRAW_KERNEL_ISA "avx2"
#include "cpu/cpu_kernels_body.h"
