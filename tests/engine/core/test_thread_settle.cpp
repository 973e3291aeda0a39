// wait_for_thread_count_to_settle (engine/thread_settle.h): threads already on their way out are
// gone when it returns; threads that stay do not hold it up past its stable window.
#include "engine/thread_settle.h"

#include <doctest/doctest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include <sys/syscall.h>
#include <unistd.h>

using namespace redraw;
using namespace std::chrono_literals;

TEST_CASE("thread settle: waits until detached threads that are ending have ended") {
  REQUIRE(process_thread_count() >= 1);
  // Eight detached threads that end 20 to 90 ms from now, as OpenMP's workers of a joined session
  // thread end on their own. Checked by their ids, so that other threads of the test program (a
  // library's idle workers) cannot make this pass or fail.
  std::array<std::atomic<pid_t>, 8> tids{};
  for (int i = 0; i < 8; ++i)
    std::thread([i, &tids] {
      tids[size_t(i)] = pid_t(syscall(SYS_gettid));
      std::this_thread::sleep_for(std::chrono::milliseconds(20 + 10 * i));
    }).detach();
  for (auto& t : tids)
    while (t == 0) std::this_thread::yield();
  const auto alive = [&] {
    int n = 0;
    for (auto& t : tids) n += std::filesystem::exists("/proc/self/task/" + std::to_string(t.load())) ? 1 : 0;
    return n;
  };
  REQUIRE(alive() > 0); // returning at once would leave these
  CHECK(wait_for_thread_count_to_settle(150ms, 5000ms));
  CHECK(alive() == 0);
}

TEST_CASE("thread settle: a thread that stays does not hold it up, and the limit bounds it") {
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(wait_for_thread_count_to_settle(50ms, 5000ms)); // nothing ending: one stable window
  CHECK(std::chrono::steady_clock::now() - t0 < 2000ms);
  // A thread started and ended every few ms keeps the count changing: the limit ends the wait.
  std::atomic<bool> stop{false};
  std::thread churn([&] {
    while (!stop) std::thread([] {}).join();
  });
  const auto t1 = std::chrono::steady_clock::now();
  const bool settled = wait_for_thread_count_to_settle(2000ms, 300ms);
  CHECK(std::chrono::steady_clock::now() - t1 < 1500ms);
  CHECK_FALSE(settled);
  stop = true;
  churn.join();
}
