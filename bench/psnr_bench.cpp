/// Time to PSNR: trains each preset on one image and reports training samples/s and the training
/// time (measurements excluded) at which the whole-image PSNR first reached each target.
///   psnr_bench [--image FILE] [--size WxH] [--presets instant,fourier,siren] [--backend cpu|cuda|auto]
///              [--precision auto|fp32|tf32|bf16] [--targets 25,30,35] [--time-limit S] [--json FILE]
///              [--rerun-check STEPS]
/// - The PSNR is measured on the whole training image with the clock paused, at training times
///   spaced about --measure-every seconds apart (0.25 by default), so a reported time is at most
///   that much later than the moment the target was crossed.
/// - Each preset trains until every target is reached or --time-limit seconds of training have
///   passed, past its configured step count if need be (the schedule then stays at lr_min).
/// - --rerun-check N trains the first preset twice for N steps and says whether the two runs' final
///   parameters are bit-identical (the CPU's promise).
/// - A hash grid is sized to the training image as a user's run sizes it (bench/bench_grid.h); each
///   JSON row carries the resolved grid ("grid").
/// - Without a usable device, --backend cuda prints "SKIPPED: no CUDA device" and exits 0.
#include "app/backend_registry.h"
#include "bench/bench_grid.h"
#include "engine/backend_names.h"
#include "engine/errors.h"
#include "engine/images/image.h"
#include "engine/run_config.h"
#include "engine/training/trainer.h"
#include "app/cli_common.h"
#include "tests/cli_options.h"
#include "tests/tool_support.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

using namespace redraw;

namespace {

struct Options : test::BenchOptions {
  Options() {
    presets = {"instant", "fourier", "siren"};
    time_limit = 120;
  }
  std::string image = std::string(REDRAW_ASSET_DIR) + "/../tests/data/chelsea.png";
  int32_t width = 512, height = 512;
  std::string backend = k_cpu_backend.name;
  std::vector<double> targets = {25, 30, 35};
  double measure_every = 0.25;
  int64_t rerun_steps = 0;
};

Options parse(int argc, char** argv) {
  Options o;
  CLI::App app{"Time to a PSNR per preset (see the comment at the top of bench/psnr_bench.cpp)", "psnr_bench"};
  o.add_to(app);
  app.add_option("--image", o.image, "The picture trained on")->capture_default_str();
  app.add_option_function<std::string>(
         "--size",
         [&](const std::string& v) {
           try {
             cli::parse_size(v, "--size", {k_max_train_side, k_max_train_pixels}, o.width, o.height);
           } catch (const cli::UsageError& e) {
             throw CLI::ValidationError(e.what());
           }
         },
         "Training size WxH (default 512x512)");
  app.add_option("--backend", o.backend, backend_choices_text())->check(CLI::IsMember(backend_choices()));
  app.add_option("--targets", o.targets, "PSNR targets in dB, comma-separated")->delimiter(',');
  app.add_option("--measure-every", o.measure_every, "Seconds of training between measurements")
      ->check(CLI::PositiveNumber);
  app.add_option("--rerun-check", o.rerun_steps, "Steps of a second run that must repeat the first")
      ->check(CLI::NonNegativeNumber);
  test::parse_or_exit(app, argc, argv);
  return o;
}

RunConfig config_for(const std::string& preset, const Options& o) {
  RunConfig c = load_preset(preset);
  c.data.width = o.width;
  c.data.height = o.height;
  c.training.metrics_every = int64_t(1) << 40; // this loop measures itself, with the clock paused
  return c;
}

nlohmann::json run_preset(const std::string& preset, const Options& o) {
  RunConfig cfg = config_for(preset, o);
  const Image img = prepare_training_image(o.image, cfg.data);
  bench::size_bench_grid(cfg, img.width, img.height, bench::GridSizing::Image);
  std::string notice;
  Trainer t(make_backend(o.backend, &notice, o.precision), cfg, Dataset{img});
  t.set_snapshot_policy(SnapshotPolicy{false, false, 0, 0}); // no timelapse copies inside the timing
  const int64_t batch = backend_batch(cfg.training, t.backend().name()) > 0 ? backend_batch(cfg.training, t.backend().name())
                                                                           : int64_t(img.width) * img.height;
  std::vector<double> reached(o.targets.size(), -1.0);
  std::vector<int64_t> reached_step(o.targets.size(), -1);
  double best = 0, last_measure = 0;
  int64_t every = 1; // steps between measurements, doubled while they come too often
  auto all_reached = [&] {
    for (double r : reached)
      if (r < 0) return false;
    return true;
  };
  while (!all_reached() && t.clock().elapsed() < o.time_limit) {
    for (int64_t i = 0; i < every; ++i)
      t.step();
    t.pause_clock(); // synchronises; the measurement below is not training time
    const double seconds = t.clock().elapsed();
    const double psnr = psnr_from_mse(t.backend().dataset_mse());
    best = std::max(best, psnr);
    for (size_t k = 0; k < o.targets.size(); ++k)
      if (reached[k] < 0 && psnr >= o.targets[k]) {
        reached[k] = seconds;
        reached_step[k] = t.current_step();
      }
    if (seconds - last_measure < o.measure_every) every *= 2;
    last_measure = seconds;
  }
  const double seconds = t.clock().elapsed();
  nlohmann::json r;
  r["preset"] = preset;
  r["backend"] = t.backend().name();
  r["device"] = t.backend().device_description();
  r["size"] = std::to_string(img.width) + "x" + std::to_string(img.height) + "x" + std::to_string(img.channels);
  r["parameters"] = parameter_count(t.config().model);
  r["grid"] = bench::grid_json(t.config().model.encoding, bench::GridSizing::Image);
  r["batch"] = batch;
  r["steps"] = t.current_step();
  r["train_seconds"] = seconds;
  r["samples_per_s"] = double(t.current_step()) * double(batch) / std::max(seconds, 1e-9);
  r["best_psnr_db"] = best;
  nlohmann::json hits = nlohmann::json::array();
  for (size_t k = 0; k < o.targets.size(); ++k)
    hits.push_back({{"target_db", o.targets[k]},
                    {"seconds", reached[k] >= 0 ? nlohmann::json(reached[k]) : nlohmann::json(nullptr)},
                    {"step", reached_step[k]}});
  r["time_to_psnr"] = hits;
  return r;
}

bool rerun_identical(const std::string& preset, const Options& o) {
  RunConfig cfg = config_for(preset, o);
  const Image img = prepare_training_image(o.image, cfg.data);
  bench::size_bench_grid(cfg, img.width, img.height, bench::GridSizing::Image);
  std::vector<float> first;
  for (int k = 0; k < 2; ++k) {
    Trainer t(make_backend(o.backend, nullptr, o.precision), cfg, Dataset{img});
    t.run(o.rerun_steps);
    if (k == 0)
      first = t.parameters();
    else
      return first == t.parameters();
  }
  return false;
}

} // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    if (is_gpu_backend(o.backend) && !gpu_usable_for(o.backend)) {
      std::printf("psnr_bench: SKIPPED: no CUDA device\n");
      return 0;
    }
    std::printf("image %s at %dx%d, backend %s, training time limit %.0f s per preset\n\n", o.image.c_str(), o.width,
                o.height, o.backend.c_str(), o.time_limit);
    std::printf("| preset  | params     | batch   | steps  | samples/s  | best PSNR |");
    for (double t : o.targets)
      std::printf(" %2.0f dB    |", t);
    std::printf("\n|---------|------------|---------|--------|------------|-----------|");
    for (size_t k = 0; k < o.targets.size(); ++k)
      std::printf("----------|");
    std::printf("\n");
    nlohmann::json results = nlohmann::json::array();
    for (const auto& preset : o.presets) {
      const nlohmann::json r = run_preset(preset, o);
      std::printf("| %-7s | %10lld | %7lld | %6lld | %10.3g | %6.2f dB |", preset.c_str(),
                  (long long)r["parameters"].get<int64_t>(), (long long)r["batch"].get<int64_t>(),
                  (long long)r["steps"].get<int64_t>(), r["samples_per_s"].get<double>(),
                  r["best_psnr_db"].get<double>());
      for (const auto& h : r["time_to_psnr"])
        if (h["seconds"].is_null())
          std::printf(" >%6.0f s |", o.time_limit);
        else
          std::printf(" %7.2f s |", h["seconds"].get<double>());
      std::printf("\n");
      std::fflush(stdout);
      results.push_back(r);
    }
    if (!results.empty()) std::printf("\ndevice: %s\n", results[0]["device"].get<std::string>().c_str());
    if (o.rerun_steps > 0 && !o.presets.empty()) {
      const bool same = rerun_identical(o.presets.front(), o);
      std::printf("%s: two runs of %lld steps from the same seed are %s\n", o.presets.front().c_str(),
                  (long long)o.rerun_steps, same ? "bit-identical" : "NOT bit-identical");
      results.push_back({{"rerun_check", o.presets.front()}, {"steps", o.rerun_steps}, {"identical", same}});
    }
    if (!o.json_file.empty()) std::ofstream(o.json_file) << results.dump(2) << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
