/// Time to a picture on the CPU: trains one preset or config on one image and reports the training
/// time (measurements off the clock) until the share of pixels on the right side of 0.5 reaches
/// --target, or the PSNR reaches --psnr, or --time-limit runs out.
///   accuracy_bench --image FILE [--preset NAME | --config FILE] [--size N] [--color MODE]
///                  [--target 0.99] [--psnr DB] [--time-limit 60] [--check-every 25] [--threads N]
///                  [--steps N] [--lr X] [--quiet]   (--size N: longest side; --size WxH: exact)
/// Prints one line: preset image size steps seconds steps/s accuracy psnr reached.
#include "app/cli_openmp_env.h"
#include "bench/bench_grid.h"
#include "cpu/cpu_backend.h"
#include "engine/thread_budget.h"
#include "engine/images/image.h"
#include "engine/metrics.h"
#include "engine/training/trainer.h"
#include "app/cli_common.h"
#include "tests/cli_options.h"
#include "tests/tool_support.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace redraw;

namespace {

/// Fraction of values on the same side of 0.5 as the target's, and the PSNR (clamped to [0, 1]).
void score(Trainer& t, double& accuracy, double& psnr) {
  const Image& target = t.dataset().image;
  const Image pred = t.render(target.width, target.height);
  int64_t right = 0;
  double se = 0;
  for (size_t i = 0; i < target.pixels.size(); ++i) {
    right += (pred.pixels[i] >= 0.5f) == (target.pixels[i] >= 0.5f);
    const double d = double(std::clamp(pred.pixels[i], 0.0f, 1.0f)) - double(target.pixels[i]);
    se += d * d;
  }
  accuracy = double(right) / double(target.pixels.size());
  psnr = psnr_db(se / double(target.pixels.size()));
}

} // namespace

int main(int argc, char** argv) {
  redraw::cli::ensure_openmp_environment(argv); // as redraw does
  std::string image, preset = "classic", config, color;
  int32_t size = 200, width = 0, height = 0;
  double target = 0.99, target_psnr = 0, time_limit = 60, lr = 0;
  int64_t check_every = 25, steps = 0;
  int threads = 0;
  bool quiet = false;
  CLI::App app{"Time to a picture on the CPU: one preset or config on one image, to --target pixels right, --psnr "
               "or --time-limit",
               "accuracy_bench"};
  app.add_option("--image", image, "The picture trained on")->required();
  app.add_option("--preset", preset, "A preset")->capture_default_str();
  app.add_option("--config", config, "A run config file (instead of --preset)");
  app.add_option_function<std::string>(
      "--size",
      [&](const std::string& v) {
        try {
          if (v.find_first_of("xX") != std::string::npos)
            cli::parse_size(v, "--size", {k_max_train_side, k_max_train_pixels}, width, height);
          else if ((size = std::stoi(v)) < 1)
            throw cli::UsageError("--size: '" + v + "' must be at least 1");
        } catch (const cli::UsageError& e) {
          throw CLI::ValidationError(e.what());
        } catch (const std::exception&) { // stoi
          throw CLI::ValidationError("--size: '" + v + "' is not a side N or a size WxH");
        }
      },
      "Longest side N, or the exact size WxH (default 200)");
  app.add_option("--color", color, "Colour mode: auto, rgb, gray or binary");
  app.add_option("--target", target, "Share of pixels on the right side of 0.5 to reach (above 1: never)")
      ->capture_default_str();
  app.add_option("--psnr", target_psnr, "Or a PSNR to reach, in dB");
  app.add_option("--time-limit", time_limit, "Training seconds at most")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--check-every", check_every, "Steps between measurements")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--threads", threads, "Fixed CPU team size (0: measured)")->check(CLI::Range(0, 1024));
  app.add_option("--steps", steps, "The schedule's length (0: the preset's)")->check(CLI::NonNegativeNumber);
  app.add_option("--lr", lr, "lr_max (0: the preset's)")->check(CLI::NonNegativeNumber);
  app.add_flag("--quiet", quiet, "No progress on stderr");
  test::parse_or_exit(app, argc, argv);
  if (image.empty()) {
    std::fprintf(stderr, "accuracy_bench: --image is required\n");
    return 2;
  }
  try {
    if (threads > 0) set_cpu_threads(threads);
    RunConfig cfg = config.empty() ? load_preset(preset) : load_run_config(config);
    cfg.data.width = width;
    cfg.data.height = height;
    cfg.data.max_side = size;
    if (!color.empty()) cfg.data.color_mode = parse_color_mode(color);
    cfg.model.output_channels = channels_of(cfg.data.color_mode);
    if (steps > 0) cfg.training.steps = steps;
    if (lr > 0) cfg.schedule.lr_max = lr;
    if (const char* s = std::getenv("ACCURACY_FIRST_LAYER_SCALE")) cfg.model.first_layer_scale = float(std::atof(s));
    if (!quiet)
      std::fprintf(stderr, "accuracy_bench: GOMP_SPINCOUNT=%s OMP_WAIT_POLICY=%s threads=%s\n",
                   std::getenv("GOMP_SPINCOUNT") ? std::getenv("GOMP_SPINCOUNT") : "(unset)",
                   std::getenv("OMP_WAIT_POLICY") ? std::getenv("OMP_WAIT_POLICY") : "(unset)",
                   threads > 0 ? std::to_string(threads).c_str() : "measured");
    const Image img = prepare_training_image(image, cfg.data);
    bench::size_bench_grid(cfg, img.width, img.height, bench::GridSizing::Image);
    auto backend = std::make_unique<CpuBackend>();
    Backend* b = backend.get();
    const int64_t schedule_steps = cfg.training.steps;
    cfg.training.metrics_every = int64_t(1) << 40; // this loop measures itself, off the clock
    Trainer trainer(std::move(backend), cfg, Dataset{img});
    double train_s = 0, accuracy = 0, psnr = 0;
    score(trainer, accuracy, psnr);
    int64_t step = 0;
    auto reached = [&] { return target_psnr > 0 ? psnr >= target_psnr : accuracy >= target; };
    while (!reached() && train_s < time_limit) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int64_t i = 0; i < check_every; ++i, ++step) {
        StepArgs s;
        s.step = step;
        s.learning_rate = float(trainer.learning_rate_at(std::min(step, schedule_steps - 1)));
        b->train_step(s);
      }
      b->synchronize();
      train_s += test::seconds_since(t0);
      score(trainer, accuracy, psnr);
      if (!quiet)
        std::fprintf(stderr, "  step %6lld  %6.2f s  %.4f right  %.2f dB\n", static_cast<long long>(step), train_s,
                     accuracy, psnr);
    }
    std::printf("%s %s %dx%d steps %lld seconds %.2f steps/s %.2f right %.4f psnr %.2f %s\n",
                config.empty() ? preset.c_str() : config.c_str(), image.c_str(), img.width, img.height,
                static_cast<long long>(step), train_s, double(step) / std::max(1e-9, train_s), accuracy, psnr,
                reached() ? "reached" : "not-reached");
    return reached() ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "accuracy_bench: %s\n", e.what());
    return 2;
  }
}
