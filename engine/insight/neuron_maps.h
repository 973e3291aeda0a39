#pragma once
/// Neuron maps: each unit's activation over the whole picture, at a thumbnail resolution.
/// - Layers are numbered 0 = the encoding's output (for a HashGrid: level l's feature f is unit
///   l * F + f, so every level has its maps), 1..H = hidden layer 1..H after its activation,
///   H + 1 = the network's output after its activation.
/// - compute_neuron_maps runs a plain single-threaded forward pass on the host from a flat
///   parameter vector (the layout of engine/model_spec.h), band by band of rows, so a worker
///   thread can run it from a parameter snapshot while training goes on, and give up between
///   bands (`cancelled`). It stops at the chosen layer. No BLAS and no OpenMP: it never competes
///   with the training thread's pool.
#include "engine/model_spec.h"

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace redraw {

/// A copy of a network at one step, for views computed off the training thread.
struct NetworkSnapshot {
  ModelSpec model;
  std::vector<float> params;
  std::vector<float> fourier_b;
  int64_t step = 0;
};

struct NeuronMaps {
  int32_t layer = 0, units = 0, width = 0, height = 0;
  std::vector<float> values;    ///< units x height x width: unit u's map starts at u * width * height
  std::vector<float> lo, hi;    ///< per unit: smallest and largest value
  std::vector<double> variance; ///< per unit, over its map's pixels
  const float* map(int32_t u) const { return values.data() + size_t(u) * size_t(width) * size_t(height); }
};

/// Number of layers with maps: hidden layers + 2 (encoding and output).
int32_t neuron_layer_count(const ModelSpec& model);
/// Units in layer `layer` (ConfigError when out of range).
int32_t neuron_layer_width(const ModelSpec& model, int32_t layer);
/// "encoding: Fourier, 512", "hidden 2: 256 sine", "output: 3 sigmoid".
std::string neuron_layer_name(const ModelSpec& model, int32_t layer);
/// The thumbnail size for a w x h picture: the longest side `side`, the aspect kept (each >= 1).
void neuron_map_size(int32_t w, int32_t h, int32_t side, int32_t& out_w, int32_t& out_h);

/// Activations of every unit of `layer` at the pixel centres of a width x height grid over
/// [-1, 1]^2 (the same coordinates as training). ConfigError for a bad layer, size or parameter
/// count; CancelledError when `cancelled` returns true (checked between bands of rows).
NeuronMaps compute_neuron_maps(const ModelSpec& model, std::span<const float> params, std::span<const float> fourier_b,
                               int32_t layer, int32_t width, int32_t height,
                               const std::function<bool()>& cancelled = {});

} // namespace redraw
