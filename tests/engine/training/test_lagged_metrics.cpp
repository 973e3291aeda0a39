// The trainer's lagged metrics (engine/training/lagged_rows.h), the GPU's way of measuring without
// waiting: a backend with BackendFeature::StepMetrics measures the dataset's error inside the step
// after a metrics point and hands it over with that step's loss, possibly steps later. Checked
// against the synchronous path on the CPU backend: the same weights, the same PSNR at every row,
// the same timelapse frames, the loss of the network each row measures, and recovery from a NaN.
#include "test_support.h"

#include "cpu/cpu_backend.h"
#include "engine/errors.h"
#include "engine/pixel_sample.h"
#include "engine/training/trainer.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <deque>

using namespace redraw;
using namespace redraw::test;

namespace {

/// The CPU backend behaving like the GPU: StepMetrics, and every recorded loss and every parameter
/// copy reaches the host only `delay` train steps later (or at synchronize(), or when waited for).
class LaggingBackend final : public CpuWrapperBackend {
public:
  explicit LaggingBackend(int delay) : m_delay(delay) {}
  std::string device_description() const override { return "cpu, lagging loss reports (test)"; }
  bool supports(BackendFeature f) const override { return f == BackendFeature::StepMetrics || m_cpu.supports(f); }
  void synchronize() override {
    for (auto& q : m_queue) q.steps_left = 0;
    for (auto& c : m_copies) c.steps_left = 0;
  }
  int recorded_with_mse = 0, recorded_sampled = 0;
  int copies_begun = 0, copies_waited = 0, copies_dropped = 0, parameter_reads = 0;
  size_t copies_in_flight() const { return m_copies.size(); }

protected:
  // As the GPU: a minibatch run on an image over the metric sample measures only those pixels.
  void configure_impl(const TrainSetup& setup, const Dataset& data) override {
    CpuWrapperBackend::configure_impl(setup, data);
    m_model = setup.model;
    m_fourier_b = fourier_matrix(setup.model.encoding, setup.seed);
    m_sample_xy.clear();
    m_sample_targets.clear();
    const PixelSample sample = stratified_pixel_sample(data.image.width, data.image.height, setup.metric_sample_pixels, 0);
    if (setup.batch_size <= 0 || sample.whole) return;
    const int32_t C = data.channels();
    for (const int64_t p : sample.indices) {
      float x = 0, y = 0;
      data.coordinate(p, x, y);
      m_sample_xy.insert(m_sample_xy.end(), {x, y});
      m_sample_targets.insert(m_sample_targets.end(), data.targets() + p * C, data.targets() + (p + 1) * C);
    }
  }
  void get_parameters_impl(std::vector<float>& out) override {
    ++parameter_reads;
    CpuWrapperBackend::get_parameters_impl(out);
  }
  int64_t begin_parameter_copy_impl(bool with_optimizer) override {
    Copy c{next_ticket(), {}, m_delay};
    c.value.params = m_cpu.parameters(); // the values at the call, as a device copy would take them
    if (with_optimizer) c.value.optimizer = m_cpu.optimizer_state();
    ++copies_begun;
    m_copies.push_back(std::move(c));
    return m_copies.back().ticket;
  }
  bool finish_parameter_copy_impl(int64_t ticket, ParameterCopy& out, bool wait) override {
    for (auto it = m_copies.begin(); it != m_copies.end(); ++it) {
      if (it->ticket != ticket) continue;
      if (it->steps_left > 0 && !wait) return false;
      if (it->steps_left > 0) ++copies_waited;
      out = std::move(it->value);
      m_copies.erase(it);
      return true;
    }
    throw BackendError("no such copy");
  }
  void drop_parameter_copy_impl(int64_t ticket) override {
    copies_dropped += int(std::erase_if(m_copies, [&](const Copy& c) { return c.ticket == ticket; }));
  }
  void train_step_impl(const StepArgs& args) override {
    for (auto& q : m_queue) q.steps_left = std::max(0, q.steps_left - 1);
    for (auto& c : m_copies) c.steps_left = std::max(0, c.steps_left - 1);
    double mse = std::numeric_limits<double>::quiet_NaN();
    if (args.record_mse) {
      mse = m_sample_xy.empty() ? m_cpu.dataset_mse() : sample_mse(); // the parameters this step starts from
      ++recorded_with_mse;
      recorded_sampled += m_sample_xy.empty() ? 0 : 1;
    }
    m_cpu.train_step(args);
    if (!args.record_loss) return;
    LossSample s = *m_cpu.poll_loss();
    s.mse = mse;
    s.mse_sampled = args.record_mse && !m_sample_xy.empty();
    m_queue.push_back({s, m_delay});
  }
  std::optional<LossSample> poll_loss_impl() override {
    std::optional<LossSample> newest;
    while (!m_queue.empty() && m_queue.front().steps_left == 0) {
      const bool flag = newest && newest->nonfinite;
      newest = m_queue.front().sample;
      newest->nonfinite = newest->nonfinite || flag;
      m_queue.pop_front();
    }
    return newest;
  }

private:
  double sample_mse() {
    std::vector<float> pred(m_sample_targets.size());
    m_cpu.predict(m_model, m_cpu.parameters(), m_fourier_b, m_sample_xy.data(), int64_t(m_sample_xy.size() / 2),
                  pred.data());
    double se = 0;
    for (size_t e = 0; e < pred.size(); ++e) {
      const double d = std::clamp(double(pred[e]), 0.0, 1.0) - double(m_sample_targets[e]);
      se += d * d;
    }
    return se / double(pred.size());
  }
  ModelSpec m_model;
  std::vector<float> m_fourier_b, m_sample_xy, m_sample_targets;
  struct Queued {
    LossSample sample;
    int steps_left = 0;
  };
  struct Copy {
    int64_t ticket = 0;
    ParameterCopy value;
    int steps_left = 0;
  };
  int m_delay;
  std::deque<Queued> m_queue;
  std::vector<Copy> m_copies;
};

struct Runs {
  std::vector<MetricsRow> sync_rows, lag_rows, lag_returned;
  std::vector<float> sync_params, lag_params;
  const SnapshotStore* sync_frames = nullptr;
  const SnapshotStore* lag_frames = nullptr;
};

} // namespace

TEST_CASE("lagged metrics: the same weights, PSNR and frames as measuring synchronously") {
  for (const int every : {1, 3}) {
    for (const int delay : {0, 1, 4}) {
      CAPTURE(every);
      CAPTURE(delay);
      RunConfig cfg = small_config(OptimizerKind::Adam, 0);
      cfg.training.steps = 40;
      cfg.training.metrics_every = every;
      const Image img = gradient_image(12, 10, 3);
      Trainer sync(std::make_unique<CpuBackend>(), cfg, Dataset{img});
      auto lagging = std::make_unique<LaggingBackend>(delay);
      LaggingBackend* lb = lagging.get();
      Trainer lag(std::move(lagging), cfg, Dataset{img});
      std::vector<MetricsRow> returned;
      for (int i = 0; i < 40; ++i) {
        (void)sync.step();
        if (auto r = lag.step()) returned.push_back(*r);
      }
      for (const auto& r : lag.flush_metrics()) returned.push_back(r);
      CHECK(lb->recorded_with_mse > 0);

      // Training is untouched by how metrics are taken.
      CHECK(sync.backend().parameters() == lag.backend().parameters());

      const auto& a = sync.record().rows();
      const auto& b = lag.record().rows();
      REQUIRE(a.size() == b.size());
      for (size_t i = 0; i < a.size(); ++i) {
        CHECK(b[i].step == a[i].step);
        CHECK(b[i].psnr_db == a[i].psnr_db); // the same network measured the same way
        CHECK(b[i].lr == a[i].lr);
      }
      // A lagged row's loss is the loss of the network it measures: the next step's training loss,
      // which the synchronous path shows one row later when rows are every step.
      if (every == 1)
        for (size_t i = 0; i + 1 < a.size(); ++i) CHECK(b[i].loss == doctest::Approx(a[i + 1].loss).epsilon(1e-12));
      // Every history row was handed out exactly once, in order.
      REQUIRE(returned.size() == b.size());
      for (size_t i = 0; i < b.size(); ++i) CHECK(returned[i].step == b[i].step);
      CHECK(b.back().step == 40);

      // Timelapse frames: the same steps, weights and PSNR.
      const auto& fa = sync.frames().store().frames();
      const auto& fb = lag.frames().store().frames();
      REQUIRE(fa.size() == fb.size());
      for (size_t i = 0; i < fa.size(); ++i) {
        CHECK(fb[i].metrics.step == fa[i].metrics.step);
        CHECK(fb[i].params == fa[i].params);
        CHECK(fb[i].optimizer.first == fa[i].optimizer.first);
        CHECK(fb[i].optimizer.second == fa[i].optimizer.second);
        CHECK(fb[i].optimizer_step == fa[i].optimizer_step);
        CHECK(fb[i].metrics.psnr_db == fa[i].metrics.psnr_db);
      }
      // Frames came through the backend's copies, none left behind.
      CHECK(lb->copies_begun > 0);
      CHECK(lb->copies_in_flight() == 0);
    }
  }
}

TEST_CASE("lagged metrics: a growing run relocates at the same steps, to the same weights and rows") {
  RunConfig cfg = load_preset("gaussians-grow");
  cfg.model.encoding.gaussians = 150;
  cfg.training.steps = 30;
  cfg.training.metrics_every = 5;
  cfg.training.grow = GrowSpec{.every = 10, .fraction = 0.1, .until = 0.8};
  const Image img = gradient_image(12, 10, 3);
  Trainer sync(std::make_unique<CpuBackend>(), cfg, Dataset{img});
  Trainer lag(std::make_unique<LaggingBackend>(2), cfg, Dataset{img});
  for (int i = 0; i < 30; ++i) {
    (void)sync.step();
    (void)lag.step();
  }
  (void)lag.flush_metrics();
  CHECK(sync.record().growth() == std::vector<GrowthEvent>{{10, 15}, {20, 15}});
  CHECK(lag.record().growth() == sync.record().growth());
  CHECK(sync.backend().parameters() == lag.backend().parameters());
  const auto& a = sync.record().rows();
  const auto& b = lag.record().rows();
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CAPTURE(a[i].step);
    CHECK(b[i].step == a[i].step);
    CHECK(b[i].psnr_db == a[i].psnr_db); // a row at a relocation's step measures the moved Gaussians on both
  }
}

TEST_CASE("lagged metrics: on an image over the metric sample, rows say sampled and match the synchronous estimate") {
  // 300 x 260 pixels, minibatch: the synchronous trainer estimates each row on its fixed sample;
  // a StepMetrics backend measures the same pixels inside the step, and the row says so.
  RunConfig cfg = small_config(OptimizerKind::Adam, 512);
  cfg.training.steps = 30;
  cfg.training.metrics_every = 5;
  const Image img = gradient_image(300, 260, 3);
  Trainer sync(std::make_unique<CpuBackend>(), cfg, Dataset{img});
  auto lagging = std::make_unique<LaggingBackend>(2);
  LaggingBackend* lb = lagging.get();
  Trainer lag(std::move(lagging), cfg, Dataset{img});
  for (int i = 0; i < 30; ++i) {
    (void)sync.step();
    (void)lag.step();
  }
  (void)lag.flush_metrics();
  CHECK(lb->recorded_sampled > 0);
  CHECK(lb->recorded_sampled == lb->recorded_with_mse);
  const auto& a = sync.record().rows();
  const auto& b = lag.record().rows();
  REQUIRE(a.size() == b.size());
  REQUIRE(a.size() >= 5);
  int sampled = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    CAPTURE(a[i].step);
    CHECK(a[i].step == b[i].step);
    CHECK(a[i].psnr_exact == b[i].psnr_exact);
    CHECK(std::abs(a[i].psnr_db - b[i].psnr_db) <= 1e-6);
    sampled += b[i].psnr_exact ? 0 : 1;
  }
  CHECK(sampled >= 4);
}

TEST_CASE("lagged metrics: timelapse frames are copied without waiting for the device") {
  RunConfig cfg = small_config(OptimizerKind::Adam, 0);
  cfg.training.steps = 40;
  cfg.training.metrics_every = 4;
  cfg.training.good_state_every = 1000; // no good-state reads either
  auto lagging = std::make_unique<LaggingBackend>(1);
  LaggingBackend* lb = lagging.get();
  Trainer lag(std::move(lagging), cfg, Dataset{gradient_image(12, 10, 3)});
  SnapshotPolicy every_four;
  every_four.per_octave = 0;
  every_four.every = 4;
  lag.set_snapshot_policy(every_four);
  (void)lag.step(); // the untrained network's frame and first row are taken at step 0, waiting
  const int reads_before = lb->parameter_reads;
  for (int i = 1; i < 36; ++i) (void)lag.step();
  CHECK(lb->copies_begun >= 8);
  CHECK(lb->copies_waited == 0);                   // each copy arrived while the steps went on
  CHECK(lb->parameter_reads == reads_before);      // and no frame read the parameters synchronously
  CHECK(lb->copies_in_flight() <= 2);
  (void)lag.flush_metrics();
  CHECK(lb->copies_in_flight() == 0);
  // Every frame holds the weights of its step: replaying the run on the plain CPU backend.
  Trainer sync(std::make_unique<CpuBackend>(), cfg, Dataset{gradient_image(12, 10, 3)});
  sync.set_snapshot_policy(every_four);
  for (int i = 0; i < 36; ++i) (void)sync.step();
  REQUIRE(sync.frames().store().size() == lag.frames().store().size());
  for (size_t i = 0; i < sync.frames().store().size(); ++i) {
    CHECK(lag.frames().frame(i).metrics.step == sync.frames().frame(i).metrics.step);
    CHECK(lag.frames().frame(i).params == sync.frames().frame(i).params);
  }
}

TEST_CASE("lagged metrics: a frame whose row is dropped leaves no copy in flight") {
  RunConfig cfg = small_config(OptimizerKind::Adam, 0);
  cfg.training.steps = 60;
  cfg.training.metrics_every = 5;
  cfg.training.good_state_every = 10;
  auto lagging = std::make_unique<LaggingBackend>(3);
  LaggingBackend* lb = lagging.get();
  Trainer lag(std::move(lagging), cfg, Dataset{gradient_image(12, 10, 1)});
  lag.inject_nan_after_step(33); // the recovery drops the rows (and frames) in flight
  while (lag.current_step() < 60) (void)lag.step();
  (void)lag.flush_metrics();
  REQUIRE(lag.take_new_recoveries().size() == 1);
  CHECK(lb->copies_in_flight() == 0);
  for (const auto& f : lag.frames().store().frames())
    for (float v : f.params) REQUIRE(std::isfinite(v));
}

TEST_CASE("lagged metrics: a NaN found a step late still rolls back and the run ends finite") {
  RunConfig cfg = small_config(OptimizerKind::Adam, 0);
  cfg.training.steps = 60;
  cfg.training.metrics_every = 5;
  cfg.training.good_state_every = 10;
  Trainer lag(std::make_unique<LaggingBackend>(2), cfg, Dataset{gradient_image(12, 10, 1)});
  lag.inject_nan_after_step(33);
  while (lag.current_step() < 60) (void)lag.step();
  (void)lag.flush_metrics();
  const auto rec = lag.take_new_recoveries();
  REQUIRE(rec.size() == 1);
  CHECK(rec[0].rolled_back_to <= 33);
  for (float v : lag.backend().parameters()) REQUIRE(std::isfinite(v));
  for (const auto& r : lag.record().rows()) CHECK(std::isfinite(r.psnr_db));
  CHECK(lag.record().rows().back().step == 60);
}

TEST_CASE("lagged metrics: measure() and checkpoint() settle the rows in flight first") {
  RunConfig cfg = small_config(OptimizerKind::Adam, 0);
  cfg.training.steps = 30;
  cfg.training.metrics_every = 5;
  Trainer lag(std::make_unique<LaggingBackend>(3), cfg, Dataset{gradient_image(8, 8, 1)});
  for (int i = 0; i < 20; ++i) (void)lag.step();
  const Checkpoint c = lag.checkpoint("x.png");
  REQUIRE_FALSE(c.history.empty());
  CHECK(c.history.back().step == 20); // the row for step 20 was due; the checkpoint measured it
  for (size_t i = 1; i < c.history.size(); ++i) CHECK(c.history[i].step > c.history[i - 1].step);
  const MetricsRow m = lag.measure();
  CHECK(m.step == 20);
  CHECK(lag.record().rows().back().step == 20);
}
