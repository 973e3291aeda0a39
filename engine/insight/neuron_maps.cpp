#include "engine/insight/neuron_maps.h"

#include "engine/dataset.h"
#include "engine/errors.h"
#include "engine/model_family.h"

#include <algorithm>
#include <cmath>

namespace redraw {

int32_t neuron_layer_count(const ModelSpec& model) { return int32_t(model.hidden.size()) + 2; }

int32_t neuron_layer_width(const ModelSpec& model, int32_t layer) {
  if (layer < 0 || layer >= neuron_layer_count(model))
    throw ConfigError("neuron maps: layer " + std::to_string(layer) + " is out of range (0.." +
                      std::to_string(neuron_layer_count(model) - 1) + ")");
  if (layer == 0) return model.encoding.width();
  if (layer <= int32_t(model.hidden.size())) return model.hidden[size_t(layer - 1)];
  return model.output_channels;
}

std::string neuron_layer_name(const ModelSpec& model, int32_t layer) {
  const int32_t n = neuron_layer_width(model, layer);
  if (layer == 0) return std::string("encoding: ") + encoding_name(model.encoding.kind) + ", " + std::to_string(n);
  if (layer <= int32_t(model.hidden.size()))
    return "hidden " + std::to_string(layer) + ": " + std::to_string(n) + " " +
           activation_name(model.hidden_activations[size_t(layer - 1)]);
  return "output: " + std::to_string(n) + " " + activation_name(model.output_activation);
}

void neuron_map_size(int32_t w, int32_t h, int32_t side, int32_t& out_w, int32_t& out_h) {
  w = std::max(1, w);
  h = std::max(1, h);
  side = std::max(1, side);
  if (w >= h) {
    out_w = side;
    out_h = std::max(1, int32_t(std::lround(double(side) * h / w)));
  } else {
    out_h = side;
    out_w = std::max(1, int32_t(std::lround(double(side) * w / h)));
  }
}

NeuronMaps compute_neuron_maps(const ModelSpec& model, std::span<const float> params, std::span<const float> fourier_b,
                               int32_t layer, int32_t width, int32_t height, const std::function<bool()>& cancelled) {
  validate(model);
  // Each pixel of its encoding sums every Gaussian whose support holds it: the engine has no
  // tiled pass for that (the backends do), and all pairs would cost count x pixels.
  const ModelFamily& family = model_family(model.encoding.kind);
  if (family.no_neurons)
    throw ConfigError("neuron maps: a " + family_noun(family) + " model has no neurons to map (" + family.no_neurons +
                      ")");
  const int32_t units = neuron_layer_width(model, layer);
  if (width < 1 || height < 1 || int64_t(width) * height > (int64_t(1) << 22))
    throw ConfigError("neuron maps: size " + std::to_string(width) + "x" + std::to_string(height) + " is out of range");
  if (int64_t(params.size()) != parameter_count(model))
    throw ConfigError("neuron maps: " + std::to_string(params.size()) + " parameters given, the network has " +
                      std::to_string(parameter_count(model)));
  const std::vector<DenseLayer> dense = dense_layers(model);
  const EncodingParams enc = model.encoding.params();
  const auto encoder = family.host_encoder ? family.host_encoder(model.encoding, params) : nullptr;
  if (family.fixed_count && int64_t(fourier_b.size()) < family.fixed_count(model.encoding))
    throw ConfigError(std::string("neuron maps: the ") + family.fixed_noun + " is missing");

  NeuronMaps out;
  out.layer = layer;
  out.units = units;
  out.width = width;
  out.height = height;
  const size_t plane = size_t(width) * size_t(height);
  out.values.assign(size_t(units) * plane, 0.0f);

  const int32_t enc_w = encoding_width(enc);
  int32_t widest = enc_w;
  for (const auto& L : dense)
    widest = std::max(widest, L.out);
  std::vector<float> a(static_cast<size_t>(widest)), b(static_cast<size_t>(widest));
  std::vector<float> coords(static_cast<size_t>(width) * 2);
  constexpr int32_t k_band_rows = 4;
  for (int32_t y0 = 0; y0 < height; y0 += k_band_rows) {
    if (cancelled && cancelled()) throw CancelledError("neuron maps: cancelled");
    const int32_t y1 = std::min(height, y0 + k_band_rows);
    for (int32_t y = y0; y < y1; ++y) {
      grid_coordinates(width, height, y, y + 1, coords.data());
      for (int32_t x = 0; x < width; ++x) {
        const float cx = coords[size_t(x) * 2], cy = coords[size_t(x) * 2 + 1];
        if (encoder) {
          encoder(cx, cy, a.data());
        } else {
          for (int32_t j = 0; j < enc_w; ++j)
            a[size_t(j)] = encoding_value<float>(enc, fourier_b.data(), cx, cy, j);
        }
        for (int32_t li = 0; li < layer; ++li) {
          const DenseLayer& L = dense[size_t(li)];
          const float* W = params.data() + L.weight_offset;
          const float* bias = params.data() + L.bias_offset;
          for (int32_t o = 0; o < L.out; ++o) {
            float s = bias[o];
            const float* row = W + size_t(o) * size_t(L.in);
            for (int32_t i = 0; i < L.in; ++i)
              s += row[i] * a[size_t(i)];
            b[size_t(o)] = activate<float>(L.activation, s, model.omega_0, model.gauss_scale);
          }
          std::swap(a, b);
        }
        const size_t px = size_t(y) * size_t(width) + size_t(x);
        for (int32_t u = 0; u < units; ++u)
          out.values[size_t(u) * plane + px] = a[size_t(u)];
      }
    }
  }
  out.lo.resize(size_t(units));
  out.hi.resize(size_t(units));
  out.variance.resize(size_t(units));
  for (int32_t u = 0; u < units; ++u) {
    const float* m = out.map(u);
    float lo = m[0], hi = m[0];
    double sum = 0, sq = 0;
    for (size_t i = 0; i < plane; ++i) {
      lo = std::min(lo, m[i]);
      hi = std::max(hi, m[i]);
      sum += m[i];
      sq += double(m[i]) * m[i];
    }
    const double mean = sum / double(plane);
    out.lo[size_t(u)] = lo;
    out.hi[size_t(u)] = hi;
    out.variance[size_t(u)] = std::max(0.0, sq / double(plane) - mean * mean);
  }
  return out;
}

} // namespace redraw
