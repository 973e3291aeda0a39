#include "engine/thread_settle.h"

#include <filesystem>
#include <system_error>
#include <thread>

namespace redraw {

int64_t process_thread_count() {
  std::error_code ec;
  std::filesystem::directory_iterator it("/proc/self/task", ec);
  if (ec) return -1;
  int64_t n = 0;
  for (const auto& entry : it) {
    (void)entry;
    ++n;
  }
  return n;
}

bool wait_for_thread_count_to_settle(std::chrono::milliseconds stable, std::chrono::milliseconds limit) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  int64_t last = process_thread_count();
  if (last < 0) return false;
  auto since = start; // when the count last changed
  while (clock::now() - since < stable) {
    if (clock::now() - start >= limit) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const int64_t now = process_thread_count();
    if (now != last) {
      last = now;
      since = clock::now();
    }
  }
  return true;
}

} // namespace redraw
