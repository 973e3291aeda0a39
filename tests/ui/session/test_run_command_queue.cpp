// The queue between the GUI thread and a session's training thread (ui/session/run_command_queue.h):
// commands in order, frame requests coalesced, quit ends the waits. Built when the GUI is
// (REDRAW_TEST_UI).
#include <doctest/doctest.h>

#if REDRAW_TEST_UI
#include "ui/session/run_command_queue.h"

#include <chrono>
#include <thread>

using namespace redraw;
using namespace std::chrono_literals;

TEST_CASE("run command queue: commands come out in the order they went in, each once") {
  RunCommandQueue q;
  CHECK_FALSE(q.pending());
  q.push(run_command::StopAt{7});
  q.push(run_command::SetRunning{true});
  q.push(run_command::Save{"a.redraw"});
  CHECK(q.pending());
  std::deque<RunCommand> out{run_command::Reset{}}; // whatever was there is replaced
  REQUIRE(q.take(out, false, 0ms));
  REQUIRE(out.size() == 3);
  CHECK(std::get<run_command::StopAt>(out[0]).step == 7);
  CHECK(std::get<run_command::SetRunning>(out[1]).on);
  CHECK(std::get<run_command::Save>(out[2]).path == "a.redraw");
  REQUIRE(q.take(out, false, 0ms));
  CHECK(out.empty());
  CHECK_FALSE(q.pending());
}

TEST_CASE("run command queue: frame requests coalesce to the newest, and a negative step asks for frame 0") {
  RunCommandQueue q;
  CHECK(q.take_frame_request() == -1);
  q.request_frame(30);
  q.request_frame(12);
  CHECK(q.pending());
  CHECK(q.take_frame_request() == 12);
  CHECK(q.take_frame_request() == -1); // served once
  q.request_frame(-4);
  CHECK(q.take_frame_request() == 0);
}

TEST_CASE("run command queue: a waiting consumer wakes for a command, and quit drops the rest and ends it") {
  RunCommandQueue q;
  std::deque<RunCommand> out;
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(q.take(out, true, 20ms)); // nothing came: it waited, then returns empty
  CHECK(out.empty());
  CHECK(std::chrono::steady_clock::now() - t0 >= 15ms);
  std::thread producer([&] {
    std::this_thread::sleep_for(20ms);
    q.push(run_command::StepOnce{});
  });
  REQUIRE(q.take(out, true, 10s));
  producer.join();
  REQUIRE(out.size() == 1);
  CHECK(std::holds_alternative<run_command::StepOnce>(out[0]));
  q.push(run_command::Reset{});
  q.quit();
  CHECK(q.quitting());
  CHECK(q.pending());
  CHECK_FALSE(q.take(out, true, 10s)); // at once, the queued Reset dropped
  q.push(run_command::Reset{});        // after quit: dropped
  CHECK_FALSE(q.take(out, false, 0ms));
}
#endif
