#include "engine/training/open_pixels.h"

#include "engine/errors.h"
#include "engine/images/training_pixels.h"
#include "engine/model_family.h"

namespace redraw {

OpenedRun open_run_on_pixels(Image raw, const std::string& name, const BackendFactory& make_backend,
                             const OpenRunOptions& options) {
  if (raw.width < 1 || raw.height < 1)
    throw ImageError(name + ": the picture is empty (" + std::to_string(raw.width) + "x" + std::to_string(raw.height) + ")");
  if (raw.channels < 1 || raw.channels > 4)
    throw ImageError(name + ": " + std::to_string(raw.channels) + " channels; 1 to 4 are read (grey, grey and alpha, "
                     "RGB, RGBA)");
  if (raw.pixels.size() != size_t(raw.width) * size_t(raw.height) * size_t(raw.channels))
    throw ImageError(name + ": the pixel count does not match its size");
  OpenedRun out;
  RunConfig config = options.config;
  if (options.adjust_config) options.adjust_config(config, nullptr);
  int32_t w = 0, h = 0;
  try {
    training_size(config.data, raw.width, raw.height, w, h);
  } catch (const ConfigError& e) {
    throw TrainingSizeError(e.what());
  }
  out.image_width = raw.width;
  out.image_height = raw.height;
  Dataset data;
  data.image = prepare_training_pixels(std::move(raw), config.data, w, h);
  size_encoding_to_image(config.model.encoding, data.image.width, data.image.height);
  auto backend = backend_for_model(make_backend, options.backend, options.precision, config.model, &out.backend_notice);
  out.trainer = std::make_unique<Trainer>(std::move(backend), std::move(config), std::move(data));
  if (options.snapshot_cap_bytes > 0) out.trainer->set_snapshot_cap_bytes(options.snapshot_cap_bytes);
  out.source_image = name;
  return out;
}

} // namespace redraw
