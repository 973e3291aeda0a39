// A session's record of its autosaves (ui/session/autosave.h's AutosaveRecord): which one to skip, and an
// error said once until a save works again. Built when the GUI is (REDRAW_TEST_UI).
#include <doctest/doctest.h>

#if REDRAW_TEST_UI
#include "ui/session/autosave.h"

#include <string>
#include <thread>

using namespace redraw;

TEST_CASE("autosave record: an autosave of the same trainer at the same step is skipped") {
  AutosaveRecord r;
  CHECK(r.due(1, 0)); // none yet
  r.succeeded(1, 40);
  CHECK_FALSE(r.due(1, 40));
  CHECK(r.due(1, 41)); // trained on
  CHECK(r.due(2, 40)); // a new trainer at the same step
  CHECK(r.error().empty());
}

TEST_CASE("autosave record: a failure is said once until a save works, and error() tells why from any thread") {
  AutosaveRecord r;
  CHECK(r.failed("disk full"));       // the first: say it
  CHECK_FALSE(r.failed("disk full")); // one more in a row: quiet
  std::string seen;
  std::thread reader([&] { seen = r.error(); });
  reader.join();
  CHECK(seen == "disk full");
  CHECK(r.due(1, 10)); // nothing was written: still due
  r.succeeded(1, 10);
  CHECK(r.error().empty());
  CHECK(r.failed("read-only")); // after a success the next failure is said again
  CHECK(r.error() == "read-only");
}
#endif
