// Every step's loss (the live loss curve): recorded by the trainer on the CPU, kept in order
// across recoveries and branches, and carried by the CURV chunk of a model.
#include "test_support.h"

#include "engine/model_files/curves_chunk.h"
#include "engine/errors.h"

#include <doctest/doctest.h>

#include <cstring>

using namespace redraw;

TEST_CASE("loss trace: appends in order, truncates when a count comes again, restarts after a gap") {
  LossTrace t;
  t.record(1, 0.5f);
  t.record(2, 0.4f);
  t.record(3, 0.3f);
  CHECK(t.first_count == 1);
  CHECK(t.end_count() == 4);
  t.record(2, 0.45f); // back to count 2 (a recovery): counts 2.. replaced
  CHECK(t.loss == std::vector<float>{0.5f, 0.45f});
  t.truncate_after(1);
  CHECK(t.loss == std::vector<float>{0.5f});
  t.record(10, 0.1f); // a gap: the trace starts again there
  CHECK(t.first_count == 10);
  CHECK(t.loss.size() == 1u);
  t.truncate_after(5);
  CHECK(t.empty());
}

TEST_CASE("loss trace: the CPU trainer keeps every step's loss, equal to the rows' losses") {
  RunConfig cfg = test::small_config(OptimizerKind::Adam, 64);
  cfg.training.metrics_every = 10;
  Trainer t = test::small_trainer(cfg, test::gradient_image(24, 20, 3));
  t.run(35);
  const LossTrace& trace = t.record().losses();
  CHECK(trace.first_count == 1);
  CHECK(trace.end_count() == 36);
  for (const MetricsRow& r : t.record().rows())
    if (r.step > 0) CHECK(double(trace.loss[size_t(r.step - 1)]) == doctest::Approx(r.loss).epsilon(1e-6));
  // A branch from an earlier frame drops the later steps.
  size_t frame = 0;
  for (size_t i = 0; i < t.frames().store().size(); ++i)
    if (t.frames().frame(i).metrics.step > 0 && t.frames().frame(i).metrics.step < 30) frame = i;
  REQUIRE(frame > 0);
  t.branch_from_snapshot(frame);
  CHECK(t.record().losses().end_count() == t.current_step() + 1);
}

TEST_CASE("curves chunk: round trip through a model, and a damaged body is named") {
  RunConfig cfg = test::small_config(OptimizerKind::Adam, 64);
  Trainer t = test::small_trainer(cfg, test::gradient_image(24, 20, 1));
  t.run(12);
  (void)t.measure(); // an exact row at step 12
  const Checkpoint c = t.checkpoint("x.png");
  const std::vector<uint8_t> bytes = serialize_checkpoint(c);
  const Checkpoint back = deserialize_checkpoint(bytes.data(), bytes.size(), "m.redraw");
  CHECK(back.loss_trace.first_count == c.loss_trace.first_count);
  CHECK(back.loss_trace.loss == c.loss_trace.loss);
  REQUIRE(back.history.size() == c.history.size());
  for (size_t i = 0; i < c.history.size(); ++i) CHECK(back.history[i].psnr_exact == c.history[i].psnr_exact);
  CHECK(back.history.back().psnr_exact);

  std::vector<MetricsRow> rows = c.history;
  LossTrace trace;
  std::vector<uint8_t> body = encode_curves_chunk(c.history, c.loss_trace);
  body.resize(body.size() - 2);
  CHECK_THROWS_WITH_AS(decode_curves_chunk(body.data(), body.size(), "m.redraw", rows, trace),
                       doctest::Contains("m.redraw: chunk CURV"), CheckpointError);
}
