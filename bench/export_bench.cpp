/// Time and peak memory of exporting a trained network at a large size, streamed to an 8-bit PNG.
///   export_bench [--size N]... [--hidden a,b,c,...] [--train-steps S] [--tile-pixels P] [--out FILE]
///                [--backend cpu|cuda|auto]   (training is on the CPU; the export runs on the backend)
/// Trains a small model (by default the classic preset's shape: 7 tanh layers 128,128,256,128,64,64,64,
/// grey output) for a few steps on the bundled image at 64 px, then for each --size N renders an
/// N x N export with render_tiles into a PngStreamWriter, and prints one table row per size:
/// seconds, Mpixel/s, the process's peak resident memory (VmHWM) and its growth during that export.
///
/// Memory bound of an export (CPU backend, engine/frames/renderer.h + engine/images/image.h), independent of N:
///   band    = max_tile_pixels (default 2^18) pixels: coords 2 floats + outputs C floats each
///             = 2^18 * (2 + C) * 4 B = 3 MiB (grey) / 5 MiB (RGB);
///   backend = one CpuWorkspace per predict() call: k_chunk_rows (4096) rows x the sum of the layer
///             widths in floats (classic: 4096 * 833 * 4 B * 2 (values + pre-activations) ~ 27 MiB at most);
///   PNG     = one packed row band (w * channels * 1 or 2 B per row, same band) + zlib's ~300 KiB.
/// So a 16384 x 16384 export needs about 40 MiB above the process's baseline, against 1 GiB (grey)
/// or 3 GiB (RGB) for the 8-bit image alone. The table shows the measured growth.
///
/// Recorded run (2026-11-22, CPU backend, 2 shared cores of a Cooperlake Xeon, OpenBLAS, load
/// average 3-5 from other jobs, so times are pessimistic; 8-bit grey PNG, bands of 2^18 pixels):
///   network                         size          seconds  Mpixel/s  peak RSS MiB  RSS growth MiB
///   classic shape, 99,457 params    2048x2048       15.44      0.27          78.7            37.2
///   classic shape, 99,457 params    16384x16384   1452.04      0.18          78.9            37.4
///   classic / 8 (16,16,32,16,8,8,8) 1024x1024        0.72      1.47          19.2             7.6
///   classic / 8, 1,681 params       16384x16384    220.66      1.22          19.3             4.2
/// A later run on a quiet machine (2 cores of an AVX-512 EPYC, OpenBLAS Haswell kernels, classic shape):
///   classic shape, 99,457 params    1024x1024        3.00      0.35         229.3            37.3
///   classic shape, 99,457 params    16384x16384    526.84      0.51         229.4            33.8
/// Peak memory is the same at 2048 and 16384: the bound holds. No GPU was lent to this task, so
/// there is no CUDA row yet: run `export_bench --backend cuda --size 16384` where a GPU exists.
#include "app/backend_registry.h"
#include "cpu/cpu_backend.h"
#include "engine/backend_names.h"
#include "engine/images/image.h"
#include "engine/frames/renderer.h"
#include "engine/model_family.h"
#include "engine/training/trainer.h"

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace redraw;

namespace {

/// A field of /proc/self/status in KiB (VmHWM: peak resident set, VmRSS: current).
long status_kib(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const size_t n = std::strlen(field);
  while (std::getline(in, line))
    if (line.compare(0, n, field) == 0 && line[n] == ':') return std::stol(line.substr(n + 1));
  return -1;
}

/// Resets VmHWM to the current RSS (Linux >= 4.0: write "5" to clear_refs), so each size's peak is its own.
bool reset_peak() {
  std::ofstream f("/proc/self/clear_refs");
  f << "5";
  return bool(f);
}

} // namespace

int main(int argc, char** argv) {
  std::vector<int32_t> sizes;
  std::vector<int32_t> hidden = {128, 128, 256, 128, 64, 64, 64};
  int64_t train_steps = 20, tile_pixels = int64_t(1) << 18;
  std::string backend_name = k_cpu_backend.name;
  std::string out =
      (std::filesystem::temp_directory_path() / ("redraw-export-bench-" + std::to_string(getpid()) + ".png")).string();
  CLI::App cli{"Streamed PNG export at large sizes: time and peak memory per size", "export_bench"};
  cli.add_option("--size", sizes, "Export side (repeatable; default 1024, 4096, 16384)")
      ->check(CLI::Range(1, 1 << 20));
  cli.add_option("--hidden", hidden, "Hidden layer widths, comma-separated")->delimiter(',')->check(CLI::Range(1, 4096));
  cli.add_option("--train-steps", train_steps, "Steps trained before exporting")->check(CLI::NonNegativeNumber);
  cli.add_option("--tile-pixels", tile_pixels, "Pixels per rendered band")->check(CLI::PositiveNumber);
  cli.add_option("--out", out, "The PNG written (default: a temp file)");
  cli.add_option("--backend", backend_name, backend_choices_text())->check(CLI::IsMember(backend_choices()));
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e);
  }
  if (sizes.empty()) sizes = {1024, 4096, 16384};

  RunConfig cfg = load_preset("classic");
  cfg.model.hidden = hidden;
  cfg.model.hidden_activations.assign(hidden.size(), Activation::Tanh);
  cfg.training.steps = train_steps;
  cfg.data.max_side = 64;
  const Image img = prepare_training_image(std::filesystem::path(REDRAW_ASSET_DIR) / "default.png", cfg.data);
  Trainer trainer(std::make_unique<CpuBackend>(), cfg, Dataset{img});
  trainer.run(train_steps);
  const std::vector<float> params = trainer.parameters();
  const ModelSpec model = trainer.config().model;
  const NetworkView view{&model, params, trainer.fourier_b()};
  std::unique_ptr<Backend> backend;
  try {
    backend = make_backend(backend_name);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "export_bench: %s\n", e.what());
    return 1;
  }

  std::printf("export_bench: %s backend (%s), network %s", backend->name().c_str(),
              backend->device_description().c_str(),
              model_family(cfg.model.encoding.kind).passes_coordinates ? "identity" : "encoded");
  for (size_t i = 0; i < hidden.size(); ++i)
    std::printf("%s%d", i ? "," : " -> ", hidden[i]);
  std::printf(" -> %d (%lld parameters), tanh, trained %lld steps; bands of %lld pixels; 8-bit PNG to %s\n",
              model.output_channels, static_cast<long long>(parameter_count(model)),
              static_cast<long long>(train_steps), static_cast<long long>(tile_pixels), out.c_str());
  const bool per_size_peak = reset_peak();
  std::printf("baseline RSS %.1f MiB%s\n\n", double(status_kib("VmRSS")) / 1024.0,
              per_size_peak ? "" : " (VmHWM cannot be reset here: peaks are cumulative)");
  std::printf("%-13s %9s %9s %11s %13s %15s %10s\n", "size", "Mpixel", "seconds", "Mpixel/s", "peak RSS MiB",
              "RSS growth MiB", "PNG MiB");
  for (int32_t n : sizes) {
    reset_peak();
    const long before = status_kib("VmRSS");
    const auto t0 = std::chrono::steady_clock::now();
    {
      PngStreamWriter png(out, n, n, model.output_channels, 8);
      RenderOptions ro;
      ro.max_tile_pixels = tile_pixels;
      render_tiles(*backend, view, n, n, ro,
                   [&](int32_t y0, int32_t y1, const float* v) { png.write_rows(v, y1 - y0); });
      png.commit();
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const long peak = status_kib("VmHWM");
    const double mpx = double(n) * double(n) / 1e6;
    std::error_code ec;
    const double file_mib = double(std::filesystem::file_size(out, ec)) / 1048576.0;
    char label[32];
    std::snprintf(label, sizeof label, "%dx%d", n, n);
    std::printf("%-13s %9.1f %9.2f %11.2f %13.1f %15.1f %10.1f\n", label, mpx, s, mpx / s, double(peak) / 1024.0,
                double(peak - before) / 1024.0, file_mib);
    std::fflush(stdout);
  }
  std::filesystem::remove(out);
  return 0;
}
