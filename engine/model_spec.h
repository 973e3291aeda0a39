#pragma once
/// The shape of a coordinate MLP: encoding -> hidden dense layers -> output dense layer.
/// - Parameters live in one flat float array: for each layer, its weights (out x in, row-major) and
///   then its biases (out). One optimizer launch covers them all.
/// - Initial parameters and the Fourier matrix are drawn on the host from the seed with the
///   counter-based RNG, so every backend starts from the same numbers.
#include "engine/activation_math.h"
#include "engine/encoding_math.h"

#include <cstdint>
#include <string>
#include <vector>

namespace redraw {

enum class InitKind : int32_t { Xavier = 0, He, Siren };

struct EncodingSpec {
  EncodingKind kind = EncodingKind::Identity;
  int32_t levels = 8;     ///< Positional: frequency count L
  int32_t features = 256; ///< Fourier: feature count F
  float sigma = 10.0f;    ///< Fourier: standard deviation of the frequencies
  uint64_t seed = 0;      ///< Fourier: matrix seed (0 = use the run's seed)

  EncodingParams params() const { return {kind, levels, features}; }
  int32_t width() const { return encoding_width(params()); }
};

struct ModelSpec {
  EncodingSpec encoding;
  std::vector<int32_t> hidden;                  ///< hidden layer widths
  std::vector<Activation> hidden_activations;   ///< one per hidden layer
  Activation output_activation = Activation::Sigmoid;
  InitKind init = InitKind::Xavier;
  float omega_0 = 30.0f;                        ///< sine frequency (SIREN)
  int32_t output_channels = 1;                  ///< 1 (gray, binary) or 3 (rgb)
};

/// One dense layer of the flattened network.
struct DenseLayer {
  int32_t in = 0, out = 0;
  Activation activation = Activation::Identity;
  int64_t weight_offset = 0; ///< into the flat parameter array
  int64_t bias_offset = 0;
};

/// Dense layers in order (hidden..., output). Throws ConfigError on an invalid spec.
std::vector<DenseLayer> dense_layers(const ModelSpec& spec);
int64_t parameter_count(const ModelSpec& spec);
/// Widest layer input or output, encoding included.
int32_t max_layer_width(const ModelSpec& spec);
/// Multiply-adds of one forward pass for one sample (dense layers only).
int64_t forward_macs_per_sample(const ModelSpec& spec);
/// Throws ConfigError naming the field when the spec cannot be built.
void validate(const ModelSpec& spec);

/// Initial parameters from the spec's init scheme, drawn from `seed`.
std::vector<float> initial_parameters(const ModelSpec& spec, uint64_t seed);
/// The Fourier frequency matrix (F x 2, row-major), empty for other encodings.
std::vector<float> fourier_matrix(const EncodingSpec& enc, uint64_t run_seed);

const char* activation_name(Activation a);
const char* encoding_name(EncodingKind k);
const char* init_name(InitKind k);
Activation parse_activation(const std::string& name);
EncodingKind parse_encoding(const std::string& name);
InitKind parse_init(const std::string& name);

} // namespace redraw
