#include "engine/model_spec.h"

#include "engine/errors.h"
#include "engine/named_enum.h"
#include "engine/rng_math.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace redraw {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

namespace {
const NameTable<Activation> k_activations = {
    {"Identity", Activation::Identity}, {"ReLU", Activation::Relu},         {"LeakyReLU", Activation::LeakyRelu},
    {"Tanh", Activation::Tanh},         {"Sigmoid", Activation::Sigmoid},   {"Softplus", Activation::Softplus},
    {"Sine", Activation::Sine},         {"Finer", Activation::Finer},       {"Gauss", Activation::Gauss},
    {"Gabor", Activation::Gabor}};
const NameTable<EncodingKind> k_encodings = {{"Identity", EncodingKind::Identity},
                                             {"Positional", EncodingKind::Positional},
                                             {"Fourier", EncodingKind::Fourier},
                                             {"HashGrid", EncodingKind::HashGrid},
                                             {"Gaussians", EncodingKind::Gaussians}};
const NameTable<GridInterpolation> k_interpolations = {{"Linear", GridInterpolation::Linear},
                                                       {"Smoothstep", GridInterpolation::Smoothstep}};
const NameTable<InitKind> k_inits = {{"Xavier", InitKind::Xavier}, {"He", InitKind::He},
                                     {"SIREN", InitKind::Siren},   {"FINER", InitKind::Finer},
                                     {"Linear", InitKind::Linear}};

constexpr int32_t k_max_width = 8192;
constexpr size_t k_max_layers = 64;
constexpr int64_t k_max_parameters = int64_t(1) << 28;
constexpr uint32_t k_max_grid_resolution = uint32_t(1) << 20;

std::string str(int64_t v) { return std::to_string(v); }

/// Checks the HashGrid fields that do not depend on the derived resolutions.
void validate_hash_grid_fields(const EncodingSpec& e) {
  if (e.n_levels < 1 || e.n_levels > k_hash_grid_max_levels)
    throw ConfigError("model.encoding.n_levels: " + str(e.n_levels) + " is outside [1, " + str(k_hash_grid_max_levels) +
                      "]");
  const int32_t f = e.n_features_per_level;
  if (f != 1 && f != 2 && f != 4 && f != 8)
    throw ConfigError("model.encoding.n_features_per_level: " + str(f) + " must be 1, 2, 4 or 8");
  if (e.log2_hashmap_size < 10 || e.log2_hashmap_size > 24)
    throw ConfigError("model.encoding.log2_hashmap_size: " + str(e.log2_hashmap_size) + " is outside [10, 24]");
  if (e.base_resolution < 2 || uint32_t(e.base_resolution) > k_max_grid_resolution)
    throw ConfigError("model.encoding.base_resolution: " + str(e.base_resolution) + " is outside [2, " +
                      str(k_max_grid_resolution) + "]");
  if (e.finest_resolution != 0 &&
      (e.finest_resolution < e.base_resolution || uint32_t(e.finest_resolution) > k_max_grid_resolution))
    throw ConfigError("model.encoding.finest_resolution: " + str(e.finest_resolution) +
                      " must be 0 (use per_level_scale) or in [base_resolution, " + str(k_max_grid_resolution) + "]");
  if (e.finest_resolution == 0 && !(e.per_level_scale >= 1.0f && e.per_level_scale <= 16.0f))
    throw ConfigError("model.encoding.per_level_scale: must be in [1, 16]");
}
} // namespace

const char* activation_name(Activation a) { return name_of(a, k_activations); }
const char* encoding_name(EncodingKind k) { return name_of(k, k_encodings); }
const char* init_name(InitKind k) { return name_of(k, k_inits); }

InitKind paper_init(Activation a, InitKind current) {
  switch (a) {
  case Activation::Sine: return InitKind::Siren;
  case Activation::Finer: return InitKind::Finer;
  case Activation::Gauss:
  case Activation::Gabor: return InitKind::Linear;
  default: return current;
  }
}
const char* interpolation_name(GridInterpolation g) { return name_of(g, k_interpolations); }
GridInterpolation parse_interpolation(const std::string& n) {
  return lookup_name("Interpolation", n, k_interpolations);
}

int32_t auto_log2_hashmap_size(int64_t pixels) {
  const int32_t nearest = int32_t(std::lround(std::log2(double(std::max<int64_t>(pixels, 1)))));
  return std::clamp(nearest, k_auto_log2_hashmap_min, k_auto_log2_hashmap_max);
}

void size_hash_grid_to_image(EncodingSpec& e, int32_t w, int32_t h) {
  if (e.kind != EncodingKind::HashGrid || w < 1 || h < 1) return;
  if (e.auto_table_size) e.log2_hashmap_size = auto_log2_hashmap_size(int64_t(w) * h);
  // One cell per pixel along the longer side at the finest level.
  if (e.auto_finest_resolution)
    e.finest_resolution = std::clamp<int32_t>(std::max(w, h), e.base_resolution, int32_t(k_max_grid_resolution));
}

double hash_grid_per_level_scale(const EncodingSpec& e) {
  if (e.finest_resolution > 0 && e.n_levels > 1)
    return std::exp2(std::log2(double(e.finest_resolution) / double(e.base_resolution)) / double(e.n_levels - 1));
  return double(e.per_level_scale);
}

HashGridParams hash_grid_params(const EncodingSpec& e) {
  validate_hash_grid_fields(e);
  HashGridParams g;
  g.n_levels = e.n_levels;
  g.n_features = e.n_features_per_level;
  const uint64_t table = uint64_t(1) << e.log2_hashmap_size;
  g.hash_mask = uint32_t(table - 1);
  g.interpolation = e.interpolation;
  const double scale = hash_grid_per_level_scale(e);
  uint64_t offset = 0;
  for (int32_t l = 0; l < e.n_levels; ++l) {
    // The 1e-6 keeps a derived finest level exact: 16 * (2048/16)^(15/15) may come out as 2047.9999.
    const double n = std::floor(double(e.base_resolution) * std::pow(scale, double(l)) + 1e-6);
    if (n > double(k_max_grid_resolution))
      throw ConfigError("model.encoding: level " + str(l) + " would have " + str(int64_t(n)) +
                        " cells per side, over the limit of " + str(k_max_grid_resolution) +
                        " (lower per_level_scale or n_levels)");
    g.resolution[l] = uint32_t(n);
    const uint64_t vertices = (uint64_t(n) + 1) * (uint64_t(n) + 1);
    g.dense[l] = vertices <= table ? 1u : 0u;
    g.offset[l] = uint32_t(offset);
    offset += g.dense[l] ? vertices : table;
  }
  g.offset[e.n_levels] = uint32_t(offset);
  return g;
}

int64_t encoding_parameter_count(const EncodingSpec& e) {
  if (e.kind == EncodingKind::Gaussians) return e.gaussians * k_gaussian_floats;
  if (e.kind != EncodingKind::HashGrid) return 0;
  const HashGridParams g = hash_grid_params(e);
  return int64_t(hash_grid_entries(g)) * g.n_features;
}
Activation parse_activation(const std::string& n) { return lookup_name("Activation", n, k_activations); }
EncodingKind parse_encoding(const std::string& n) { return lookup_name("Encoding", n, k_encodings); }
InitKind parse_init(const std::string& n) { return lookup_name("Init", n, k_inits); }

void validate(const ModelSpec& s) {
  if (s.hidden.size() > k_max_layers)
    throw ConfigError("model.hidden: " + std::to_string(s.hidden.size()) + " layers is over the limit of " +
                      std::to_string(k_max_layers));
  if (s.hidden_activations.size() != s.hidden.size())
    throw ConfigError("model.activations: " + std::to_string(s.hidden_activations.size()) +
                      " activations for " + std::to_string(s.hidden.size()) + " hidden layers");
  for (size_t i = 0; i < s.hidden.size(); ++i)
    if (s.hidden[i] < 1 || s.hidden[i] > k_max_width)
      throw ConfigError("model.hidden[" + std::to_string(i) + "]: width " + std::to_string(s.hidden[i]) +
                        " is outside [1, " + std::to_string(k_max_width) + "]");
  if (s.output_channels != 1 && s.output_channels != 3)
    throw ConfigError("model: output_channels must be 1 or 3, not " + std::to_string(s.output_channels));
  if (!(s.omega_0 > 0.0f) || !std::isfinite(s.omega_0) || s.omega_0 > 1e4f)
    throw ConfigError("model.omega_0: must be in (0, 10000]");
  if (!(s.gauss_scale > 0.0f) || !std::isfinite(s.gauss_scale) || s.gauss_scale > 1e4f)
    throw ConfigError("model.gauss_scale: must be in (0, 10000]");
  if (!(s.first_bias_scale >= 0.0f) || !std::isfinite(s.first_bias_scale) || s.first_bias_scale > 1e4f)
    throw ConfigError("model.first_bias_scale: must be in [0, 10000]");
  const auto& e = s.encoding;
  if (e.kind == EncodingKind::Positional && (e.levels < 1 || e.levels > 24))
    throw ConfigError("model.encoding.levels: " + std::to_string(e.levels) + " is outside [1, 24]");
  if (e.kind == EncodingKind::Fourier) {
    if (e.features < 1 || e.features > 4096)
      throw ConfigError("model.encoding.features: " + std::to_string(e.features) + " is outside [1, 4096]");
    if (!(e.sigma > 0.0f) || !std::isfinite(e.sigma) || e.sigma > 1e4f)
      throw ConfigError("model.encoding.sigma: must be in (0, 10000]");
  }
  if (e.kind == EncodingKind::Gaussians &&
      (e.gaussians < k_gaussian_min_count || e.gaussians > k_gaussian_max_count))
    throw ConfigError("model.gaussians: " + std::to_string(e.gaussians) + " is outside [" +
                      std::to_string(k_gaussian_min_count) + ", " + std::to_string(k_gaussian_max_count) + "]");
  if (e.kind == EncodingKind::HashGrid && int64_t(e.n_levels) * e.n_features_per_level > 256)
    throw ConfigError("model.encoding: n_levels x n_features_per_level is over 256");
  int64_t count = encoding_parameter_count(e); // validates the HashGrid fields
  int64_t in = e.width();
  for (int32_t w : s.hidden) {
    count += (in + 1) * w;
    in = w;
  }
  count += (in + 1) * s.output_channels;
  if (count > k_max_parameters)
    throw ConfigError("model: " + std::to_string(count) + " parameters is over the limit of " +
                      std::to_string(k_max_parameters));
}

std::vector<DenseLayer> dense_layers(const ModelSpec& s) {
  validate(s);
  std::vector<DenseLayer> layers;
  int64_t offset = encoding_parameter_count(s.encoding);
  int32_t in = s.encoding.width();
  auto add = [&](int32_t out, Activation act) {
    DenseLayer l;
    l.in = in;
    l.out = out;
    l.activation = act;
    l.weight_offset = offset;
    offset += int64_t(in) * out;
    l.bias_offset = offset;
    offset += out;
    layers.push_back(l);
    in = out;
  };
  for (size_t i = 0; i < s.hidden.size(); ++i) add(s.hidden[i], s.hidden_activations[i]);
  add(s.output_channels, s.output_activation);
  return layers;
}

int64_t parameter_count(const ModelSpec& s) {
  const auto layers = dense_layers(s);
  return layers.back().bias_offset + layers.back().out;
}

int32_t max_layer_width(const ModelSpec& s) {
  int32_t m = s.encoding.width();
  for (const auto& l : dense_layers(s)) m = std::max({m, l.in, l.out});
  return m;
}

int64_t forward_macs_per_sample(const ModelSpec& s) {
  int64_t macs = 0;
  for (const auto& l : dense_layers(s)) macs += int64_t(l.in) * l.out;
  return macs;
}

namespace {
/// The Gaussians' initial floats (layout in engine/gaussian_math.h), from the seed alone, so a seed
/// gives the same model on every machine and for every image (as GaussianImage, which draws its
/// means uniformly too, never from the picture):
/// - means uniform over [-1, 1]^2 (the picture, whatever its size or aspect);
/// - Cholesky diagonals k_gaussian_init_size cells (+-20%), about the mean spacing, so each point
///   is covered by several Gaussians and the gradient reaches every pixel; l21 small (+-0.1 cell):
///   nearly round at first;
/// - colours uniform in [0, 2m], m such that the expected sum is 0.5: the first picture is a
///   noisy mid grey, not black, so the first steps fit the picture rather than its mean.
void init_gaussians(const EncodingSpec& e, uint64_t seed, float* p) {
  auto uniform = [seed](uint64_t i, double lo, double hi) {
    return float(lo + (hi - lo) * random_unit(seed, k_stream_gaussians, i));
  };
  const double f = k_gaussian_diag_floor, s = k_gaussian_init_size;
  // The integral of w over the plane is 2 pi sigma_x sigma_y (1 - (1 + cutoff/2) exp(-cutoff/2)) and
  // the Gaussians' density is one per cell^2.
  const double coverage = 2.0 * k_pi * (s * s + f * f) *
                          (1.0 - (1.0 + 0.5 * k_gaussian_cutoff) * std::exp(-0.5 * k_gaussian_cutoff));
  const double colour_max = 2.0 * 0.5 / coverage;
  for (int64_t i = 0; i < e.gaussians; ++i) {
    float* g = p + i * k_gaussian_floats;
    const uint64_t c = uint64_t(i) * k_gaussian_floats;
    g[k_gauss_mx] = uniform(c + k_gauss_mx, -1.0, 1.0);
    g[k_gauss_my] = uniform(c + k_gauss_my, -1.0, 1.0);
    g[k_gauss_l11] = uniform(c + k_gauss_l11, 0.8 * s, 1.2 * s);
    g[k_gauss_l21] = uniform(c + k_gauss_l21, -0.1 * s, 0.1 * s);
    g[k_gauss_l22] = uniform(c + k_gauss_l22, 0.8 * s, 1.2 * s);
    for (int32_t k = 0; k < k_gaussian_channels; ++k)
      g[k_gauss_colour + k] = uniform(c + uint64_t(k_gauss_colour + k), 0.0, colour_max);
  }
}
} // namespace

std::vector<float> initial_parameters(const ModelSpec& s, uint64_t seed) {
  const auto layers = dense_layers(s);
  std::vector<float> p(size_t(layers.back().bias_offset + layers.back().out));
  // The table: its own stream, so the dense layers draw the same numbers with or without one.
  const int64_t table = encoding_parameter_count(s.encoding);
  if (s.encoding.kind == EncodingKind::Gaussians) {
    init_gaussians(s.encoding, seed, p.data());
    // The colour head passes the Gaussians' sum through: the identity (a grey picture takes the
    // mean of the three), zero biases, whatever model.init says, so the picture is the Gaussians'.
    if (layers.size() == 1) {
      const DenseLayer& l = layers[0];
      for (int32_t o = 0; o < l.out; ++o)
        for (int32_t i = 0; i < l.in; ++i)
          p[size_t(l.weight_offset + int64_t(o) * l.in + i)] = l.out == l.in ? (o == i ? 1.0f : 0.0f) : 1.0f / float(l.in);
      return p;
    }
  }
  for (int64_t i = 0; i < table && s.encoding.kind == EncodingKind::HashGrid; ++i)
    p[size_t(i)] = float((2.0 * random_unit(seed, k_stream_hash_grid, uint64_t(i)) - 1.0) * k_hash_grid_init_range);
  uint64_t counter = 0;
  auto uniform = [&](double bound) { return float((2.0 * random_unit(seed, k_stream_init, counter++) - 1.0) * bound); };
  for (size_t li = 0; li < layers.size(); ++li) {
    const DenseLayer& l = layers[li];
    double w_bound = 0.0, b_bound = 0.0;
    switch (s.init) {
    case InitKind::Xavier: w_bound = std::sqrt(6.0 / double(l.in + l.out)); break;
    case InitKind::He: w_bound = std::sqrt(6.0 / double(l.in)); break;
    case InitKind::Siren:
    case InitKind::Finer:
      // SIREN: first layer U(-1/n, 1/n); later U(-sqrt(6/n)/omega_0, +); biases as torch.nn.Linear.
      // FINER: the same, but the first layer's biases U(-first_bias_scale, +).
      w_bound = li == 0 ? 1.0 / double(l.in) : std::sqrt(6.0 / double(l.in)) / double(s.omega_0);
      b_bound = 1.0 / std::sqrt(double(l.in));
      if (s.init == InitKind::Finer && li == 0) b_bound = double(s.first_bias_scale);
      break;
    case InitKind::Linear: w_bound = b_bound = 1.0 / std::sqrt(double(l.in)); break;
    }
    if (li == 0 && s.first_layer_scale > 0 && (s.init == InitKind::Xavier || s.init == InitKind::He))
      w_bound = b_bound = s.first_layer_scale;
    for (int64_t i = 0; i < int64_t(l.in) * l.out; ++i) p[size_t(l.weight_offset + i)] = uniform(w_bound);
    for (int64_t i = 0; i < l.out; ++i) p[size_t(l.bias_offset + i)] = b_bound > 0 ? uniform(b_bound) : 0.0f;
  }
  return p;
}

std::vector<float> fourier_matrix(const EncodingSpec& e, uint64_t run_seed) {
  if (e.kind != EncodingKind::Fourier) return {};
  const uint64_t seed = e.seed ? e.seed : run_seed;
  std::vector<float> b(size_t(e.features) * 2);
  for (size_t i = 0; i < b.size(); ++i) {
    // Box-Muller from two independent uniforms.
    const double u1 = 1.0 - random_unit(seed, k_stream_fourier, 2 * i);
    const double u2 = random_unit(seed, k_stream_fourier, 2 * i + 1);
    b[i] = float(e.sigma * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * k_pi * u2));
  }
  return b;
}

} // namespace redraw
