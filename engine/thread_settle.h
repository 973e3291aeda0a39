#pragma once
/// Waiting for threads that are already ending, before the process exits.
/// A thread pool whose owner has ended lets its workers go on their own: OpenMP's workers of a
/// thread that ran parallel regions (a training session's thread) detach and exit after that
/// thread is joined. LeakSanitizer's exit-time check stops every thread and crashes when one ends
/// meanwhile, so `redraw gui` waits here, after its sessions are gone, until the process's thread
/// count stops changing. Linux (/proc/self/task); elsewhere it returns at once.
#include <chrono>
#include <cstdint>

namespace redraw {

/// Threads of this process (entries of /proc/self/task), or -1 when that cannot be read.
int64_t process_thread_count();

/// Returns once the thread count has not changed for `stable`, or after `limit`. Returns whether
/// it settled.
bool wait_for_thread_count_to_settle(std::chrono::milliseconds stable = std::chrono::milliseconds(100),
                                     std::chrono::milliseconds limit = std::chrono::milliseconds(3000));

} // namespace redraw
