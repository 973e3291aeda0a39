// The GPU preview ring's slot bookkeeping (engine/frame_ring_state.h), checked on the CPU: the
// writer never gets a slot the reader holds, the reader always gets the newest frame, and a
// reader that has not released its frame cannot take another (which would hand its busy slot
// back to the writer).
#include "engine/frame_ring_state.h"

#include <doctest/doctest.h>

#include <random>
#include <set>

using namespace redraw;

TEST_CASE("frame ring: the three roles are always three different slots") {
  FrameRingState r;
  std::mt19937 rng(7);
  int ready_frames = 0;
  for (int i = 0; i < 10000; ++i) {
    switch (rng() % 3) {
    case 0: r.publish(); ++ready_frames; break;
    case 1: (void)r.take(); break;
    default: r.release(); break;
    }
    std::set<int> roles{r.writing(), r.reading()};
    CHECK(roles.size() == 2);
    CHECK((r.writing() >= 0 && r.writing() < 3 && r.reading() >= 0 && r.reading() < 3));
  }
  CHECK(ready_frames > 0);
}

TEST_CASE("frame ring: the reader gets the newest frame, and only once") {
  FrameRingState r;
  int frame_in_slot[3] = {-1, -1, -1};
  CHECK_FALSE(r.take()); // nothing published yet
  for (int frame = 0; frame < 5; ++frame) {
    frame_in_slot[r.writing()] = frame;
    r.publish();
  }
  REQUIRE(r.take());
  CHECK(frame_in_slot[r.reading()] == 4);
  r.release();
  CHECK_FALSE(r.take()); // no fresh frame since
  frame_in_slot[r.writing()] = 5;
  r.publish();
  REQUIRE(r.take());
  CHECK(frame_in_slot[r.reading()] == 5);
  r.release();
}

TEST_CASE("frame ring: while the reader holds a frame, the writer never touches it") {
  FrameRingState r;
  int frame_in_slot[3] = {-1, -1, -1};
  frame_in_slot[r.writing()] = 0;
  r.publish();
  REQUIRE(r.take());
  const int held = r.reading();
  // The writer publishes many frames while the copy out of `held` is in flight.
  for (int frame = 1; frame < 50; ++frame) {
    CHECK(r.writing() != held);
    frame_in_slot[r.writing()] = frame;
    r.publish();
    // A second take() before release() must refuse: swapping `ready` into `reading` would make
    // the held slot `ready`, and the next publish() would hand it to the writer mid-copy.
    CHECK_FALSE(r.take());
    CHECK(r.reading() == held);
  }
  CHECK(frame_in_slot[held] == 0);
  r.release();
  REQUIRE(r.take());
  CHECK(frame_in_slot[r.reading()] == 49);
}
