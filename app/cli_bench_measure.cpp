// `redraw bench`: each done cell measured once (bench.json beside its result.json), and the
// bench's files written from the cells (cli_bench.h).
#include "app/backend_registry.h"
#include "app/cli_bench.h"
#include "app/cli_common.h"
#include "engine/atomic_file.h"
#include "engine/backend_names.h"
#include "engine/device_interop.h"
#include "engine/thread_budget.h"
#include "engine/errors.h"
#include "engine/frames/renderer.h"
#include "engine/images/image.h"
#include "engine/insight/ms_ssim.h"
#include "engine/json_read.h"
#include "engine/model_files/model_check.h"
#include "engine/path_problem.h"
#include "engine/training/open_run.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <limits>
#include <cmath>

namespace redraw::cli {

namespace {
using json = nlohmann::json;

json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }
double number_of(const json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : std::numeric_limits<double>::quiet_NaN();
}

/// PSNR in dB of `a` against `b` over every sample, values in [0, 1]: 10 log10(1 / MSE); +inf when equal.
double psnr_of(const Image& a, const Image& b) {
  if (a.width != b.width || a.height != b.height || a.channels != b.channels)
    throw ImageError("PSNR: the render and the image differ in size or channels");
  double sum = 0;
  for (size_t i = 0; i < a.pixels.size(); ++i) {
    const double d = double(a.pixels[i]) - double(b.pixels[i]);
    sum += d * d;
  }
  const double mse = sum / double(a.pixels.size());
  return mse > 0 ? 10 * std::log10(1 / mse) : INFINITY;
}

/// Calls of `render` (one full render each) per second: one warm-up call, then calls until
/// `seconds` have passed (at least one: a SIREN's 768x512 render takes seconds on a CPU).
double renders_per_second(const std::function<void()>& render, double seconds) {
  render();
  const auto t0 = std::chrono::steady_clock::now();
  int64_t renders = 0;
  double elapsed = 0;
  do {
    render();
    ++renders;
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  } while (elapsed < seconds && !interrupted());
  return double(renders) / elapsed;
}

/// A decode timing and the path it timed.
struct DecodeTiming {
  double fps = std::numeric_limits<double>::quiet_NaN();
  const char* path = "host"; ///< "device": RGBA8 into device memory; "host": floats into host memory
};

/// Full renders per second of `model` at its training size. On a GPU backend the render is the
/// one the live view draws: RGBA8 pixels into device memory, the run bound to the device as
/// training leaves it (the published decoding figures time the GPU's render the same way, with no
/// copy to the host). Elsewhere, or when the run cannot be bound (its image gone), the float
/// picture rendered into host memory, coordinates made and values read back on the CPU.
DecodeTiming decode_fps(const std::filesystem::path& model, const std::string& image, const std::string& backend,
                        double seconds) {
  const Checkpoint c = open_model(model);
  OpenedNetwork net = open_network(c, backend_factory(), backend, "");
  DecodeTiming t;
  if (is_gpu_backend(net.backend->name()) && std::filesystem::exists(image)) {
    OpenRunOptions options;
    options.backend = net.backend->name();
    net.backend.reset(); // one device backend at a time: the bound run's
    std::string why;
    const std::shared_ptr<DeviceInterop> interop = make_device_interop(&why);
    const OpenedRun run = open_run(RunSource{image, model.string()}, backend_factory(), options);
    DeviceRenderer* device = run.trainer->backend().device_renderer();
    if (interop && device) {
      const std::unique_ptr<DeviceFrameRing> ring = interop->make_frame_ring();
      void* pixels = ring->begin_write(c.image_width, c.image_height);
      t.fps = renders_per_second([&] { device->render_rgba8_device(c.image_width, c.image_height, pixels); }, seconds);
      ring->end_write(0);
      t.path = "device";
      return t;
    }
    net = open_network(c, backend_factory(), backend, "");
  }
  const NetworkView view = net.view(c.params);
  t.fps = renders_per_second([&] { (void)render_image(*net.backend, view, c.image_width, c.image_height); }, seconds);
  return t;
}
} // namespace

BenchCell measure_bench_cell(const SweepSite& site, const SweepCell& cell, const CellResult& result,
                             const BenchMethod& method, const std::string& backend, double decode_seconds) {
  BenchCell b;
  b.method = cell.preset;
  b.image = std::filesystem::path(cell.image).filename().string();
  b.budget = method.budget;
  b.result = result;
  b.peak_device_bytes = result.peak_device_bytes; // what train.log said; 0 on the CPU
  if (result.status != CellStatus::Done) return b;
  const std::filesystem::path folder = cell_folder(site.dir, cell), file = folder / "bench.json";
  std::error_code ec;
  if (std::filesystem::is_regular_file(file, ec)) {
    std::string text;
    if (read_user_text(file, 1 << 20, "a bench measurement", "1 MiB", text).empty()) {
      try {
        const json j = parse_json(text, file.string());
        b.psnr8_db = number_of(j, "psnr8_db");
        if (j.value("psnr8_db", json()) == "inf") b.psnr8_db = INFINITY;
        b.ms_ssim = number_of(j, "ms_ssim");
        b.decode_fps = number_of(j, "decode_fps");
        b.peak_device_bytes = std::max(b.peak_device_bytes, j.value("peak_device_bytes", int64_t(0)));
        return b;
      } catch (const Error&) {
        // measured again below
      }
    }
  }
  const char* decode_path = nullptr;
  try {
    DataSpec data = cell.config.data;
    data.width = cell.train_width;
    data.height = cell.train_height;
    const Image target = prepare_training_image(cell.image, data);
    const Image picture = load_image(folder / "final.png");
    b.psnr8_db = psnr_of(picture, target);
    b.ms_ssim = ms_ssim(picture, target);
  } catch (const Error& e) {
    print_note("cell " + cell.name + ": PSNR and MS-SSIM of final.png not measured (" + e.what() + ")");
  }
  try {
    const DecodeTiming t = decode_fps(folder / "model.redraw", cell.image, backend, decode_seconds);
    b.decode_fps = t.fps;
    decode_path = t.path;
  } catch (const Error& e) {
    print_note("cell " + cell.name + ": decoding not timed (" + e.what() + ")");
  }
  if (interrupted()) return b; // a partial timing is not saved
  const json j = {{"psnr8_db", std::isinf(b.psnr8_db) ? json("inf") : number_or_null(b.psnr8_db)},
                  {"ms_ssim", number_or_null(b.ms_ssim)},
                  {"decode_fps", number_or_null(b.decode_fps)},
                  {"decode_threads", cpu_threads_setting()},
                  {"decode_path", decode_path ? json(decode_path) : json(nullptr)},
                  {"peak_device_bytes", b.peak_device_bytes}};
  if (const std::string why = write_error([&] { write_text_atomic(file, j.dump(1) + "\n"); }); !why.empty())
    print_note(why);
  return b;
}

void write_bench_files(const SweepSite& site, const std::vector<CellResult>& results, const BenchHeader& header,
                       const std::vector<std::string>& methods, const std::vector<BenchCell>& cells,
                       const std::vector<PublishedRow>& published) {
  const std::string table = bench_table_md(header, methods, cells, published);
  const std::string csv = bench_results_csv(cells);
  const std::string summary = summary_csv(*site.plan, summarize(*site.plan, results));
  const std::string page = sweep_report_html(site, results);
  AtomicFileWriter a(site.dir / "table.md"), b(site.dir / "results.csv"), c(site.dir / "summary.csv"),
      d(site.dir / "report.html");
  a.write(table.data(), table.size());
  b.write(csv.data(), csv.size());
  c.write(summary.data(), summary.size());
  d.write(page.data(), page.size());
  AtomicFileWriter* set[] = {&c, &d, &b, &a};
  commit_together(set);
}

} // namespace redraw::cli
