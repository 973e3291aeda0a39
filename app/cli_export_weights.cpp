#include "app/cli_export_weights.h"

#include "app/cli_common.h"
#include "engine/atomic_file.h"
#include "engine/display_text.h"
#include "engine/model_files/model_check.h"
#include "engine/model_files/weights_export.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace redraw::cli {

CLI::App* add_export_weights_command(CLI::App& app, ExportWeightsCommand& o) {
  auto* cmd = app.add_subcommand("export-weights", "Write a model's weights as safetensors (numpy, torch, any tool)");
  cmd->add_option("model", o.model, ".redraw model")->required();
  cmd->add_option("-o,--output", o.out, "Output .safetensors file")->required();
  return cmd;
}

namespace {
/// "" when `out` names a file "NAME.safetensors"; else what is wrong with it. The name is looked
/// at as text: std::filesystem takes ".safetensors" alone for a stem with no extension.
std::string weights_name_problem(const std::string& out) {
  static const std::string suffix = ".safetensors";
  std::string name = std::filesystem::path(out).filename().string();
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  const std::string shown = "-o: '" + escape_control(out) + "'";
  if (name.empty()) return shown + " names no file (a folder or nothing): give a file name, e.g. weights.safetensors";
  if (name.size() < suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return shown + " must end in .safetensors (the format written)";
  if (name == suffix)
    return shown + " is only the extension: give the file a name before .safetensors, e.g. weights.safetensors";
  return {};
}
} // namespace

int run_export_weights(const ExportWeightsCommand& o) {
  if (const std::string why = weights_name_problem(o.out); !why.empty()) throw UsageError(why);
  const Checkpoint c = open_model(o.model); // refuses a damaged model, naming the file and the field
  check_writable_destination(o.out);
  export_weights_safetensors(o.out, {&c.config, c.params, c.image_width, c.image_height, c.step});
  std::printf("exported %lld parameters of step %lld -> %s\n", static_cast<long long>(c.params.size()),
              static_cast<long long>(c.step), escape_control(o.out).c_str());
  return k_exit_ok;
}

} // namespace redraw::cli
