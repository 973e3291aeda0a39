// The CPU kernels for sse2 (engine/cpu_kernels.h).
#define REDRAW_KERNEL_TARGET
#define REDRAW_KERNEL_NAME sse2
#define REDRAW_KERNEL_ISA "sse2"
#include "engine/cpu_kernels_body.h"
