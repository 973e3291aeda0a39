// The run tree: a branch keeps the abandoned line whole (weights, curves, frames), switching
// back brings it back and continues it exactly, and the lines stay under the frame memory cap.
#include "test_support.h"

#include "engine/training/run_tree.h"

#include <doctest/doctest.h>

using namespace redraw;

namespace {
RunConfig tree_config() { return test::tanh16_config(0, 200, 10); }
} // namespace

TEST_CASE("a branch keeps the abandoned line, and switching back brings back its weights, curves and frames") {
  const Image img = test::gradient_image(12, 10, 1);
  Trainer t = test::small_trainer(tree_config(), img);
  RunTree tree;
  tree.reset();
  (void)tree.set_cap_bytes(t, size_t(64) << 20);
  t.run(80);
  const std::vector<float> main_params = t.parameters();
  const std::vector<MetricsRow> main_history = t.record().rows();
  const std::vector<Snapshot> main_frames = t.frames().store().frames();
  REQUIRE(main_history.back().step == 80);

  const size_t at = t.frames().store().index_at_step(40);
  REQUIRE(t.frames().frame(at).metrics.step == 40);
  const RunTree::BranchResult r = tree.branch(t, at);
  CHECK(r.exact);
  CHECK(r.notices.empty());
  CHECK(t.current_step() == 40);
  t.run(30);
  const std::vector<float> branch_params = t.parameters();

  std::vector<RunLine> lines = tree.lines(t);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].label() == "main: steps 0..80");
  CHECK_FALSE(lines[0].active);
  CHECK(lines[0].bytes > 0);
  CHECK(lines[1].label() == "branch at 40: steps 40..70");
  CHECK(lines[1].active);
  CHECK(lines[1].parent == 0);

  std::vector<std::string> notices;
  REQUIRE(tree.switch_to(t, 0, notices));
  CHECK(t.current_step() == 80);
  CHECK(t.parameters() == main_params);
  REQUIRE(t.record().rows().size() == main_history.size());
  for (size_t k = 0; k < main_history.size(); ++k)
    CHECK(t.record().rows()[k].loss == main_history[k].loss);
  REQUIRE(t.frames().store().size() == main_frames.size());
  for (size_t k = 0; k < main_frames.size(); ++k)
    CHECK(t.frames().frame(k).params == main_frames[k].params);
  CHECK_FALSE(tree.switch_to(t, 0, notices)); // already active

  // The main line continues exactly as if it had never been left.
  Trainer straight = test::small_trainer(tree_config(), img);
  straight.run(100);
  t.run(20);
  CHECK(t.parameters() == straight.parameters());

  // And the branch is still there, as it was left.
  REQUIRE(tree.switch_to(t, 1, notices));
  CHECK(t.current_step() == 70);
  CHECK(t.parameters() == branch_params);
  lines = tree.lines(t);
  CHECK(lines[0].label() == "main: steps 0..100");
  CHECK(lines[1].active);
}

TEST_CASE("the run tree stays under the frame memory cap: stored lines thin, then the oldest goes with a notice") {
  RunConfig cfg = tree_config();
  Trainer t = test::small_trainer(cfg, test::gradient_image(12, 10, 1));
  SnapshotPolicy every;
  every.every = 1;
  t.set_snapshot_policy(every);
  RunTree tree;
  tree.reset();
  Snapshot weights_only;
  weights_only.params = t.parameters();
  const size_t frame = snapshot_bytes(weights_only);
  const size_t cap = frame * 40;
  (void)tree.set_cap_bytes(t, cap);
  t.run(60);
  std::vector<std::string> notices;
  for (int k = 0; k < 6; ++k) {
    const RunTree::BranchResult r = tree.branch(t, t.frames().store().index_at_step(10 + k));
    for (const auto& n : r.notices)
      notices.push_back(n);
    t.run(20);
    // Stored lines take at most half the cap; the timelapse gets the rest, so all of it fits.
    CHECK(tree.stored_bytes() <= cap / 2);
    CHECK(t.frames().store().bytes() <= t.frames().store().cap_bytes());
    CHECK(tree.stored_bytes() + t.frames().store().cap_bytes() <= cap);
  }
  CHECK(tree.stored_bytes() <= cap / 2);
  CHECK_FALSE(notices.empty());
  CHECK(notices.front().find("dropped the line \"main: steps 0..60\"") != std::string::npos);
  CHECK(tree.line_count() < 7);
  // Every kept stored line still has its first and newest frame, and its weights.
  for (const RunLine& l : tree.lines(t))
    if (!l.active) CHECK(l.bytes > 0);
}
