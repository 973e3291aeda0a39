// The lagged rows of a StepMetrics backend (engine/training/lagged_rows.h) against a scripted backend: the
// test decides when a loss report and a parameter copy arrive, and checks which step records what,
// the row each report makes (PSNR from the step's MSE, by hand), and that no copy is left behind.
#include "test_support.h"

#include "engine/errors.h"
#include "engine/training/lagged_rows.h"

#include <doctest/doctest.h>

#include <cmath>
#include <deque>

using namespace redraw;

namespace {
/// The CPU backend whose loss reports and parameter copies arrive when the test says.
class ScriptedBackend final : public test::CpuWrapperBackend {
public:
  std::string device_description() const override { return "cpu, scripted reports (test)"; }
  void synchronize() override {
    ++syncs;
    copies_ready = true;
  }
  std::deque<LossSample> reports; ///< what poll_loss() hands out, one at a time
  bool copies_ready = false;      ///< copies arrive without waiting
  double mse = 0.001;             ///< dataset_mse()
  int syncs = 0, mse_reads = 0, copies_in_flight = 0, copies_dropped = 0;

protected:
  std::optional<LossSample> poll_loss_impl() override {
    if (reports.empty()) return std::nullopt;
    LossSample s = reports.front();
    reports.pop_front();
    return s;
  }
  double dataset_mse_impl() override {
    ++mse_reads;
    return mse;
  }
  int64_t begin_parameter_copy_impl(bool with_optimizer) override {
    ++copies_in_flight;
    return Backend::begin_parameter_copy_impl(with_optimizer);
  }
  bool finish_parameter_copy_impl(int64_t ticket, ParameterCopy& out, bool wait) override {
    if (!wait && !copies_ready) return false;
    --copies_in_flight;
    return Backend::finish_parameter_copy_impl(ticket, out, wait);
  }
  void drop_parameter_copy_impl(int64_t ticket) override {
    if (ticket >= 0) ++copies_dropped, --copies_in_flight;
    Backend::drop_parameter_copy_impl(ticket);
  }
};

struct Scripted {
  Dataset data{test::gradient_image(6, 5, 1)};
  ScriptedBackend backend;
  Scripted() {
    RunConfig cfg = test::small_config(OptimizerKind::Adam, 0);
    cfg.model.output_channels = 1;
    backend.configure({cfg.model, cfg.loss, cfg.optimizer, 0, 1, k_metric_sample_pixels}, data);
  }
};

LossSample report(int64_t step, double loss, double mse, bool sampled = true, bool nonfinite = false) {
  LossSample s;
  s.step = step;
  s.loss = loss;
  s.mse = mse;
  s.mse_sampled = sampled;
  s.nonfinite = nonfinite;
  return s;
}
} // namespace

TEST_CASE("lagged rows: a due row is measured by the step that starts from its count") {
  Scripted f;
  LaggedRows rows(f.backend);
  StepArgs none = rows.begin_step(5);
  CHECK_FALSE(none.record_loss);
  CHECK_FALSE(none.record_mse);
  rows.expect(5, true, 1.5, 0.01);
  CHECK(rows.due_at(5));
  CHECK_FALSE(rows.due_at(4));
  CHECK_FALSE(rows.awaiting());
  const StepArgs args = rows.begin_step(5);
  CHECK(args.record_loss);
  CHECK(args.record_mse);
  CHECK(rows.awaiting());
  CHECK_FALSE(rows.due_at(5));
}

TEST_CASE("lagged rows: the awaited row arrives with its step's report, its PSNR from that step's MSE") {
  Scripted f;
  LaggedRows rows(f.backend);
  rows.expect(5, true, 1.5, 0.01);
  (void)rows.begin_step(5);
  CHECK_FALSE(rows.finish_awaited(false).has_value()); // nothing reported yet: still on its way
  CHECK(rows.awaiting());
  f.backend.reports.push_back(report(5, 0.2, 0.01));
  const std::optional<ArrivedRow> a = rows.finish_awaited(false);
  REQUIRE(a.has_value());
  CHECK_FALSE(rows.awaiting());
  CHECK(a->metrics);
  CHECK(a->sample.step == 5);
  CHECK(a->row.step == 5);
  CHECK(a->row.loss == 0.2);
  CHECK(a->row.psnr_db == doctest::Approx(20.0).epsilon(1e-12)); // 10 log10(1 / 0.01)
  CHECK_FALSE(a->row.psnr_exact);                                // the step measured its sample
  CHECK(a->row.lr == 0.01);
  CHECK(a->row.seconds == 1.5);
  CHECK(f.backend.mse_reads == 0);
}

TEST_CASE("lagged rows: a step that measured nothing gets the backend's error now, unless it diverged") {
  Scripted f;
  LaggedRows rows(f.backend);
  rows.expect(3, false, 0, 0);
  (void)rows.begin_step(3);
  f.backend.reports.push_back(report(3, 0.5, std::nan("")));
  const auto a = rows.finish_awaited(false);
  REQUIRE(a.has_value());
  CHECK_FALSE(a->metrics);
  CHECK(a->row.psnr_exact);
  CHECK(a->row.psnr_db == doctest::Approx(30.0).epsilon(1e-12)); // dataset_mse 0.001
  CHECK(f.backend.mse_reads == 1);
  rows.expect(4, true, 0, 0);
  (void)rows.begin_step(4);
  f.backend.reports.push_back(report(4, std::nan(""), std::nan(""), false, true));
  const auto b = rows.finish_awaited(false);
  REQUIRE(b.has_value());
  CHECK(std::isnan(b->row.psnr_db));
  CHECK(b->sample.nonfinite);
  CHECK(f.backend.mse_reads == 1);
}

TEST_CASE("lagged rows: waiting for a report that never comes gives up on it") {
  Scripted f;
  LaggedRows rows(f.backend);
  rows.expect(2, true, 0, 0);
  (void)rows.begin_step(2);
  CHECK_FALSE(rows.finish_awaited(true).has_value());
  CHECK(f.backend.syncs == 1);
  CHECK_FALSE(rows.awaiting()); // never blocked on again
  CHECK_FALSE(rows.finish_awaited(true).has_value());
  CHECK(f.backend.syncs == 1);
}

TEST_CASE("lagged rows: a frame's weights are a copy taken at its step, collected with its row") {
  Scripted f;
  LaggedRows rows(f.backend);
  const std::vector<float> at_step(size_t(f.backend.parameter_count()), 0.25f);
  f.backend.set_parameters(at_step);
  PendingRow& due = rows.expect(8, true, 2.0, 0.001);
  due.snapshot = Snapshot{};
  due.copy_ticket = f.backend.begin_parameter_copy(false);
  f.backend.set_parameters(std::vector<float>(at_step.size(), -1.0f)); // the next steps move on
  (void)rows.begin_step(8);
  f.backend.reports.push_back(report(8, 0.1, 0.01));
  CHECK_FALSE(rows.finish_awaited(false).has_value()); // the copy is on its way: the row waits for it
  CHECK(f.backend.reports.size() == 1);                // its report not taken yet
  f.backend.copies_ready = true;
  const auto a = rows.finish_awaited(false);
  REQUIRE(a.has_value());
  REQUIRE(a->snapshot.has_value());
  CHECK(a->snapshot->params == at_step);
  CHECK(f.backend.copies_in_flight == 0);
}

TEST_CASE("lagged rows: a due row taken at its step brings its frame; dropped rows leave no copy") {
  Scripted f;
  LaggedRows rows(f.backend);
  PendingRow& due = rows.expect(6, false, 3.0, 0);
  due.snapshot = Snapshot{};
  due.copy_ticket = f.backend.begin_parameter_copy(false);
  CHECK_FALSE(rows.take_due(5).has_value());
  const std::optional<PendingRow> taken = rows.take_due(6);
  REQUIRE(taken.has_value());
  CHECK(taken->count == 6);
  CHECK(taken->seconds == 3.0);
  CHECK(taken->copy_ticket == -1); // collected, waiting
  CHECK(taken->snapshot->params.size() == size_t(f.backend.parameter_count()));
  CHECK_FALSE(rows.due_at(6));
  // Rows dropped with copies in flight (a recovery, a branch) give the copies back.
  PendingRow& a = rows.expect(10, true, 0, 0);
  a.copy_ticket = f.backend.begin_parameter_copy(false);
  (void)rows.begin_step(10);
  PendingRow& b = rows.expect(11, true, 0, 0);
  b.copy_ticket = f.backend.begin_parameter_copy(false);
  CHECK(f.backend.copies_in_flight == 2);
  rows.drop();
  CHECK(f.backend.copies_in_flight == 0);
  CHECK(f.backend.copies_dropped == 2);
  CHECK_FALSE(rows.awaiting());
  PendingRow& c = rows.expect(12, true, 0, 0);
  c.copy_ticket = f.backend.begin_parameter_copy(false);
  rows.drop_due();
  CHECK(f.backend.copies_in_flight == 0);
  CHECK_FALSE(rows.due_at(12));
}
