/// The live curves without a window: the loss trace thinned per pixel column, and the trace's way
/// from the training thread to the plots (mailbox appends and replacements, the GUI's copy).
/// Built when the GUI is (REDRAW_TEST_UI).
#include <doctest/doctest.h>

#if REDRAW_TEST_UI
#include "ui/window/app_actions.h"
#include "ui/widgets/curve_thinning.h"
#include "ui/session/session_mailbox.h"

#include <cmath>
#include <limits>

using namespace redraw;

TEST_CASE("thin_min_max: the min and max of the steps in each pixel column") {
  // Ten values at x = 1..10, over [1, 10] in 3 columns of width 3: [1, 4), [4, 7), [7, 10].
  const std::vector<float> v = {5, 1, 7, 2, 9, 3, 4, 8, 6, 0.5f};
  const auto c = thin_min_max(v, 1, 1, 10, 3, false);
  REQUIRE(c.size() == 3);
  CHECK(c[0].lo == 1); // x 1, 2, 3: 5, 1, 7
  CHECK(c[0].hi == 7);
  CHECK(c[1].lo == 2); // x 4, 5, 6: 2, 9, 3
  CHECK(c[1].hi == 9);
  CHECK(c[2].lo == 0.5f); // x 7, 8, 9, 10: 4, 8, 6, 0.5 (x_hi falls in the last column)
  CHECK(c[2].hi == 8);

  // A window on part of the trace: x in [3, 5] in 2 columns, [3, 4) and [4, 5].
  const auto w = thin_min_max(v, 1, 3, 5, 2, false);
  REQUIRE(w.size() == 2);
  CHECK(w[0].lo == 7);
  CHECK(w[0].hi == 7);
  CHECK(w[1].lo == 2);
  CHECK(w[1].hi == 9);

  // More columns than values: the columns between them stay empty.
  const std::vector<float> two = {3, 4};
  const auto sparse = thin_min_max(two, 0, 0, 1, 4, false);
  REQUIRE(sparse.size() == 4);
  CHECK(sparse[0].lo == 3);
  CHECK(sparse[1].empty());
  CHECK(sparse[2].empty());
  CHECK(sparse[3].hi == 4);

  // A log axis skips values <= 0; nothing finite skips the column.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> odd = {0, -1, nan, 2, std::numeric_limits<float>::infinity(), 0.25f};
  const auto lg = thin_min_max(odd, 0, 0, 5, 2, true);
  REQUIRE(lg.size() == 2);
  CHECK(lg[0].empty()); // x 0, 1, 2: 0, -1, NaN
  CHECK(lg[1].lo == 0.25f);
  CHECK(lg[1].hi == 2);
  CHECK(thin_min_max(odd, 0, 0, 5, 2, false)[0].lo == -1);
  CHECK(thin_min_max(v, 1, 5, 5, 3, false).empty()); // no span
  CHECK(thin_min_max(v, 1, 1, 10, 0, false).empty());
}

TEST_CASE("loss trace: appended through the mailbox, replaced whole, dropped with the history") {
  SessionMailbox box;
  LossTrace a;
  a.first_count = 1;
  a.loss = {0.5f, 0.4f, 0.3f};
  box.loss_trace(a, false);
  LossTrace b;
  b.first_count = 4;
  b.loss = {0.2f};
  box.loss_trace(b, false); // a second publish before the GUI took the first
  SessionSnapshot take = box.take();
  CHECK_FALSE(take.loss_replaced);
  CHECK(take.loss.first_count == 1);
  CHECK(take.loss.loss.size() == 4);

  RunView run;
  absorb_run_rows(run, take);
  CHECK(run.loss_trace.end_count() == 5);
  LossTrace c;
  c.first_count = 5;
  c.loss = {0.1f, 0.05f};
  box.loss_trace(c, false);
  take = box.take();
  absorb_run_rows(run, take);
  REQUIRE(run.loss_trace.loss.size() == 6);
  CHECK(run.loss_trace.loss[5] == 0.05f);

  // A rollback replaces the whole trace (the steps after the good state are gone).
  LossTrace whole;
  whole.first_count = 1;
  whole.loss = {0.5f, 0.4f};
  box.loss_trace(whole, true);
  take = box.take();
  CHECK(take.loss_replaced);
  absorb_run_rows(run, take);
  CHECK(run.loss_trace.end_count() == 3);

  // A new history (new run, reset, branch): the old trace goes with the rows.
  box.new_history({}, 7);
  take = box.take();
  absorb_run_rows(run, take);
  CHECK(run.loss_trace.empty());
}

TEST_CASE("curves: each row says whether its PSNR was exact") {
  SessionMailbox box;
  MetricsRow r1, r2;
  r1.step = 10;
  r2.step = 20;
  r2.psnr_exact = true;
  box.publish(SessionStatus{}, 1, {r1, r2}, nullptr);
  SessionSnapshot take = box.take();
  RunView run;
  absorb_run_rows(run, take);
  REQUIRE(run.plot_exact.size() == 2);
  CHECK(run.plot_exact[0] == 0);
  CHECK(run.plot_exact[1] == 1);
}
#endif
