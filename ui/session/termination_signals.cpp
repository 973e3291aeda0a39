#include "ui/session/termination_signals.h"

#include <atomic>
#include <csignal>
#include <semaphore.h>

namespace redraw {

namespace {
// A signal handler can reach nothing but globals: the one exception to "no file-scope statics".
std::atomic<int> g_caught{0};
std::atomic<bool> g_stop{false};
sem_t g_wake_sem;
constexpr int k_signals[] = {SIGTERM, SIGHUP, SIGINT};
struct sigaction g_old[3];

extern "C" void on_termination_signal(int sig) {
  int expected = 0;
  g_caught.compare_exchange_strong(expected, sig);
  sem_post(&g_wake_sem); // async-signal-safe
}
} // namespace

TerminationSignals::TerminationSignals(std::function<void()> wake) : m_wake(std::move(wake)) {
  g_caught = 0;
  g_stop = false;
  sem_init(&g_wake_sem, 0, 0);
  m_thread = std::thread([this] {
    while (true) {
      while (sem_wait(&g_wake_sem) != 0) {
      }
      if (g_stop) return;
      if (m_wake) m_wake();
    }
  });
  struct sigaction sa {};
  sa.sa_handler = on_termination_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (int i = 0; i < 3; ++i) sigaction(k_signals[i], &sa, &g_old[i]);
}

TerminationSignals::~TerminationSignals() {
  for (int i = 0; i < 3; ++i) sigaction(k_signals[i], &g_old[i], nullptr);
  g_stop = true;
  sem_post(&g_wake_sem);
  m_thread.join();
  sem_destroy(&g_wake_sem);
}

int TerminationSignals::caught() const { return g_caught.load(); }

const char* termination_signal_name(int sig) {
  switch (sig) {
  case SIGTERM: return "SIGTERM";
  case SIGHUP: return "SIGHUP";
  case SIGINT: return "SIGINT";
  default: return "a signal";
  }
}

} // namespace redraw
