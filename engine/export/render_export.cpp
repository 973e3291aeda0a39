#include "engine/export/render_export.h"

#include "engine/atomic_file.h"
#include "engine/errors.h"
#include "engine/export/export_writers.h"

namespace redraw {

void export_render_png(Backend& backend, const NetworkView& net, int32_t w, int32_t h, const std::filesystem::path& out,
                       int bit_depth, const RenderOptions& opts) {
  if (!net.model) throw ConfigError("export: no network");
  if (bit_depth != 8 && bit_depth != 16) throw ConfigError("export: bit depth must be 8 or 16");
  if (w < 1 || h < 1 || w > k_max_render_side || h > k_max_render_side)
    throw ConfigError("export: " + std::to_string(w) + "x" + std::to_string(h) + " is outside 1.." +
                      std::to_string(k_max_render_side) + " per side");
  check_writable_destination(out);
  const auto file = open_row_writer(out, w, h, net.model->output_channels, bit_depth);
  render_tiles(backend, net, w, h, opts, [&](int32_t y0, int32_t y1, const float* v) { file->write_rows(v, y1 - y0); });
  file->commit();
}

} // namespace redraw
