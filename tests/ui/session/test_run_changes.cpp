// Whether a run holds training no model file has (ui/session/run_changes.h). Built when the GUI is
// (REDRAW_TEST_UI).
#include <doctest/doctest.h>

#if REDRAW_TEST_UI
#include "ui/session/run_changes.h"

using namespace redraw;

TEST_CASE("run changes: a run is unsaved once changed past step 0, and saved again by a save") {
  RunChanges c("model.redraw");
  CHECK(c.model_path() == "model.redraw");
  CHECK_FALSE(c.unsaved(50, 1)); // just opened: nothing to lose
  c.changed();
  CHECK(c.unsaved(50, 1));
  CHECK_FALSE(c.unsaved(0, 1)); // changed, but an untrained run at step 0 has nothing to lose
  CHECK(c.unsaved(0, 2));       // ... unless the run tree holds another line
  c.saved("other.redraw");
  CHECK(c.model_path() == "other.redraw");
  CHECK_FALSE(c.unsaved(50, 2));
  c.changed();
  c.changed();
  CHECK(c.unsaved(51, 1));
  const RunChanges image_run;
  CHECK(image_run.model_path().empty());
  CHECK_FALSE(image_run.unsaved(10, 3));
}
#endif
