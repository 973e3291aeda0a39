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

int run_export_weights(const ExportWeightsCommand& o) {
  std::string ext = std::filesystem::path(o.out).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (ext != ".safetensors")
    throw UsageError("-o: '" + o.out + "' must end in .safetensors (the format written)");
  const Checkpoint c = open_model(o.model); // refuses a damaged model, naming the file and the field
  check_writable_destination(o.out);
  export_weights_safetensors(o.out, {&c.config, c.params, c.image_width, c.image_height, c.step});
  std::printf("exported %lld parameters of step %lld -> %s\n", static_cast<long long>(c.params.size()),
              static_cast<long long>(c.step), escape_control(o.out).c_str());
  return k_exit_ok;
}

} // namespace redraw::cli
