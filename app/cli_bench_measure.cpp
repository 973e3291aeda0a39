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
#include "engine/bench/bench_measurement.h"
#include "engine/json_read.h"
#include "engine/model_files/model_check.h"
#include "engine/path_problem.h"
#include "engine/training/open_run.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <algorithm>
#include <cmath>
#include <limits>

namespace redraw::cli {

namespace {
using json = nlohmann::json;

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

/// The cell's bench.json read back into `b`: true when it is there and sound. A file that cannot be
/// read, is not JSON or holds a value out of its range is named with what is wrong, and the cell
/// is measured again (the file is a record of measurements that can be taken again).
bool read_bench_json(const std::filesystem::path& file, BenchCell& b) {
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(file, ec))) return false;
  std::string text;
  std::string why = read_user_text(file, 1 << 20, "a bench measurement", "1 MiB", text);
  if (why.empty()) {
    try {
      const int64_t trained_peak = b.measured.peak_device_bytes;
      b.measured = parse_bench_measurement(parse_json(text, file.string()), file.string());
      b.measured.peak_device_bytes = std::max(trained_peak, b.measured.peak_device_bytes);
      return true;
    } catch (const Error& e) {
      why = e.what();
    }
  }
  print_note(why + "; the cell is measured again");
  return false;
}
} // namespace

BenchCell measure_bench_cell(const SweepSite& site, const SweepCell& cell, const CellResult& result,
                             const BenchMethod& method, const std::string& backend, double decode_seconds) {
  BenchCell b;
  b.method = cell.preset;
  b.image = std::filesystem::path(cell.image).filename().string();
  b.budget = method.budget;
  b.result = result;
  b.measured.peak_device_bytes = result.peak_device_bytes; // what train.log said; 0 on the CPU
  if (result.status != CellStatus::Done) return b;
  const std::filesystem::path folder = cell_folder(site.dir, cell), file = folder / "bench.json";
  if (read_bench_json(file, b)) return b;
  BenchMeasurement& m = b.measured;
  try {
    DataSpec data = cell.config.data;
    data.width = cell.train_width;
    data.height = cell.train_height;
    const BenchQuality q = measure_bench_quality(load_image(folder / "final.png"), prepare_training_image(cell.image, data));
    m.psnr8_db = q.psnr8_db;
    m.ms_ssim = q.ms_ssim;
    if (!q.not_measured.empty()) print_note("cell " + cell.name + ": " + q.not_measured);
  } catch (const Error& e) {
    print_note("cell " + cell.name + ": PSNR and MS-SSIM of final.png not measured (" + e.what() + ")");
  }
  try {
    const DecodeTiming t = decode_fps(folder / "model.redraw", cell.image, backend, decode_seconds);
    m.decode_fps = t.fps;
    m.decode_path = t.path;
  } catch (const Error& e) {
    print_note("cell " + cell.name + ": decoding not timed (" + e.what() + ")");
  }
  if (interrupted()) return b; // a partial timing is not saved
  m.decode_threads = cpu_threads_setting();
  const std::string text = bench_measurement_json(m).dump(1) + "\n";
  if (const std::string why = write_error([&] { write_text_atomic(file, text); }); !why.empty()) print_note(why);
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
