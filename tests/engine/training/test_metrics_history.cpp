// A run's metrics history (engine/training/metrics_history.h): rows in step order, a row measured again at
// its step replacing the first, and what a rollback or a resume keeps, on hand-made rows.
#include "engine/training/metrics_history.h"

#include <doctest/doctest.h>

using namespace redraw;

namespace {
MetricsRow psnr_row(int64_t step, double psnr) {
  MetricsRow r;
  r.step = step;
  r.psnr_db = psnr;
  return r;
}
} // namespace

TEST_CASE("metrics history: rows append in step order; a row at the newest row's step replaces it") {
  MetricsHistory h;
  h.record(psnr_row(5, 10));
  h.record(psnr_row(10, 12));
  h.record(psnr_row(10, 12.5)); // measured exactly after a sampled row
  REQUIRE(h.rows().size() == 2);
  CHECK(h.rows()[1].psnr_db == 12.5);
  h.record(psnr_row(15, 13));
  CHECK(h.rows().size() == 3);
}

TEST_CASE("metrics history: a rollback drops rows and losses after its step; a resume keeps the checkpoint's") {
  MetricsHistory h;
  for (int64_t s = 1; s <= 30; ++s)
    h.record_loss(s, float(s));
  for (int64_t s = 5; s <= 30; s += 5)
    h.record(psnr_row(s, double(s)));
  h.truncate_after(17);
  REQUIRE(h.rows().size() == 3);
  CHECK(h.rows().back().step == 15);
  CHECK(h.losses().end_count() == 18); // losses of counts 1 .. 17
  CHECK(h.losses().loss.back() == 17.0f);
  LossTrace saved;
  for (int64_t s = 1; s <= 40; ++s)
    saved.record(s, 0.5f);
  h.assign({psnr_row(20, 1), psnr_row(40, 2), psnr_row(45, 3)}, saved, 40);
  CHECK(h.rows().size() == 3); // the rows as they are
  CHECK(h.losses().end_count() == 41);
  h.assign({}, saved, 25);
  CHECK(h.losses().end_count() == 26); // the losses up to the resumed step
  h.clear();
  CHECK(h.rows().empty());
  CHECK(h.losses().empty());
}
