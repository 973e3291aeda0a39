// The CPU kernels for sse2 (cpu/cpu_kernels.h).
#define REDRAW_KERNEL_TARGET
#define REDRAW_KERNEL_NAME sse2
#define REDRAW_KERNEL_ISA "sse2"
#include "cpu/cpu_kernels_body.h"
