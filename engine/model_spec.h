#pragma once
/// The shape of a coordinate MLP: encoding -> hidden dense layers -> output dense layer.
/// - Parameters live in one flat float array: first the encoding's trainable table (HashGrid's, or
///   the Gaussians', encoding_parameter_count floats, layouts in engine/hash_grid_math.h and
///   engine/gaussian_math.h), then for each layer its
///   weights (out x in, row-major) and its biases (out). One optimizer launch covers them all, and
///   checkpoints, snapshots and rendering see the table like any other weight.
/// - Initial parameters and the Fourier matrix are drawn on the host from the seed with the
///   counter-based RNG, so every backend starts from the same numbers.
#include "engine/activation_math.h"
#include "engine/encoding_math.h"
#include "engine/hash_grid_math.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace redraw {

/// Weight initialisations. Values are stored in model files: new ones go at the end.
/// - Siren: first layer U(-1/in, 1/in), later U(-sqrt(6/in)/omega_0, +); biases U(-1/sqrt(in), +).
/// - Finer: Siren's, but the first layer's biases U(-first_bias_scale, +) (FINER).
/// - Linear: torch.nn.Linear's default, weights and biases U(-1/sqrt(in), +) (Gauss, WIRE).
enum class InitKind : int32_t { Xavier = 0, He, Siren, Finer, Linear };
constexpr int32_t k_init_count = int32_t(InitKind::Linear) + 1;

struct EncodingSpec {
  EncodingKind kind = k_default_encoding;
  int32_t levels = 8;     ///< Positional: frequency count L
  int32_t features = 256; ///< Fourier: feature count F
  float sigma = 10.0f;    ///< Fourier: standard deviation of the frequencies
  uint64_t seed = 0;      ///< Fourier: matrix seed (0 = use the run's seed)
  // HashGrid (see engine/hash_grid_math.h)
  int32_t n_levels = 16;                                   ///< levels L, 1..32
  int32_t n_features_per_level = 2;                        ///< F: 1, 2, 4 or 8
  int32_t log2_hashmap_size = k_default_log2_hashmap_size; ///< T = 2^this entries per level at most
  int32_t base_resolution = 16;                            ///< N_0: cells per side of the coarsest level
  float per_level_scale = 1.5f;  ///< N_l = N_0 * per_level_scale^l (used when finest_resolution is 0)
  int32_t finest_resolution = 0; ///< > 0: per_level_scale is derived so that N_{L-1} is this
  GridInterpolation interpolation = GridInterpolation::Linear;
  /// Sized to the image (size_hash_grid_to_image): the table follows the pixel count, the finest
  /// resolution the longer side. The fields above then hold the last sizes resolved (or the
  /// defaults before any image); a saved model records the resolved values.
  bool auto_table_size = false;
  bool auto_finest_resolution = false;
  /// Gaussians: how many (the config's model.gaussians), k_gaussian_min_count..k_gaussian_max_count.
  int64_t gaussians = k_default_gaussians;
  /// Gaussians: each has the cosine carrier (the config's model.encoding.carrier; engine/gaussian_math.h).
  bool carrier = false;
  /// Sad: how many sites (the config's model.sites), k_sad_min_sites..k_sad_max_sites.
  int64_t sites = k_default_sites;

  /// A 512x512 image has 2^18 pixels: a table of 2^17 entries per level indexes every level up
  /// to 361 cells per side densely and keeps the finer, hashed levels' collisions moderate.
  static constexpr int32_t k_default_log2_hashmap_size = 17;
  /// A 256 px picture has 65,536 pixels: a Gaussian per 2 pixels (GaussianImage fits 70,000 to a
  /// 768 x 512 Kodak image, one per 5.6 pixels, for its higher-quality rows).
  static constexpr int64_t k_default_gaussians = 30000;
  /// As many floats as the default Gaussians': 24,000 sites of 10.
  static constexpr int64_t k_default_sites = 24000;

  /// Its per-element view (engine/encoding_math.h), as its family (engine/model_family.h) says.
  EncodingParams params() const;
  int32_t width() const { return encoding_width(params()); }
  bool operator==(const EncodingSpec&) const = default;
};

constexpr float k_default_gauss_scale = 10.0f;
constexpr float k_default_first_bias_scale = 1.0f;

struct ModelSpec {
  EncodingSpec encoding;
  std::vector<int32_t> hidden;                  ///< hidden layer widths
  std::vector<Activation> hidden_activations;   ///< one per hidden layer
  Activation output_activation = Activation::Sigmoid;
  InitKind init = InitKind::Xavier;
  float omega_0 = 30.0f;                        ///< sine frequency (SIREN, FINER, Gabor)
  /// s in Gauss's exp(-(s z)^2) and Gabor's cos(omega_0 z) exp(-(s z)^2).
  float gauss_scale = k_default_gauss_scale;
  /// The FINER init's first-layer biases: U(-first_bias_scale, +first_bias_scale). 1 by default:
  /// with coordinates in [-1, 1] the first layer's |z| reaches 2, so its units' local frequency
  /// omega_0 (2|z| + 1) spans 1x to 5x omega_0 (docs/presets.md), below an image's Nyquist limit.
  float first_bias_scale = k_default_first_bias_scale;
  /// > 0: the first dense layer starts with weights and biases uniform in +-this (Xavier and He
  /// only), so its units' edges start sharp and spread over the image instead of all passing
  /// through its centre; 0: the init's own bounds (biases 0).
  float first_layer_scale = 0.0f;
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
/// Every parameter: the encoding's table and the dense layers.
int64_t parameter_count(const ModelSpec& spec);
/// Trainable floats of the encoding at the start of the parameter array (HashGrid's table, the
/// Gaussians), else 0.
int64_t encoding_parameter_count(const EncodingSpec& enc);
/// The per-level scale a HashGrid uses: derived from finest_resolution when that is set
/// (exp2(log2(finest / base) / (L - 1))), per_level_scale otherwise.
double hash_grid_per_level_scale(const EncodingSpec& enc);
/// Bounds of an image-sized table: 2^12 .. 2^19 entries per level. The top bounds memory and the
/// step's cost: every step updates every table entry (Adam), and the weights, gradients and two
/// moments are four copies of the table. At 2^19 a 16-level grid holds at most ~8 M weights
/// (128 MB with its optimizer) whatever the photo: a 24-megapixel one then trains within a
/// gigabyte, and at nearly the rate of a 512 px one (bench/full_res_bench.sh). Set
/// log2_hashmap_size to go beyond it.
constexpr int32_t k_auto_log2_hashmap_min = 12, k_auto_log2_hashmap_max = 19;
/// The table size an image of `pixels` pixels gets: the power of two nearest the pixel count
/// (in log2), within [k_auto_log2_hashmap_min, k_auto_log2_hashmap_max].
int32_t auto_log2_hashmap_size(int64_t pixels);
/// Resolves the auto-sized fields of a HashGrid spec for a w x h training image; others untouched.
void size_hash_grid_to_image(EncodingSpec& enc, int32_t w, int32_t h);
/// Resolved levels (resolutions, dense or hashed, table offsets) of a HashGrid spec. ConfigError
/// naming the field when the spec is invalid.
HashGridParams hash_grid_params(const EncodingSpec& enc);
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

/// The initial HashGrid table: uniform in [-k_hash_grid_init_range, +k_hash_grid_init_range].
constexpr double k_hash_grid_init_range = 1e-4;
/// The Gaussians' initial Cholesky diagonal (raw values, in cells; engine/gaussian_math.h): uniform
/// in k_gaussian_init_size * [0.8, 1.2], so neighbours overlap and the Gaussians tile the picture.
constexpr double k_gaussian_init_size = 1.0;

const char* activation_name(Activation a);
/// The initialisation an activation's paper uses: SIREN for Sine, FINER for Finer, Linear for
/// Gauss and Gabor; `current` for the others.
InitKind paper_init(Activation a, InitKind current);
const char* encoding_name(EncodingKind k);
const char* init_name(InitKind k);
const char* interpolation_name(GridInterpolation g);
Activation parse_activation(const std::string& name);
EncodingKind parse_encoding(const std::string& name);
InitKind parse_init(const std::string& name);
GridInterpolation parse_interpolation(const std::string& name);

} // namespace redraw
