#include "ui/window/run_requests.h"

#include "ui/window/gui_app.h"

#include <cctype>
#include <filesystem>

namespace redraw {
namespace fs = std::filesystem;

bool has_extension(const std::string& path, const char* ext) {
  std::string e = fs::path(path).extension().string();
  for (auto& ch : e)
    ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return e == ext;
}

bool is_model_path(const std::string& path) { return has_extension(path, ".redraw"); }

std::string model_path_for(const std::string& path) { return is_model_path(path) ? path : path + ".redraw"; }

LoadRequest base_load_request(const UiState& ui) {
  LoadRequest req;
  req.backend = ui.settings.backend;
  req.precision = ui.settings.precision;
  const double mb = ui.image_memory_override_mb > 0 ? ui.image_memory_override_mb : ui.settings.max_image_memory_mb;
  req.limits.max_bytes = uint64_t(mb * double(1 << 20));
  return req;
}

LoadRequest initial_load_request(const GuiOptions& opts, const UiState& ui) {
  LoadRequest req = base_load_request(ui);
  req.config = ui.edit.config;
  const bool positional_model = is_model_path(opts.image);
  if (!opts.model.empty() || positional_model) {
    req.model = !opts.model.empty() ? opts.model : opts.image;
    if (!positional_model) req.image = opts.image; // an image to train the model on further
  } else {
    req.image = opts.image.empty() ? default_image_path().string() : opts.image;
  }
  return req;
}

} // namespace redraw
