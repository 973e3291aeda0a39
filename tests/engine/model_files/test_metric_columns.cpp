// The metrics vocabulary (engine/metric_columns.h): one table that metrics.csv, the model file's
// rows and the MCOL chunk all follow.
#include "engine/errors.h"
#include "engine/metric_columns.h"
#include "engine/model_files/checkpoint_codec.h"
#include "engine/model_files/curves_chunk.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>

using namespace redraw;

TEST_CASE("metric columns: metrics.csv's header, rows and recovery rows, byte for byte") {
  MetricsRow a{5, 0.5, 10.25, 1e-3, 1.5, false};
  MetricsRow b{10, 0.125, std::numeric_limits<double>::infinity(), 2e-3, 2.25, true};
  RecoveryEvent e;
  e.step = 12;
  e.rolled_back_to = 8;
  e.lr_scale = 0.5;
  e.seconds = 3;
  e.attempt = 1;
  e.reason = "loss nan";
  CHECK(metrics_csv({a, b}, {e}) == "step,loss,psnr_db,psnr_from,lr,seconds,event\n"
                                     "5,0.5,10.250000,sampled,0.001,1.5000,\n"
                                     "12,,,,,3.0000,\"diverged (loss nan); back to step 8; lr x0.5 from now on; "
                                     "recovery 1\"\n"
                                     "10,0.125,inf,exact,0.002,2.2500,\n");
  // A long reason is cut where the line reaches 319 bytes, as metrics.csv always did.
  e.reason = std::string(400, 'x');
  const std::string csv = metrics_csv({}, {e});
  CHECK(csv.size() == std::strlen("step,loss,psnr_db,psnr_from,lr,seconds,event\n") + 319);
}

TEST_CASE("metric columns: a HIST row keeps every Hist column, an exact i64 step included") {
  MetricsRow r{std::numeric_limits<int64_t>::max() - 1, 0.25, 31.5, 1e-2, 7.75, true};
  ByteWriter w;
  w.put_row(r);
  REQUIRE(w.bytes.size() == k_checkpoint_row_bytes);
  ByteReader rd(w.bytes.data(), w.bytes.size(), "t", "row");
  const MetricsRow back = rd.get_row();
  CHECK(back.step == r.step);
  CHECK(back.loss == r.loss);
  CHECK(back.psnr_db == r.psnr_db);
  CHECK(back.lr == r.lr);
  CHECK(back.seconds == r.seconds);
  CHECK(!back.psnr_exact); // kept in CURV, not in the row
}

TEST_CASE("metric columns: MCOL skips a newer writer's column and refuses a short body") {
  // No Extra column: no MCOL chunk, so a model's bytes are those of the files before the table.
  CHECK(encode_metric_columns_chunk({MetricsRow{}}).empty() == (metric_extra_count() == 0));
  std::vector<MetricsRow> history(2);
  std::vector<uint8_t> body;
  const auto put = [&](const void* p, size_t n) { body.insert(body.end(), (const uint8_t*)p, (const uint8_t*)p + n); };
  const uint64_t columns = 1;
  const uint16_t length = 9;
  const double values[2] = {1, 2};
  put(&columns, 8);
  put(&length, 2);
  put("from_2099", 9);
  put(values, 16);
  decode_metric_columns_chunk(body.data(), body.size(), "m.redraw", history); // unknown: skipped
  CHECK(history[0].step == 0);
  CHECK_THROWS_AS(decode_metric_columns_chunk(body.data(), body.size() - 1, "m.redraw", history), CheckpointError);
}

TEST_CASE("metric columns: every column is whole (a name, its accessors, its coding)") {
  for (const MetricColumn& c : k_metric_columns) {
    CAPTURE(c.name);
    CHECK(std::strlen(c.name) > 0);
    CHECK(std::strchr(c.name, ',') == nullptr);
    CHECK(bool(c.get));
    if (c.kind == MetricKind::Integer) CHECK(bool(c.get_i64 && c.set_i64));
    if (c.kind == MetricKind::Text) CHECK(bool(c.text));
    if (c.kind == MetricKind::Real) CHECK(c.format != nullptr);
    if (c.coding == MetricCoding::HistF64 || c.coding == MetricCoding::Extra) CHECK(bool(c.set));
    CHECK(metric_index(c.name) == size_t(&c - k_metric_columns)); // names are unique
  }
}
