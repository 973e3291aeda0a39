/// CPU training throughput per preset, beside the OpenBLAS sgemm rate measured in the same run on
/// the same matrix shapes (the chunks and layers of one training step).
///   cpu_bench [--size N] [--seconds S] [--threads T] [--preset-batch] [--no-sgemm] [--preset NAME]...
/// --threads: a fixed team (default: measured); --preset-batch: each preset's own CPU batch
/// (default: full batch); --no-sgemm: training only (the sgemm columns print 0).
/// Prints one table row per preset: steps/s, samples/s, the step's dense GFLOP/s (6 flops per
/// weight per sample: forward, input gradient, weight gradient), the sgemm-only GFLOP/s for the
/// same shapes, their ratio (how close the step gets to its matrix products alone), and the
/// step's phases in ms (StepProfile: gather and forward, backward, optimizer update). A hash
/// grid is sized to the N x N image as a run sizes it (entries per level and finest level), so
/// `--size 4899 --preset instant --preset-batch` is a 24-megapixel run's step.
#include "bench/bench_grid.h"
#include "cpu/cpu_backend.h"
#include "engine/backend_names.h"
#include "engine/thread_budget.h"
#include "engine/training/trainer.h"
#include "tests/tool_support.h"

#include <CLI/CLI.hpp>

#include <cblas.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

using namespace redraw;
using redraw::test::seconds_since;
using clock_type = std::chrono::steady_clock;

namespace {

/// CPU seconds this process has used (all threads).
double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

/// Runs exactly the sgemm calls of one training step (every chunk, every layer, forward and backward).
double sgemm_rate(const ModelSpec& model, int64_t samples, double min_seconds) {
  const auto layers = dense_layers(model);
  const int64_t chunk = std::min(samples, CpuBackend::k_chunk_rows);
  int32_t widest = model.encoding.width();
  for (const auto& L : layers) widest = std::max({widest, L.in, L.out});
  std::vector<float> a(size_t(chunk) * widest, 0.01f), b(size_t(chunk) * widest, 0.02f), c(size_t(chunk) * widest);
  std::vector<float> w(size_t(widest) * widest, 0.03f), dw(size_t(widest) * widest);
  auto one_step = [&] {
    for (int64_t r0 = 0; r0 < samples; r0 += chunk) {
      const int rows = int(std::min(chunk, samples - r0));
      for (const auto& L : layers)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, L.out, L.in, 1.0f, a.data(), L.in, w.data(), L.in, 0.0f,
                    c.data(), L.out);
      for (size_t li = layers.size(); li-- > 0;) {
        const auto& L = layers[li];
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, L.out, L.in, rows, 1.0f, b.data(), L.out, a.data(), L.in,
                    r0 == 0 ? 0.0f : 1.0f, dw.data(), L.in);
        if (li > 0)
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, L.in, L.out, 1.0f, b.data(), L.out, w.data(), L.in,
                      0.0f, c.data(), L.in);
      }
    }
  };
  // The reference is OpenBLAS's own multi-threaded sgemm on all cores (the backend runs it
  // single-threaded inside its own row-parallel regions).
  openblas_set_num_threads(openblas_get_num_procs());
  one_step();
  int reps = 0;
  const auto t0 = clock_type::now();
  do {
    one_step();
    ++reps;
  } while (seconds_since(t0) < min_seconds);
  const double elapsed = seconds_since(t0);
  openblas_set_num_threads(1);
  int64_t flops = 0; // forward + weight gradient for every layer; input gradient for all but the first
  for (size_t li = 0; li < layers.size(); ++li)
    flops += 2 * int64_t(layers[li].in) * layers[li].out * (li == 0 ? 2 : 3);
  return double(flops) * double(samples) * reps / elapsed / 1e9;
}

int64_t step_flops_per_sample(const ModelSpec& model) {
  const auto layers = dense_layers(model);
  int64_t flops = 0;
  for (size_t li = 0; li < layers.size(); ++li)
    flops += 2 * int64_t(layers[li].in) * layers[li].out * (li == 0 ? 2 : 3);
  return flops;
}

} // namespace

int main(int argc, char** argv) {
  int32_t size = 128, threads = 0;
  double seconds = 3.0;
  std::vector<std::string> presets;
  bool preset_batch = false, no_sgemm = false;
  CLI::App cli{"The CPU backend's training step per preset, against OpenBLAS's sgemm on the same shapes", "cpu_bench"};
  cli.add_option("--size", size, "Training size (a square of the default image)")->check(CLI::Range(1, 16384));
  cli.add_option("--seconds", seconds, "Least time per measurement")->check(CLI::PositiveNumber);
  cli.add_option("--threads", threads, "Fixed team size (0: measured)")->check(CLI::Range(0, 1024));
  cli.add_flag("--preset-batch", preset_batch, "Each preset's CPU minibatch instead of the full batch");
  cli.add_flag("--no-sgemm", no_sgemm, "Skip the sgemm reference");
  cli.add_option("--preset", presets, "A preset to time (repeatable; default classic, siren, fourier)");
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e);
  }
  set_cpu_threads(threads);
  const bool sgemm = !no_sgemm;
  if (presets.empty()) presets = {"classic", "siren", "fourier"};
  CpuBackend probe;
  std::printf("CPU backend: %s; training size %dx%d, %s, >= %.0f s per measurement\n\n",
              probe.device_description().c_str(), size, size, preset_batch ? "each preset's CPU batch" : "full batch",
              seconds);
  for (const auto& name : presets) { // the grids the table's rows train, as a user's run at this size
    RunConfig cfg = load_preset(name);
    bench::size_bench_grid(cfg, size, size, bench::GridSizing::Image);
    if (bench::has_grid(cfg.model.encoding))
      std::printf("grid of %s: %s\n", name.c_str(), describe_hash_grid(summarize_hash_grid(cfg.model.encoding)).c_str());
  }
  std::printf("| preset  | params  | steps/s | samples/s  | step GFLOP/s | sgemm GFLOP/s (same shapes) | step / sgemm | CPU ms/step "
              "| forward ms | backward ms | update ms |\n");
  std::printf("|---------|---------|---------|------------|--------------|-----------------------------|--------------|-------------"
              "|------------|-------------|-----------|\n");
  for (const auto& name : presets) {
    RunConfig cfg = load_preset(name);
    cfg.data.width = cfg.data.height = size;
    bench::size_bench_grid(cfg, size, size, bench::GridSizing::Image);
    cfg.training.batch_size = preset_batch ? backend_batch(cfg.training, k_cpu_backend.name) : 0;
    cfg.training.cpu_batch_size = -1;
    cfg.training.metrics_every = int64_t(1) << 40; // no PSNR pass inside the timing
    cfg.training.steps = int64_t(1) << 40;
    const Image img = prepare_training_image(default_image_path(), cfg.data);
    Trainer t(std::make_unique<CpuBackend>(), cfg, Dataset{img});
    t.step(); // warm-up (first step also records metrics)
    t.step();
    int64_t steps = 0;
    (void)t.backend().take_step_profile();
    const auto t0 = clock_type::now();
    const double cpu0 = process_cpu_seconds();
    do {
      t.step();
      ++steps;
    } while (seconds_since(t0) < seconds);
    const double elapsed = seconds_since(t0);
    const StepProfile phases = t.backend().take_step_profile();
    const auto ms = [&](double s) { return phases.steps > 0 ? 1e3 * s / double(phases.steps) : 0.0; };
    const double cpu_per_step = (process_cpu_seconds() - cpu0) / double(steps);
    const int64_t batch = t.config().training.batch_size;
    const int64_t per_step = batch > 0 ? std::min<int64_t>(batch, t.dataset().size()) : t.dataset().size();
    const double samples = double(per_step);
    const double sps = double(steps) / elapsed;
    const double gflops = double(step_flops_per_sample(t.config().model)) * samples * sps / 1e9;
    const double gemm = sgemm ? sgemm_rate(t.config().model, per_step, seconds) : 0.0;
    std::printf("| %-7s | %7lld | %7.2f | %10.0f | %12.1f | %27.1f | %11.0f%% | %11.2f | %10.2f | %11.2f | %9.2f |\n",
                name.c_str(), static_cast<long long>(parameter_count(t.config().model)), sps, sps * samples, gflops,
                gemm, gemm > 0 ? 100.0 * gflops / gemm : 0.0, 1e3 * cpu_per_step, ms(phases.forward_s),
                ms(phases.backward_s), ms(phases.update_s));
    std::fflush(stdout);
  }
  return 0;
}
