#include "engine/training/open_run.h"

#include "engine/errors.h"
#include "engine/model_files/model_check.h"
#include "engine/model_family.h"
#include "engine/path_problem.h"
#include "engine/frames/renderer.h"

#include <filesystem>
#include <optional>

namespace redraw {

std::unique_ptr<Backend> backend_for_model(const BackendFactory& make_backend, const std::string& name,
                                           const std::string& precision, const ModelSpec& model, std::string* notice) {
  auto backend = make_backend(name, notice, precision);
  if (name != k_auto_backend) return backend;
  const std::string why = backend->model_refusal(model);
  if (why.empty()) return backend;
  // The GPU's precision means nothing to the CPU: it computes in fp32.
  auto cpu = make_backend(k_cpu_backend.name, nullptr, {});
  if (notice) *notice = (notice->empty() ? std::string() : *notice + "; ") + "auto: " + why + ": training on the CPU";
  return cpu;
}

OpenedNetwork open_network(const Checkpoint& model, const BackendFactory& make_backend, const std::string& backend,
                           const std::string& precision) {
  OpenedNetwork out;
  out.model = model.config.model;
  out.fourier_b = fourier_matrix(out.model.encoding, model.config.training.seed);
  out.backend = backend_for_model(make_backend, backend, precision, model.config.model, &out.backend_notice);
  return out;
}

OpenedRun open_run(const RunSource& source, const BackendFactory& make_backend, const OpenRunOptions& options) {
  OpenedRun out;
  RunConfig config = options.config;
  std::optional<Checkpoint> model;
  std::string image = source.image;
  if (!source.model.empty()) {
    model = open_model(source.model);
    config = model->config;
    config.data.width = model->image_width;
    config.data.height = model->image_height;
    if (image.empty()) {
      // Stored absolute by this redraw, relative by older ones: also looked for beside the model.
      image = find_source_image(model->source_image, source.model);
      if (image.empty()) image = model->source_image;
    }
  }
  if (options.adjust_config) options.adjust_config(config, model ? &*model : nullptr);

  Dataset data;
  std::error_code exists_ec; // a name too long or a link loop is "not there", never an exception
  // A model's image must be a plain file to stand as its ground truth: a FIFO or a device would
  // block or stream forever, and the model's own picture stands in as for a missing image.
  const auto status = image.empty() ? std::filesystem::file_status() : std::filesystem::status(image, exists_ec);
  const bool image_found = !image.empty() && std::filesystem::exists(status) &&
                           (!model || std::filesystem::is_regular_file(status));
  if (image_found) {
    try {
      data.image = prepare_training_image(image, config.data, options.limits, &out.image_width, &out.image_height,
                                          &out.image_info);
    } catch (const ConfigError& e) {
      throw TrainingSizeError(e.what());
    }
    // A file that ends early trains on grey where rows are missing: every caller must say so.
    if (!out.image_info.incomplete.empty()) out.notices.push_back(image + ": " + out.image_info.incomplete);
  } else if (model) {
    // The source image is gone: the model's own picture stands in, so it can still be viewed,
    // exported and trained further.
    const OpenedNetwork cpu = open_network(*model, make_backend, k_cpu_backend.name, "");
    data.image = render_image(*cpu.backend, cpu.view(model->params), model->image_width, model->image_height);
    const bool there = !image.empty() && std::filesystem::exists(status);
    out.notices.push_back("the model's source image (" + (image.empty() ? std::string("unknown") : image) + ") " +
                          (there ? "is not a plain file" : "was not found") +
                          "; showing the model's own picture as the ground truth");
  } else {
    const std::string why = image.empty() ? std::string() : path_problem(image);
    throw ImageError((image.empty() ? std::string("(no image)") : image) + ": " +
                     (why.empty() ? std::string("file not found") : why));
  }

  // A fresh run sizes an auto hash grid to its image; a model keeps the sizes it was trained with.
  if (!model) size_encoding_to_image(config.model.encoding, data.image.width, data.image.height);
  auto backend = backend_for_model(make_backend, options.backend, options.precision, config.model, &out.backend_notice);
  out.trainer = std::make_unique<Trainer>(std::move(backend), std::move(config), std::move(data));
  if (options.snapshot_cap_bytes > 0) out.trainer->set_snapshot_cap_bytes(options.snapshot_cap_bytes);
  if (model) out.trainer->restore(*model);
  out.image = image_found ? image : std::string();
  out.source_image = image_found ? absolute_path(image) : model ? model->source_image : image;
  return out;
}

} // namespace redraw
