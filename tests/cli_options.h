#pragma once
/// Command-line options of the benchmarks and check programs, on CLI11 (as `redraw` itself):
/// the options the training benchmarks share, and one parse that exits the way they all do.
#include <CLI/CLI.hpp>

#include <cstdlib>
#include <string>
#include <vector>

namespace redraw::test {

/// Parses argv into `app`'s options. --help prints them and exits 0; a bad or unknown argument
/// prints CLI11's message and exits 2.
inline void parse_or_exit(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e) == 0 ? 0 : 2);
  }
}

/// The options the training benchmarks share: the presets to run, the CUDA precision, a JSON
/// report and the training time limit per preset. Each benchmark derives its Options from it, sets
/// its own defaults, and adds these and its own options to one CLI::App.
struct BenchOptions {
  std::vector<std::string> presets;
  std::string precision;
  std::string json_file;
  double time_limit = 0;

  void add_to(CLI::App& app) {
    app.add_option("--presets", presets, "Presets to run, comma-separated")->delimiter(',')->capture_default_str();
    app.add_option("--precision", precision, "GPU matrix products: auto, fp32, tf32 or bf16")->capture_default_str();
    app.add_option("--json", json_file, "Also write the results to this JSON file");
    app.add_option("--time-limit", time_limit, "Training seconds per preset")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
  }
};

} // namespace redraw::test
