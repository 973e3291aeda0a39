#pragma once
/// What `redraw bench` writes: table.md (a row per method, the published rows beside them) and
/// results.csv (a row per image and method), from the sweep's cell results and the bench's own
/// measurements of each cell.
/// - Two PSNRs: psnr_db is the trainer's exact PSNR of the float render against the image as
///   loaded (the form GaussianImage's train.py reports: 10 log10(1 / MSE) on float renders, the
///   mean over images of each image's PSNR); psnr8_db is the saved 8-bit PNG's against the image
///   file, which ImageMagick's `compare -metric PSNR` reproduces. MS-SSIM (ms_ssim.h) is taken on
///   the 8-bit PNG.
/// - Means are over the images whose cell is done; a method with none done shows "-". Published
///   rows are never averaged with ours: they are rows of their own, marked published.
#include "engine/bench/bench_measurement.h"
#include "engine/sweep/sweep_results.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace redraw {

/// One cell (an image and a method) as the bench measured it.
struct BenchCell {
  std::string method; ///< the preset
  std::string image;  ///< the file's name
  int64_t budget = 0;
  CellResult result; ///< the sweep's (status, steps, seconds, psnr_db, parameters, model bytes, peak host memory)
  /// The bench's own (8-bit PSNR, MS-SSIM, decode FPS at the training size; peak device memory: the
  /// larger of the training's and the decode's, 0 when not measured, as on the CPU).
  BenchMeasurement measured;
};

/// A figure from a paper, as assets/published/<name>.json holds it. NaN / 0: not given there (a
/// paper that states no parameter count has null: the table shows "-").
struct PublishedRow {
  std::string method, citation, hardware, checked;
  int64_t parameters = 0;
  double psnr_db = std::numeric_limits<double>::quiet_NaN();
  double ms_ssim = std::numeric_limits<double>::quiet_NaN();
  double train_seconds = std::numeric_limits<double>::quiet_NaN();
  double decode_fps = std::numeric_limits<double>::quiet_NaN();
};

/// Reads {"format": "redraw-published", "version": 1, "rows": [{"method", "citation", "hardware",
/// "parameters", "psnr_db", "ms_ssim", "train_seconds", "decode_fps", "checked"}]}; a figure not
/// given is null. ConfigError naming `source`, the row and the field.
std::vector<PublishedRow> parse_published_rows(const nlohmann::json& j, const std::string& source);

/// The table's header lines.
struct BenchHeader {
  std::string protocol, summary, images_folder, device, driver, commit, note;
  int32_t threads = 0, seeds = 1, image_count = 0;
};

/// table.md: the header, then a row per method in `methods`' order (ours), then the published rows.
std::string bench_table_md(const BenchHeader& h, const std::vector<std::string>& methods,
                           const std::vector<BenchCell>& cells, const std::vector<PublishedRow>& published);
/// results.csv: a column per entry of the bench's column table (bench_columns.h): method,image,budget,
/// status,steps,train_seconds,psnr_db,psnr8_db,ms_ssim,parameters,model_bytes,decode_fps,
/// peak_host_bytes,peak_device_bytes,backend,threads,error (RFC 4180).
std::string bench_results_csv(const std::vector<BenchCell>& cells);

} // namespace redraw
