#include "engine/stop_signals.h"

#include <atomic>
#include <csignal>

namespace redraw {

namespace {
// A signal handler can reach only globals.
std::atomic<uint64_t> g_continues{0};
extern "C" void on_continue(int) { g_continues.fetch_add(1, std::memory_order_relaxed); }
} // namespace

uint64_t continue_signals() {
  static const bool installed = [] {
    struct sigaction sa {};
    sa.sa_handler = on_continue;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    return sigaction(SIGCONT, &sa, nullptr) == 0;
  }();
  (void)installed;
  return g_continues.load(std::memory_order_relaxed);
}

} // namespace redraw
