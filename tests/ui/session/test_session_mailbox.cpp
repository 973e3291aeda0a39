/// ui/session_mailbox and ui/session_snapshot: what a take hands over, what stays for the next
/// take, and when a take is news. Built when the GUI is (REDRAW_TEST_UI).
#include <doctest/doctest.h>

#if REDRAW_TEST_UI
#include "ui/session/session_mailbox.h"

#include <memory>
#include <string>
#include <vector>

using namespace redraw;

namespace {
MetricsRow step_row(int64_t step) {
  MetricsRow r;
  r.step = step;
  r.loss = 1.0 / double(step + 1);
  return r;
}
std::vector<int64_t> steps(const std::vector<MetricsRow>& rows) {
  std::vector<int64_t> out;
  for (const auto& r : rows) out.push_back(r.step);
  return out;
}
} // namespace

TEST_CASE("session mailbox: a take hands over what arrived and keeps the latest values") {
  SessionMailbox box;
  SessionSnapshot snap;
  snap.take_from(box);
  CHECK_FALSE(snap.has_news()); // nothing published yet
  CHECK(snap.run_id == 0);
  CHECK(snap.preview_step == -1);

  auto truth = std::make_shared<Image>();
  box.new_history({step_row(0), step_row(10)}, 7, truth);
  box.preview(std::make_shared<Image>(), 10);
  box.frames({step_row(0)}, {1}, 1234, 5678);
  box.frame(std::make_shared<Image>(), 0);
  box.error("bad");
  box.notice("note");
  box.saved("a.redraw");
  box.save_failed("b.redraw");
  SessionStatus st;
  st.has_run = true;
  st.step = 10;
  SessionProfile prof;
  prof.steps = 3;
  box.publish(st, 7, {step_row(20)}, &prof);
  snap.take_from(box);
  CHECK(snap.has_news());
  CHECK(snap.run_id == 7);
  CHECK(snap.history_replaced);
  CHECK(steps(snap.rows) == std::vector<int64_t>{0, 10, 20}); // the new history, then the publish's rows
  CHECK(snap.ground_truth == truth);
  CHECK(snap.preview);
  CHECK(snap.preview_step == 10);
  CHECK(snap.snapshots_changed);
  CHECK(steps(snap.snapshots) == std::vector<int64_t>{0});
  CHECK(snap.snapshot_kinds == std::vector<uint8_t>{1});
  CHECK(snap.frame);
  CHECK(snap.errors == std::vector<std::string>{"bad"});
  CHECK(snap.notices == std::vector<std::string>{"note"});
  CHECK(snap.saved_models == std::vector<std::string>{"a.redraw"});
  CHECK(snap.failed_saves == std::vector<std::string>{"b.redraw"});
  REQUIRE(snap.profiles.size() == 1);
  CHECK(snap.profiles[0].steps == 3);
  CHECK(snap.status.step == 10);

  // Nothing new: the latest values stay, everything else is gone, and it is no news.
  snap.take_from(box);
  CHECK_FALSE(snap.has_news());
  CHECK(snap.run_id == 7);
  CHECK(snap.status.has_run);
  CHECK(snap.status.step == 10);
  CHECK(snap.preview_step == 10);
  CHECK(snap.snapshot_bytes == 1234);
  CHECK(snap.snapshot_cap_bytes == 5678);
  CHECK(snap.rows.empty());
  CHECK_FALSE(snap.history_replaced);
  CHECK_FALSE(snap.ground_truth);
  CHECK_FALSE(snap.preview);
  CHECK_FALSE(snap.snapshots_changed);
  CHECK_FALSE(snap.frame);
  CHECK(snap.errors.empty());
  CHECK(snap.profiles.empty());

  // Rows alone are not news; a change of running is.
  box.publish(st, 7, {step_row(30)}, nullptr);
  snap.take_from(box);
  CHECK_FALSE(snap.has_news());
  CHECK(steps(snap.rows) == std::vector<int64_t>{30});
  CHECK(snap.profiles.empty()); // no run: no profile
  st.running = true;
  box.publish(st, 7, {}, nullptr);
  snap.take_from(box);
  CHECK(snap.has_news());
  snap.take_from(box);
  CHECK_FALSE(snap.has_news()); // still running: no change since the last take
}

TEST_CASE("session mailbox: busy and progress survive a publish; the history after a recovery replaces the rows") {
  SessionMailbox box;
  SessionSnapshot snap;
  box.busy("export 64x64");
  box.progress(0.5);
  SessionStatus st;
  st.step = 4;
  box.publish(st, 1, {step_row(1), step_row(2)}, nullptr);
  snap.take_from(box);
  CHECK(snap.status.busy);
  CHECK(snap.status.busy_what == "export 64x64");
  CHECK(snap.status.busy_progress == 0.5);
  CHECK(snap.status.step == 4);
  CHECK(snap.has_news()); // busy changed
  box.publish(st, 1, {step_row(3)}, nullptr);
  box.replace_history({step_row(0), step_row(1)});
  box.idle();
  snap.take_from(box);
  CHECK_FALSE(snap.status.busy);
  CHECK(snap.status.busy_progress == 0);
  CHECK(snap.history_replaced);
  CHECK(steps(snap.rows) == std::vector<int64_t>{0, 1});
  CHECK(snap.run_id == 1); // a recovery keeps the run
  // A profile is posted per publish while a run exists, and at most 4096 wait for a take.
  SessionProfile p;
  for (int i = 0; i < 5000; ++i) {
    p.steps = i;
    box.publish(st, 1, {}, &p);
  }
  snap.take_from(box);
  REQUIRE(snap.profiles.size() == 4096);
  CHECK(snap.profiles.back().steps == 4999);
  CHECK(snap.profiles.front().steps == 5000 - 4096);
}
#endif
