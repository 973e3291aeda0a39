// The CPU kernels for avx512 (cpu/cpu_kernels.h).
#define REDRAW_KERNEL_TARGET __attribute__((target("avx512f,avx512dq,avx512vl,avx2,fma")))
#define REDRAW_KERNEL_NAME avx512
#define REDRAW_KERNEL_ISA "avx512"
#include "cpu/cpu_kernels_body.h"
