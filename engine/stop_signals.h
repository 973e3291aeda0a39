#pragma once
/// Time a process spends stopped (SIGSTOP, SIGTSTP / Ctrl+Z) is no training time. The monotonic
/// clock runs on while a process is stopped; what marks a stop is the SIGCONT that ends it.
/// continue_signals() counts those (a handler that only counts, installed on first use, so the
/// default behaviour of SIGCONT, continuing, is unchanged). Any thread.
#include <cstdint>

namespace redraw {

/// How many SIGCONT this process has received since the first call.
uint64_t continue_signals();

} // namespace redraw
