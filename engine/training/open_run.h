#pragma once
/// One way to open a run, for the GUI and every command: model -> config -> training image ->
/// backend -> Trainer -> restore.
/// - A fresh run trains `options.config` on `source.image`. A model brings its own config and
///   training size; its image is `source.image`, or when that is empty the one the model records
///   (looked for beside the model too, find_source_image).
/// - A model whose image is gone still opens: the model's own picture (rendered on the CPU)
///   stands in as the ground truth, and a notice says so. An image missing for a fresh run is an
///   ImageError naming it.
/// - Errors are typed (ImageError, CheckpointError, ConfigError, BackendError); a training size
///   over the limits is a TrainingSizeError, so a caller can name its own size options.
#include "engine/backend.h"
#include "engine/backend_names.h"
#include "engine/model_files/checkpoint.h"
#include "engine/images/image.h"
#include "engine/frames/renderer.h"
#include "engine/run_config.h"
#include "engine/training/trainer.h"

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace redraw {

/// What a run is opened from.
struct RunSource {
  std::string image; ///< image to train on; with a model, "" = the image the model records
  std::string model; ///< .redraw model to resume; "" = a fresh run on `image`
};

struct OpenRunOptions {
  RunConfig config; ///< a fresh run's config (a model brings its own)
  std::string backend = k_auto_backend;
  std::string precision; ///< passed to the BackendFactory as given
  DecodeLimits limits;
  /// Called once the run's config is known (the model's, with its training size, or `config`)
  /// and before the image is read: a caller's overrides and checks (`model` is null for a fresh run).
  std::function<void(RunConfig& config, const Checkpoint* model)> adjust_config;
  size_t snapshot_cap_bytes = 0; ///< > 0: the timelapse cap, set before the model is restored
};

/// An opened run and the facts about its image.
struct OpenedRun {
  std::unique_ptr<Trainer> trainer;
  std::string image;        ///< the image trained on; "" when the model's own picture stands in
  std::string source_image; ///< what a saved model records: the image's absolute path, or the model's record
  int32_t image_width = 0, image_height = 0; ///< the image file's own size (0: not read)
  ImageInfo image_info;                      ///< the decoder's header and notes (empty when not read)
  std::string backend_notice;                ///< the factory's notice ("" = none), e.g. a fallback to the CPU
  std::vector<std::string> notices;          ///< what the user should be told (a stand-in picture, a cut image)
};

/// A model's network ready to draw, without a run around it (`render`, `timelapse`, the stand-in
/// picture): the backend and the encoding's Fourier matrix for the model's config.
struct OpenedNetwork {
  std::unique_ptr<Backend> backend;
  ModelSpec model;
  std::vector<float> fourier_b;
  std::string backend_notice; ///< the factory's notice ("" = none)
  /// The network with `params` (the model's weights or a snapshot's); valid while this lives.
  NetworkView view(std::span<const float> params) const { return {&model, params, fourier_b}; }
};

/// The backend `name` (with `precision`) for `model`, from `make_backend`; when "auto" picked one
/// that refuses the model (Backend::model_refusal: a family without GPU kernels), the CPU's
/// instead, the reason added to `notice`. A named backend that refuses it is returned as it is
/// (it says why when bound).
std::unique_ptr<Backend> backend_for_model(const BackendFactory& make_backend, const std::string& name,
                                           const std::string& precision, const ModelSpec& model, std::string* notice);

/// Builds the backend `backend` (with `precision`) for drawing `model`'s network.
OpenedNetwork open_network(const Checkpoint& model, const BackendFactory& make_backend, const std::string& backend,
                           const std::string& precision);

/// Opens a run (see the file comment). `make_backend` builds the run's backend, and the CPU
/// backend that renders a stand-in picture.
OpenedRun open_run(const RunSource& source, const BackendFactory& make_backend, const OpenRunOptions& options = {});

} // namespace redraw
