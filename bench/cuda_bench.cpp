// CUDA training benchmark: for each preset and size, steps/s, samples/s, achieved TFLOP/s against
// cuBLAS sgemm on the same product shapes measured in the same run, and the time the GPU spends
// outside kernels (launch gaps), from CUDA events. With --accuracy IMAGE it also times how long each
// preset takes to get 99% of pixels right after thresholding (the original workload: binary, 200x200).
//
//   cuda_bench [--presets classic,siren,fourier,instant] [--sizes 200,256,512] [--steps 200]
//              [--precision auto|fp32|tf32|bf16] [--grids image,preset]
//              [--backwards per-sample,shared-dense] [--json FILE]
//              [--accuracy IMAGE [--target 0.99] [--time-limit 10] [--accuracy-steps N]]
//
// A hash grid is sized to the training size as a user's run sizes it (--grids image, the default);
// --grids preset also times the preset's unsized grid (2^17 rows, scale 1.5: bench/bench_grid.h).
// --backwards times each named hash-grid backward (cuda/hash_grid_choice.h) in turn, in this one
// process; without it the process's choice (REDRAW_HASH_GRID_BACKWARD, else the default) runs.
// Every throughput row names its grid ("grid": levels, dense levels, rows, scale) and backward, and
// the JSON is rewritten after each row, so a run that dies keeps the rows before.
// Without a CUDA device (or in a build without CUDA) it prints one "SKIPPED: no CUDA device" line
// and exits 0.
#include "app/backend_registry.h"
#include "bench/bench_grid.h"
#include "engine/errors.h"
#include "engine/images/image.h"
#include "engine/run_config.h"
#include "engine/training/trainer.h"
#include "tests/cli_options.h"
#include "tests/tool_support.h"

#if REDRAW_HAVE_CUDA
#include "cuda/cuda_backend.h"
#include "cuda/hash_grid_choice.h"
#endif

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

using namespace redraw;

namespace {

struct Options : test::BenchOptions {
  Options() {
    presets = {"classic", "siren", "fourier"};
    precision = "auto"; // auto: the fused fp16 MLP for narrow nets (instant), fp32 cuBLAS otherwise
    time_limit = 10.0;
  }
  std::vector<int32_t> sizes; ///< empty: each preset's reference size, then 512
  std::vector<std::string> grids = {"image"}; ///< bench::GridSizing names
  std::vector<std::string> backwards;         ///< hash-grid backward kernels; empty: the process's
  int64_t steps = 200;
  std::string accuracy_image;
  double target = 0.99;
  int64_t accuracy_steps = 0; ///< overrides training.steps (the cosine period) in accuracy runs
};

Options parse(int argc, char** argv) {
  Options o;
  CLI::App app{"The CUDA backend's steps per preset against cuBLAS on the same shapes, and optionally the time to "
               "an accuracy",
               "cuda_bench"};
  o.add_to(app);
  app.add_option("--sizes", o.sizes, "Training sizes, comma-separated (default: each preset's reference size, 512)")
      ->delimiter(',')
      ->check(CLI::Range(1, 16384));
  app.add_option("--steps", o.steps, "Steps timed per size")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--grids", o.grids, "Hash grids: image (sized as a user's run), preset (unsized), comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember({"image", "preset"}))
      ->capture_default_str();
  app.add_option("--backwards", o.backwards, "Hash-grid backward kernels to time in turn, comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember({"per-sample", "atomic", "warp-aggregated", "shared-dense"}));
  app.add_option("--accuracy", o.accuracy_image, "Also train on this image to --target pixels right");
  app.add_option("--target", o.target, "Share of pixels right for --accuracy (above 1: never)")->capture_default_str();
  app.add_option("--accuracy-steps", o.accuracy_steps, "The schedule's length in accuracy runs (0: the preset's)")
      ->check(CLI::NonNegativeNumber);
  test::parse_or_exit(app, argc, argv);
  return o;
}

[[maybe_unused]] int32_t reference_size(const std::string& preset) { return preset == "classic" ? 200 : 256; }

} // namespace

#if REDRAW_HAVE_CUDA

namespace {

/// The step's matrix products in cuBLAS's column-major terms (as cuda/matmul.cpp issues them).
std::vector<GemmShape> step_shapes(const ModelSpec& model, int64_t rows) {
  std::vector<GemmShape> shapes;
  const auto layers = dense_layers(model);
  for (size_t l = 0; l < layers.size(); ++l) {
    const auto& L = layers[l];
    shapes.push_back({L.out, int32_t(rows), L.in, true, false});  // forward
    shapes.push_back({L.in, L.out, int32_t(rows), false, true});  // weight gradient
    if (l > 0) shapes.push_back({L.in, int32_t(rows), L.out, false, false}); // input gradient
  }
  return shapes;
}

nlohmann::json bench_one(const std::string& preset, int32_t size, bench::GridSizing grid, const Options& o) {
  RunConfig cfg = load_preset(preset);
  bench::size_bench_grid(cfg, size, size, grid);
  const int32_t channels = channels_of(cfg.data.color_mode);
  auto backend = std::make_unique<CudaBackend>(0);
  backend->set_precision(parse_cuda_precision(o.precision));
  CudaBackend* cb = backend.get();
  Trainer trainer(std::move(backend), cfg, Dataset{test::busy_pattern(size, size, channels)});
  const int64_t batch = cfg.training.batch_size > 0 ? cfg.training.batch_size : int64_t(size) * size;

  // Wall clock over o.steps steps (host enqueue + device, one synchronize at the end).
  StepArgs args;
  args.learning_rate = float(cfg.schedule.lr_max);
  for (int64_t i = 0; i < 3; ++i, ++args.step) cb->train_step(args); // eager warm-up + graph capture
  cb->synchronize();
  const auto t0 = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < o.steps; ++i, ++args.step) cb->train_step(args);
  cb->synchronize();
  const double wall = test::seconds_since(t0);
  const CudaStepProfile prof = cb->profile_steps(args, o.steps);

  const auto shapes = step_shapes(trainer.config().model, std::min<int64_t>(batch, int64_t(1) << 18));
  double flops_per_pass = 0;
  for (const auto& s : shapes) flops_per_pass += s.flops();
  const double chunks = std::ceil(double(batch) / double(std::min<int64_t>(batch, int64_t(1) << 18)));
  const double flops_per_step = flops_per_pass * chunks;
  const double gemm_s = cuda_sgemm_seconds(shapes, parse_cuda_precision(o.precision), 20) * chunks;

  const double steps_per_s = double(o.steps) / wall;
  nlohmann::json r;
  r["impl"] = "redraw-cuda";
  r["preset"] = preset;
  r["size"] = size;
  r["batch"] = batch;
  r["precision"] = o.precision;
  r["parameters"] = parameter_count(trainer.config().model);
  r["grid"] = bench::grid_json(trainer.config().model.encoding, grid);
  r["hash_grid_backward"] = cuda::hash_grid_backward_kernel_name(cuda::hash_grid_kernels().backward);
  r["steps_per_s"] = steps_per_s;
  r["samples_per_s"] = steps_per_s * double(batch);
  r["gpu_ms_per_step_graph"] = prof.graph_ms_per_step;
  r["gpu_ms_per_step_eager"] = prof.eager_ms_per_step;
  r["kernel_ms_per_step"] = prof.kernel_ms_per_step;
  r["launch_gap_ms_graph"] = std::max(0.0, prof.graph_ms_per_step - prof.kernel_ms_per_step);
  r["launch_gap_ms_eager"] = std::max(0.0, prof.eager_ms_per_step - prof.kernel_ms_per_step);
  r["host_enqueue_us_per_step"] = prof.host_enqueue_us_per_step;
  r["tflops"] = flops_per_step * steps_per_s * 1e-12;
  r["cublas_tflops_same_shapes"] = flops_per_step / gemm_s * 1e-12;
  r["cublas_ms_per_step"] = gemm_s * 1e3;
  nlohmann::json ops = nlohmann::json::object();
  for (const auto& [name, ms] : prof.per_op_ms) ops[name] = ms;
  r["per_op_ms"] = ops;
  return r;
}

/// Fraction of pixels whose prediction lands on the right side of 0.5.
double pixel_accuracy(Trainer& t) {
  const Image& target = t.dataset().image;
  const Image pred = t.render(target.width, target.height);
  int64_t right = 0;
  for (size_t i = 0; i < target.pixels.size(); ++i) right += (pred.pixels[i] >= 0.5f) == (target.pixels[i] >= 0.5f);
  return double(right) / double(target.pixels.size());
}

nlohmann::json accuracy_one(const std::string& preset, const Options& o) {
  RunConfig cfg = load_preset(preset);
  cfg.data.color_mode = ColorMode::Binary;
  cfg.data.width = 200;
  cfg.data.height = 200;
  if (o.accuracy_steps > 0) cfg.training.steps = o.accuracy_steps; // the schedule's length
  const Image img = prepare_training_image(o.accuracy_image, cfg.data);
  bench::size_bench_grid(cfg, img.width, img.height, bench::GridSizing::Image);
  auto backend = std::make_unique<CudaBackend>(0);
  backend->set_precision(parse_cuda_precision(o.precision));
  CudaBackend* cb = backend.get();
  cfg.training.metrics_every = int64_t(1) << 40; // no per-step metrics: this loop measures itself
  Trainer trainer(std::move(backend), cfg, Dataset{img});
  const int64_t check_every = 50;
  double train_s = 0, accuracy = pixel_accuracy(trainer);
  int64_t step = 0;
  while (accuracy < o.target && train_s < o.time_limit) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < check_every; ++i, ++step) {
      StepArgs a;
      a.step = step;
      a.learning_rate = float(trainer.learning_rate_at(std::min(step, cfg.training.steps - 1)));
      cb->train_step(a);
    }
    cb->synchronize();
    train_s += test::seconds_since(t0);
    accuracy = pixel_accuracy(trainer);
  }
  nlohmann::json r;
  r["preset"] = preset;
  r["image"] = o.accuracy_image;
  r["size"] = "200x200 binary";
  r["steps"] = step;
  r["train_seconds"] = train_s;
  r["pixel_accuracy"] = accuracy;
  r["reached"] = accuracy >= o.target;
  return r;
}

/// The (grid, backward) pairs a preset runs: one when it has no hash grid.
std::vector<std::pair<bench::GridSizing, std::string>> variants(const std::string& preset, const Options& o) {
  std::vector<std::pair<bench::GridSizing, std::string>> v;
  if (!bench::has_grid(load_preset(preset).model.encoding)) return {{bench::GridSizing::Image, ""}};
  const std::vector<std::string> backs = o.backwards.empty() ? std::vector<std::string>{""} : o.backwards;
  for (const auto& g : o.grids)
    for (const auto& b : backs) v.emplace_back(bench::parse_grid_sizing(g), b);
  return v;
}

/// Switches the hash-grid backward for the rows that follow ("" keeps the process's choice).
void use_backward(const std::string& name, const cuda::HashGridKernels& process) {
  cuda::HashGridKernels k = process;
  if (!name.empty()) k.backward = cuda::parse_hash_grid_kernels(nullptr, name.c_str()).backward;
  cuda::set_hash_grid_kernels(k);
}

void write_json(const Options& o, const nlohmann::json& results, const nlohmann::json& accuracy) {
  if (o.json_file.empty()) return;
  std::ofstream out(o.json_file);
  out << nlohmann::json{{"throughput", results}, {"accuracy", accuracy}}.dump(2) << "\n";
}

} // namespace

#endif

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
#if !REDRAW_HAVE_CUDA
    std::printf("cuda_bench: SKIPPED: no CUDA device: this build has no CUDA backend\n");
    return 0;
#else
    std::string why;
    if (cuda_device_count(&why) == 0) {
      std::printf("cuda_bench: SKIPPED: no CUDA device: %s\n", why.c_str());
      return 0;
    }
    std::printf("%s\n%s", cuda_build_description().c_str(), cuda_devices_description().c_str());
    nlohmann::json results = nlohmann::json::array();
    std::printf("\n%-8s %6s %8s %9s %11s %9s %8s %8s %7s %8s %8s %8s\n", "preset", "size", "batch", "steps/s",
                "samples/s", "ms/step", "TFLOP/s", "cuBLAS", "%cuBLAS", "kern ms", "gap(gr)", "gap(eag)");
    const cuda::HashGridKernels process_kernels = cuda::hash_grid_kernels();
    nlohmann::json accuracy = nlohmann::json::array();
    for (const auto& preset : o.presets) {
      std::vector<int32_t> sizes = o.sizes;
      if (sizes.empty()) sizes = {reference_size(preset), 512};
      for (int32_t size : sizes)
        for (const auto& [grid, backward] : variants(preset, o)) {
          use_backward(backward, process_kernels);
          const nlohmann::json r = bench_one(preset, size, grid, o);
          if (!r["grid"].is_null()) {
            RunConfig c = load_preset(preset);
            bench::size_bench_grid(c, size, size, grid);
            std::printf("grid (%s), %s backward: %s\n", bench::grid_sizing_name(grid),
                        r["hash_grid_backward"].get<std::string>().c_str(),
                        describe_hash_grid(summarize_hash_grid(c.model.encoding)).c_str());
          }
          std::printf("%-8s %6d %8lld %9.1f %11.3g %9.3f %8.2f %8.2f %6.0f%% %8.3f %8.3f %8.3f\n", preset.c_str(), size,
                      (long long)r["batch"].get<int64_t>(), r["steps_per_s"].get<double>(),
                      r["samples_per_s"].get<double>(), r["gpu_ms_per_step_graph"].get<double>(),
                      r["tflops"].get<double>(), r["cublas_tflops_same_shapes"].get<double>(),
                      100.0 * r["tflops"].get<double>() / r["cublas_tflops_same_shapes"].get<double>(),
                      r["kernel_ms_per_step"].get<double>(), r["launch_gap_ms_graph"].get<double>(),
                      r["launch_gap_ms_eager"].get<double>());
          std::fflush(stdout);
          results.push_back(r);
          write_json(o, results, accuracy);
        }
    }
    use_backward("", process_kernels);
    std::printf("(ms/step: GPU time per replayed step; kern ms: sum of per-op event brackets; gap: GPU time\n"
                " outside those brackets per step, with the CUDA graph and with eager launches)\n");
    if (!o.accuracy_image.empty()) {
      std::printf("\naccuracy on %s (200x200 binary, target %.1f%% of pixels, limit %.0f s):\n",
                  o.accuracy_image.c_str(), 100 * o.target, o.time_limit);
      for (const auto& preset : o.presets) {
        const nlohmann::json r = accuracy_one(preset, o);
        std::printf("  %-8s %s after %lld steps, %.2f s of training: %.2f%% of pixels right\n", preset.c_str(),
                    r["reached"].get<bool>() ? "reached" : "NOT reached", (long long)r["steps"].get<int64_t>(),
                    r["train_seconds"].get<double>(), 100 * r["pixel_accuracy"].get<double>());
        accuracy.push_back(r);
      }
    }
    write_json(o, results, accuracy);
    return 0;
#endif
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
