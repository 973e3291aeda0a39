/// The CPU step of the trained primitives (`gaussians`, `sad`) beside the hash grid's (`instant`), in one
/// run, on the same samples of the default image at N x N (the full batch, or minibatches of B
/// drawn from it), so a busy machine slows every row.
///   primitive_step_bench [--size N] [--batch B] [--gaussians G] [--seconds S] [--threads T]
///                        [--rounds R] [--presets instant,gaussians[,sad]]
/// Prints one row per preset and round: its parameters, ms per step (the median of its rounds
/// below the table), the step's phases (StepProfile: forward, backward, update) and the ratio of
/// its step to the first preset's. Floor: a `gaussians` step of 16,384 pixels (--size 128) at
/// 37,500 Gaussians, and a `sad` step at the preset's 24,000 sites, cost at most 2x the hash grid's.
#include "bench/bench_grid.h"
#include "cpu/cpu_backend.h"
#include "engine/images/image.h"
#include "engine/run_config.h"
#include "engine/thread_budget.h"
#include "engine/training/trainer.h"
#include "tests/tool_support.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

using namespace redraw;
using redraw::test::seconds_since;

namespace {

struct StepTiming {
  int64_t params = 0;
  double step_ms = 0, forward_ms = 0, backward_ms = 0, update_ms = 0;
};

/// Steps a Trainer of `cfg` on `img` for at least `seconds` after two warm-up steps, with no
/// timelapse frames (early in a run they are taken every few steps, each a render and a PSNR pass).
StepTiming time_steps(const RunConfig& cfg, const Image& img, double seconds) {
  Trainer t(std::make_unique<CpuBackend>(), cfg, Dataset{img});
  SnapshotPolicy no_frames;
  no_frames.enabled = false;
  t.set_snapshot_policy(no_frames);
  t.step();
  t.step();
  (void)t.backend().take_step_profile();
  int64_t steps = 0;
  const auto t0 = std::chrono::steady_clock::now();
  do {
    t.step();
    ++steps;
  } while (seconds_since(t0) < seconds);
  const double elapsed = seconds_since(t0);
  const StepProfile p = t.backend().take_step_profile();
  const auto ms = [&](double s) { return p.steps > 0 ? 1e3 * s / double(p.steps) : 0.0; };
  return {parameter_count(t.config().model), 1e3 * elapsed / double(steps), ms(p.forward_s), ms(p.backward_s),
          ms(p.update_s)};
}

} // namespace

int main(int argc, char** argv) {
  int32_t size = 128, threads = 0, rounds = 3;
  int64_t batch = 0;
  int64_t gaussians = 37500;
  double seconds = 3.0;
  std::vector<std::string> presets = {"instant", "gaussians"};
  CLI::App cli{"The CPU step of gaussians beside instant's, on the same full batch", "primitive_step_bench"};
  cli.add_option("--size", size, "Training size (a square of the default image)")->check(CLI::Range(8, 4096));
  cli.add_option("--batch", batch, "Samples a step (0: the full batch)")->check(CLI::Range(0, 1 << 24));
  cli.add_option("--gaussians", gaussians, "model.gaussians")->check(CLI::Range(1, 4000000));
  cli.add_option("--seconds", seconds, "Least time per measurement")->check(CLI::PositiveNumber);
  cli.add_option("--threads", threads, "Fixed team size (0: measured)")->check(CLI::Range(0, 1024));
  cli.add_option("--rounds", rounds, "Rounds, each timing the presets in turn")->check(CLI::Range(1, 100));
  cli.add_option("--presets", presets, "Presets to time, the first the one the others are divided by")
      ->delimiter(',')
      ->check(CLI::IsMember(preset_names()));
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e);
  }
  set_cpu_threads(threads);
  CpuBackend probe;
  std::printf("CPU backend: %s; %dx%d = %d samples, steps of %lld (%s), %lld Gaussians, >= %.1f s per measurement\n\n",
              probe.device_description().c_str(), size, size, size * size,
              static_cast<long long>(batch > 0 ? batch : int64_t(size) * size), batch > 0 ? "minibatches" : "full batch",
              static_cast<long long>(gaussians), seconds);
  std::vector<std::vector<double>> step_ms(presets.size());
  const std::string first = presets.front();
  std::printf("| round | preset    | params  | ms/step | forward ms | backward ms | update ms | / %-9s |\n", first.c_str());
  std::printf("|-------|-----------|---------|---------|------------|-------------|-----------|-------------|\n");
  for (int32_t r = 1; r <= rounds; ++r) {
    double first_ms = 0;
    for (size_t k = 0; k < presets.size(); ++k) {
      RunConfig cfg = load_preset(presets[k]);
      cfg.data.width = cfg.data.height = size;
      bench::size_bench_grid(cfg, size, size, bench::GridSizing::Image);
      cfg.model.encoding.gaussians = gaussians; // read by the Gaussians' family alone
      cfg.training.batch_size = batch; // 0, the full batch: every row steps the same samples
      cfg.training.cpu_batch_size = -1;
      cfg.training.metrics_every = int64_t(1) << 40; // no PSNR pass inside the timing
      cfg.training.steps = int64_t(1) << 40;
      const Image img = prepare_training_image(default_image_path(), cfg.data);
      const StepTiming t = time_steps(cfg, img, seconds);
      if (k == 0) first_ms = t.step_ms;
      step_ms[k].push_back(t.step_ms);
      std::printf("| %5d | %-9s | %7lld | %7.2f | %10.2f | %11.2f | %9.2f | %10.2fx |\n", r, presets[k].c_str(),
                  static_cast<long long>(t.params), t.step_ms, t.forward_ms, t.backward_ms, t.update_ms,
                  t.step_ms / first_ms);
      std::fflush(stdout);
    }
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  };
  std::printf("\nmedian ms a step:");
  for (size_t k = 0; k < presets.size(); ++k) std::printf(" %s %.2f", presets[k].c_str(), median(step_ms[k]));
  std::printf("\n");
  for (size_t k = 1; k < presets.size(); ++k)
    std::printf("%s / %s = %.2fx%s\n", presets[k].c_str(), first.c_str(), median(step_ms[k]) / median(step_ms[0]),
                (presets[k] == "gaussians" || presets[k] == "sad") && first == "instant" ? " (floor 2x)" : "");
  return 0;
}
