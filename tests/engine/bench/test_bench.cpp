// redraw bench's engine parts (engine/bench/): networks sized to a parameter budget, checked
// against a closed-form count written here and the parameter array the engine allocates; the
// protocols; published rows and the table.
#include "engine/bench/bench_protocol.h"
#include "engine/bench/bench_table.h"
#include "engine/bench/param_budget.h"
#include "engine/errors.h"
#include "engine/images/image.h"
#include "engine/insight/ms_ssim.h"
#include "engine/sweep/sweep_plan.h"
#include "engine/json_read.h"
#include "engine/model_family.h"
#include "engine/model_spec.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

namespace redraw {
namespace {

/// Weights and biases of a plain MLP: in -> widths... -> out, written out layer by layer.
int64_t mlp_count(int64_t in, const std::vector<int32_t>& widths, int64_t out) {
  int64_t n = 0, prev = in;
  for (const int32_t w : widths) {
    n += prev * w + w;
    prev = w;
  }
  return n + prev * out + out;
}

double relative(int64_t a, int64_t b) { return std::abs(double(a - b)) / double(b); }

} // namespace

TEST_CASE("size_to_budget: a SIREN's width is sized so its closed-form count is within 2% of the budget") {
  const RunConfig c = load_preset("siren");
  for (const int64_t budget : {273000, 20000, 1000000}) {
    ModelSpec m = c.model;
    m.output_channels = 3;
    const int64_t got = size_to_budget(m, budget, 768, 512);
    const int64_t closed = mlp_count(2, m.hidden, 3); // identity encoding of (x, y)
    CAPTURE(budget);
    CAPTURE(got);
    CAPTURE(closed);
    CHECK(got == closed);
    CHECK(int64_t(initial_parameters(m, 1).size()) == got);
    CHECK(relative(got, budget) <= 0.02);
    CHECK(m.hidden.size() == c.model.hidden.size()); // depth kept
  }
}

TEST_CASE("size_to_budget: a hash grid's table and width meet the budget in the array the engine allocates") {
  const RunConfig c = load_preset("instant");
  for (const int64_t budget : {300000, 20000}) {
    ModelSpec m = c.model;
    m.output_channels = 3;
    const int64_t got = size_to_budget(m, budget, 768, 512);
    CAPTURE(budget);
    CAPTURE(got);
    CHECK_FALSE(m.encoding.auto_table_size);
    CHECK(m.encoding.finest_resolution == 768); // one cell per pixel on the longer side, as "auto"
    CHECK(int64_t(initial_parameters(m, 1).size()) == got);
    CHECK(relative(got, budget) <= 0.02);
    // The dense part is the closed form; the rest is the grid's table.
    CHECK(got - encoding_parameter_count(m.encoding) == mlp_count(m.encoding.width(), m.hidden, 3));
  }
}

TEST_CASE("size_to_budget: a budget no size reaches is refused with the nearest count") {
  ModelSpec m = load_preset("siren").model;
  m.output_channels = 3;
  CHECK_THROWS_WITH_AS(size_to_budget(m, 50, 768, 512), doctest::Contains("nearest size has"), ConfigError);
  CHECK_THROWS_WITH_AS(size_to_budget(m, 0, 768, 512), doctest::Contains("must be positive"), ConfigError);
}

TEST_CASE("bench protocols: names, methods, and each method's config") {
  CHECK_THROWS_WITH_AS(find_bench_protocol("kodak"), doctest::Contains("known: kodak-paper, kodak-minute, kodak-timed, smoke"),
                       ConfigError);
  const BenchProtocol& minute = find_bench_protocol("kodak-minute");
  CHECK(minute.time_limit == 60);
  CHECK(select_bench_methods(minute, "fourier, instant").methods.size() == 2); // the protocol's order, spaces trimmed
  CHECK(select_bench_methods(minute, "fourier, instant").methods[0].preset == "instant");
  const BenchProtocol only = select_bench_methods(minute, "instant");
  REQUIRE(only.methods.size() == 1);
  CHECK(only.methods[0].preset == "instant");
  CHECK_THROWS_WITH_AS(select_bench_methods(minute, "instant,wire"), doctest::Contains("'wire' is not a method"),
                       ConfigError);
  const RunConfig c = bench_method_config(minute, only.methods[0], 768, 512);
  CHECK(c.data.color_mode == ColorMode::Rgb);
  CHECK(relative(parameter_count(c.model), 300000) <= 0.02);
  const RunConfig siren = bench_method_config(minute, select_bench_methods(minute, "siren").methods[0], 768, 512);
  CHECK(siren.training.cpu_batch_size == 16384); // a full-batch step at 768x512 is half a minute on a core
  const RunConfig gauss = bench_method_config(minute, select_bench_methods(minute, "gaussians").methods[0], 768, 512);
  CHECK(gauss.model.encoding.kind == EncodingKind::Gaussians);
  CHECK(relative(parameter_count(gauss.model), 300000) <= 0.02);
  const RunConfig grown =
      bench_method_config(minute, select_bench_methods(minute, "gaussians-grow").methods[0], 768, 512);
  CHECK(grown.training.grow.on());
  CHECK(grown.model.encoding.gaussians == gauss.model.encoding.gaussians); // the same capacity, grown
  CHECK(grown.training.cpu_batch_size == 16384);
  const RunConfig sad = bench_method_config(minute, select_bench_methods(minute, "sad").methods[0], 768, 512);
  CHECK(sad.model.encoding.kind == model_family_named("Sad").kind);
  CHECK(relative(parameter_count(sad.model), 300000) <= 0.02);
  CHECK(sad.training.cpu_batch_size == 16384);
  const RunConfig sad_grown = bench_method_config(minute, select_bench_methods(minute, "sad-grow").methods[0], 768, 512);
  CHECK(sad_grown.training.grow.on());
  CHECK(sad_grown.model.encoding.kind == sad.model.encoding.kind);
  CHECK(parameter_count(sad_grown.model) == parameter_count(sad.model)); // the same sites, grown
  const RunConfig wipes =
      bench_method_config(minute, select_bench_methods(minute, "gaussians-wipes").methods[0], 768, 512);
  CHECK(wipes.model.encoding.carrier);
  CHECK(relative(parameter_count(wipes.model), 300000) <= 0.02);
  CHECK(wipes.model.encoding.gaussians < gauss.model.encoding.gaussians); // 10 floats a Gaussian, not 8
  const BenchProtocol& paper = find_bench_protocol("kodak-paper");
  for (const BenchMethod& m : paper.methods) {
    const RunConfig pc = bench_method_config(paper, m, 768, 512);
    CAPTURE(m.preset);
    CHECK(pc.training.steps == m.steps);
    CHECK(relative(parameter_count(pc.model), m.budget) <= 0.02);
  }
}

TEST_CASE("bench protocols: smoke's default is the bundled image, and the Kodak ones say where they come from") {
  const BenchProtocol& smoke = find_bench_protocol("smoke");
  CHECK(bench_default_images(smoke) == asset_dir() / "default.png"); // the one image the app ships
  const ImageInfo info = probe_image_file(bench_default_images(smoke).string());
  // trained at most max_side on its longer side, and its MS-SSIM measured at that size
  const double scale = std::min(1.0, double(smoke.max_side) / std::max(info.width, info.height));
  CHECK(std::min(info.width, info.height) * scale > k_ms_ssim_min_side);
  for (const char* name : {"kodak-paper", "kodak-minute", "kodak-timed"}) {
    const BenchProtocol& kodak = find_bench_protocol(name);
    CHECK(bench_default_images(kodak) == "../shared/images/kodak");
    CHECK(kodak.images_source.find("https://r0k.us/graphics/kodak/") != std::string::npos);
  }
}

TEST_CASE("bench protocols: the most images a bench takes is a sweep's cells over its methods and seeds") {
  const BenchProtocol& paper = find_bench_protocol("kodak-paper"); // 4 methods, 1 seed
  CHECK(bench_max_images(paper) == 2500);
  CHECK(bench_max_images(select_bench_methods(paper, "instant")) == 10000);
  CHECK(bench_max_images(find_bench_protocol("kodak-minute")) == 1250); // 8 methods
  CHECK(bench_max_images(paper) * int64_t(paper.methods.size()) <= k_max_sweep_cells);
  CHECK((bench_max_images(paper) + 1) * int64_t(paper.methods.size()) > k_max_sweep_cells);
}

TEST_CASE("published rows: the shipped Kodak file reads; a bad row is refused naming it and the field") {
  const std::filesystem::path file = asset_dir() / "published" / "kodak.json";
  std::ifstream in(file);
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  const auto rows = parse_published_rows(parse_json(ss.str(), file.string()), file.string());
  REQUIRE(rows.size() == 8); // GaussianImage's Table 1, then the 2025-2026 rows as the frontier issue quotes them
  CHECK(rows[4].method == "GaussianImage");
  CHECK(rows[4].psnr_db == 44.08);
  CHECK(rows[4].parameters == 560000);
  nlohmann::json bad = {{"format", "redraw-published"},
                        {"version", 1},
                        {"rows",
                         {{{"method", "X"},
                           {"citation", "c"},
                           {"hardware", "h"},
                           {"checked", "no"},
                           {"parameters", 10},
                           {"psnr_db", "high"}}}}};
  CHECK_THROWS_WITH_AS(parse_published_rows(bad, "p.json"), doctest::Contains("p.json, rows[0]: 'psnr_db'"),
                       ConfigError);
  bad["rows"][0].erase("citation");
  CHECK_THROWS_WITH_AS(parse_published_rows(bad, "p.json"), doctest::Contains("rows[0]: 'citation'"), ConfigError);
}

TEST_CASE("bench protocols: kodak-timed trains any two of its families on all 24 images within one device call") {
  const BenchProtocol& timed = find_bench_protocol("kodak-timed");
  REQUIRE(timed.methods.size() == 3);
  CHECK(timed.methods[0].preset == "instant");
  CHECK(timed.methods[1].preset == "gaussians");
  CHECK(timed.methods[2].preset == "sad");
  for (const BenchMethod& m : timed.methods) {
    const RunConfig c = bench_method_config(timed, m, 768, 512);
    CAPTURE(m.preset);
    CHECK(relative(parameter_count(c.model), m.budget) <= 0.02);
    CHECK(c.training.steps == std::numeric_limits<int32_t>::max()); // the time limit ends each cell
  }
  // Two families (--methods): 48 cells of training, and per cell about 1 s of decode timing and
  // 2 s of starting and measuring: within a 10-minute call, with at least 3 minutes left for a check.
  const double cells = 24.0 * 2.0;
  CHECK(cells * (timed.time_limit + 3.0) <= 600 - 180);
  // Its published rows: the time-matched ones, a paper without a parameter count shown as "-".
  const std::filesystem::path file = asset_dir() / "published" / (timed.published + ".json");
  std::ifstream in(file);
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  const auto rows = parse_published_rows(parse_json(ss.str(), file.string()), file.string());
  REQUIRE(rows.size() >= 3);
  bool unstated = false;
  for (const PublishedRow& r : rows) {
    CHECK(std::isfinite(r.train_seconds)); // a time-matched row states its time
    unstated = unstated || r.parameters == 0;
  }
  CHECK(unstated);
  const std::string md = bench_table_md(BenchHeader{}, {}, {}, rows);
  CHECK(md.find("| Fast-2DGS | published: ") != std::string::npos);
  CHECK(md.find("| - | - | 43.13 |") != std::string::npos); // budget and parameters not given
  nlohmann::json bad = {{"format", "redraw-published"},
                        {"version", 1},
                        {"rows",
                         {{{"method", "X"},
                           {"citation", "c"},
                           {"hardware", "h"},
                           {"checked", "no"},
                           {"parameters", 0},
                           {"psnr_db", 40}}}}};
  CHECK_THROWS_WITH_AS(parse_published_rows(bad, "p.json"), doctest::Contains("rows[0]: 'parameters' must be"),
                       ConfigError);
}

TEST_CASE("bench table: ours are the means over done cells; published rows stand apart, marked") {
  std::vector<BenchCell> cells(3);
  for (size_t i = 0; i < cells.size(); ++i) {
    cells[i].method = "instant";
    cells[i].image = "kodim0" + std::to_string(i + 1) + ".png";
    cells[i].budget = 300000;
    cells[i].result.status = CellStatus::Done;
    cells[i].result.parameters = 299000;
    cells[i].result.seconds = 60;
  }
  cells[0].result.psnr_db = 30;
  cells[1].result.psnr_db = 33;
  cells[0].measured.psnr8_db = 29.5;
  cells[1].measured.psnr8_db = 32.5;
  cells[2].result.status = CellStatus::Failed; // not averaged
  cells[2].result.psnr_db = 10;
  cells[2].result.error = "diverged, badly";
  cells[0].measured.peak_device_bytes = int64_t(512) << 20; // the column is the peak over done cells, in MiB
  cells[1].measured.peak_device_bytes = int64_t(768) << 20;
  cells[2].measured.peak_device_bytes = int64_t(4096) << 20; // a failed cell's is left out
  PublishedRow p;
  p.method = "GaussianImage";
  p.citation = "Zhang et al., ECCV 2024";
  p.hardware = "a GPU";
  p.parameters = 560000;
  p.psnr_db = 44.08;
  BenchHeader h;
  h.protocol = "kodak-minute";
  h.commit = "redraw 0.1.0 (git abc)";
  const std::string md = bench_table_md(h, {"instant"}, cells, {p});
  CHECK(md.find("| instant | Redraw (this run) | 300K | 299,000 | 31.50 | 31.00 |") != std::string::npos);
  CHECK(md.find("| - | 768 | 2/3 |") != std::string::npos);
  CHECK(md.find("| GaussianImage | published: Zhang et al., ECCV 2024; a GPU | 560K | 560,000 | 44.08 |") !=
        std::string::npos);
  CHECK(md.find("commit: redraw 0.1.0 (git abc)") != std::string::npos);
  const std::string csv = bench_results_csv(cells);
  CHECK(csv.find("instant,kodim03.png,300000,failed,") != std::string::npos);
  CHECK(csv.find("\"diverged, badly\"") != std::string::npos);
}

} // namespace redraw
