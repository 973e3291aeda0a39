#pragma once
/// `redraw export-weights MODEL -o OUT.safetensors`: a model's tensors in the safetensors format
/// (engine/model_files/weights_export.h; docs/cli.md).
#include <string>

namespace CLI {
class App;
}

namespace redraw::cli {

struct ExportWeightsCommand {
  std::string model;
  std::string out; ///< a .safetensors file
};

/// Adds the subcommand to `app`, its options written into `o`.
CLI::App* add_export_weights_command(CLI::App& app, ExportWeightsCommand& o);
/// Writes the file; returns the exit code. UsageError for an output that is not .safetensors.
int run_export_weights(const ExportWeightsCommand& o);

} // namespace redraw::cli
