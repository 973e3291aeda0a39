#include "engine/model_spec.h"

#include "engine/errors.h"
#include "engine/model_family.h"
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
const NameTable<GridInterpolation> k_interpolations = {{"Linear", GridInterpolation::Linear},
                                                       {"Smoothstep", GridInterpolation::Smoothstep}};
const NameTable<InitKind> k_inits = {{"Xavier", InitKind::Xavier}, {"He", InitKind::He},
                                     {"SIREN", InitKind::Siren},   {"FINER", InitKind::Finer},
                                     {"Linear", InitKind::Linear}};

constexpr int32_t k_max_width = 8192;
constexpr size_t k_max_layers = 64;
constexpr int64_t k_max_parameters = int64_t(1) << 28;
} // namespace

const char* activation_name(Activation a) { return name_of(a, k_activations); }
const char* encoding_name(EncodingKind k) { return model_family(k).name; }
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

int64_t encoding_parameter_count(const EncodingSpec& e) {
  const ModelFamily& f = model_family(e.kind);
  return f.trained_count ? f.trained_count(e) : 0;
}

EncodingParams EncodingSpec::params() const { return model_family(kind).device_params(*this); }
Activation parse_activation(const std::string& n) { return lookup_name("Activation", n, k_activations); }
EncodingKind parse_encoding(const std::string& n) { return model_family_named(n).kind; }
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
  if (const ModelFamily& f = model_family(e.kind); f.validate) f.validate(e);
  int64_t count = encoding_parameter_count(e); // validates the fields its table depends on
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

std::vector<float> initial_parameters(const ModelSpec& s, uint64_t seed) {
  const auto layers = dense_layers(s);
  std::vector<float> p(size_t(layers.back().bias_offset + layers.back().out));
  // The encoding's trainable floats, each family from its own stream, so the dense layers draw the
  // same numbers with or without them.
  if (const ModelFamily& f = model_family(s.encoding.kind); f.init && f.init(s, layers, seed, p.data())) return p;
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

} // namespace redraw
