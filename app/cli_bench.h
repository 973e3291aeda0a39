#pragma once
/// The parts of `redraw bench` (docs/benchmark.md): a protocol (engine/bench/bench_protocol.h) run
/// as a sweep (app/cli_sweep.h) whose cells are images x methods x seeds, then measured and tabled.
/// - cli_bench.cpp: the command: the protocol's plan, printed, run (or submitted to Slurm), tabled;
/// - cli_bench_measure.cpp: each done cell measured once into DIR/cells/<name>/bench.json (the 8-bit
///   PNG's PSNR and MS-SSIM, decode FPS), and the files: table.md, results.csv, report.html.
#include "app/cli_sweep.h"
#include "engine/bench/bench_protocol.h"
#include "engine/bench/bench_table.h"

#include <filesystem>
#include <string>
#include <vector>

namespace redraw::cli {

/// The bench's measurements of a done cell: read from its bench.json, else measured now (the
/// 8-bit final.png against the image at the training size, and `decode_seconds` of timed full
/// renders on `backend` after one warm-up) and saved there atomically. Never throws: what cannot
/// be measured stays NaN and is noted.
BenchCell measure_bench_cell(const SweepSite& site, const SweepCell& cell, const CellResult& result,
                             const BenchMethod& method, const std::string& backend, double decode_seconds);

/// Writes table.md, results.csv (the bench's), summary.csv and report.html (the sweep's, with the
/// published rows as reference lines) in the site's folder, atomically, table.md last.
void write_bench_files(const SweepSite& site, const std::vector<CellResult>& results, const BenchHeader& header,
                       const std::vector<std::string>& methods, const std::vector<BenchCell>& cells,
                       const std::vector<PublishedRow>& published);

} // namespace redraw::cli
