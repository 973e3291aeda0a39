#pragma once
/// Portable weights: a network's tensors in the safetensors format, readable by any tool (numpy
/// alone: python/redraw_reference.py; docs/python.md, "The weights file").
/// - Layout: an 8-byte little-endian header length N, N bytes of JSON (padded with spaces to a
///   multiple of 8), then the tensors' raw little-endian float32 data back to back.
/// - The header maps each tensor name to {"dtype": "F32", "shape": [...], "data_offsets": [b, e]}
///   (offsets into the data that follows the header), and "__metadata__" to string values only:
///   the run config as JSON, and the facts a decoder needs (activations, omega_0, the hash grid's
///   resolved levels) spelled out.
/// - Tensors: "encoding.fourier_b" (F x 2, Fourier), "encoding.hash_grid.level_NN" (entries x
///   features of level NN, HashGrid), "encoding.gaussians" (count x 8, Gaussians: the layout of
///   engine/gaussian_math.h), then "layers.K.weight" (out x in, row-major) and
///   "layers.K.bias" (out) for every dense layer, the output layer last.
/// - The file is written atomically (atomic_file.h); the tensors are streamed from the weights,
///   never copied whole.
#include "engine/run_config.h"

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace redraw {

/// The network to export: its config (the model's shape and seeds), its flat weights (the
/// layout of model_spec.h), the training size and the step it is from.
struct WeightsSource {
  const RunConfig* config = nullptr;
  std::span<const float> params;
  int32_t image_width = 0, image_height = 0;
  int64_t step = 0;
};

/// The file's bytes (for tests and small networks). ConfigError when the weights do not fit the
/// config's network (a count that differs, named with both numbers).
std::vector<uint8_t> weights_safetensors(const WeightsSource& source);
/// Writes the same bytes to `file` atomically. IoError naming the file when it cannot be written.
void export_weights_safetensors(const std::filesystem::path& file, const WeightsSource& source);

} // namespace redraw
