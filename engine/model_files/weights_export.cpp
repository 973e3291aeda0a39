#include "engine/model_files/weights_export.h"

#include "engine/atomic_file.h"
#include "engine/errors.h"

#include <nlohmann/json.hpp>

#include <bit>
#include <cstdio>
#include <cstring>

namespace redraw {

namespace {

static_assert(std::endian::native == std::endian::little, "safetensors data is little-endian, as this host");

struct TensorPart {
  std::string name;
  std::vector<int64_t> shape;
  std::span<const float> values;
};

/// The tensors in file order, their values borrowed from `params` (or `fourier_b`), and the header.
struct WeightsPlan {
  std::vector<float> fourier_b;
  std::vector<TensorPart> tensors;
  std::string header; ///< padded to a multiple of 8
};

std::string two_digits(int v) {
  char b[8];
  std::snprintf(b, sizeof b, "%02d", v);
  return b;
}

nlohmann::json metadata(const WeightsSource& s, const std::vector<DenseLayer>& layers) {
  const RunConfig& c = *s.config;
  const ModelSpec& m = c.model;
  nlohmann::json acts = nlohmann::json::array();
  for (const DenseLayer& l : layers) acts.push_back(activation_name(l.activation));
  nlohmann::json md = {
      {"format", "redraw-weights"},
      {"format_version", "1"},
      {"config", to_json(c).dump()},
      {"encoding", encoding_name(m.encoding.kind)},
      {"layer_count", std::to_string(layers.size())},
      {"activations", acts.dump()}, // one per dense layer, the output layer's last
      {"omega_0", nlohmann::json(double(m.omega_0)).dump()},
      {"gauss_scale", nlohmann::json(double(m.gauss_scale)).dump()}, // s of Gauss and Gabor
      {"output_channels", std::to_string(m.output_channels)},
      {"image_width", std::to_string(s.image_width)},
      {"image_height", std::to_string(s.image_height)},
      {"step", std::to_string(s.step)},
      {"coordinates", "x, y in [-1, 1]; pixel i of n at 2 (i + 0.5) / n - 1; outputs clamped to [0, 1]"}};
  if (m.encoding.kind == EncodingKind::Positional) md["positional_levels"] = std::to_string(m.encoding.levels);
  if (m.encoding.kind == EncodingKind::Gaussians) { // the rule is engine/gaussian_math.h's
    md["gaussians"] = std::to_string(m.encoding.gaussians);
    md["gaussian_fields"] = "mx, my, l11, l21, l22, r, g, b";
    md["gaussian_diag_floor"] = nlohmann::json(k_gaussian_diag_floor).dump();
    md["gaussian_cutoff"] = nlohmann::json(k_gaussian_cutoff).dump();
    md["gaussian_rule"] = "L = cell [[d(l11), 0], [l21, d(l22)]], d(l) = sqrt(l^2 + gaussian_diag_floor^2), "
                          "cell = float32(2 / sqrt(gaussians)); w = exp(-q/2) - exp(-gaussian_cutoff/2) where "
                          "q = |L^-1 (p - mean)|^2 < gaussian_cutoff, else 0; the encoding is the sum of w (r, g, b)";
  }
  if (m.encoding.kind == EncodingKind::HashGrid) {
    const HashGridParams g = hash_grid_params(m.encoding);
    nlohmann::json res = nlohmann::json::array(), dense = nlohmann::json::array();
    for (int32_t l = 0; l < g.n_levels; ++l) {
      res.push_back(g.resolution[l]);
      dense.push_back(g.dense[l] != 0);
    }
    md["hash_grid_levels"] = std::to_string(g.n_levels);
    md["hash_grid_features"] = std::to_string(g.n_features);
    md["hash_grid_resolutions"] = res.dump();
    md["hash_grid_dense"] = dense.dump();
    md["hash_grid_table_size"] = std::to_string(uint64_t(g.hash_mask) + 1);
    md["hash_grid_interpolation"] = interpolation_name(g.interpolation);
    md["hash_grid_prime_y"] = std::to_string(k_hash_grid_prime_y);
  }
  return md;
}

WeightsPlan plan_weights(const WeightsSource& s) {
  if (!s.config) throw ConfigError("export-weights: no network");
  const ModelSpec& m = s.config->model;
  const std::vector<DenseLayer> layers = dense_layers(m);
  const int64_t expected = parameter_count(m);
  if (int64_t(s.params.size()) != expected)
    throw ConfigError("export-weights: the network has " + std::to_string(expected) + " parameters, the weights " +
                      std::to_string(s.params.size()));
  WeightsPlan p;
  if (m.encoding.kind == EncodingKind::Fourier) {
    p.fourier_b = fourier_matrix(m.encoding, s.config->training.seed);
    p.tensors.push_back({"encoding.fourier_b", {int64_t(m.encoding.features), 2}, p.fourier_b});
  }
  if (m.encoding.kind == EncodingKind::HashGrid) {
    const HashGridParams g = hash_grid_params(m.encoding);
    for (int32_t l = 0; l < g.n_levels; ++l) {
      const int64_t entries = int64_t(g.offset[l + 1]) - g.offset[l];
      p.tensors.push_back({"encoding.hash_grid.level_" + two_digits(l),
                           {entries, int64_t(g.n_features)},
                           s.params.subspan(size_t(g.offset[l]) * size_t(g.n_features), size_t(entries * g.n_features))});
    }
  }
  if (m.encoding.kind == EncodingKind::Gaussians) // one row per Gaussian: engine/gaussian_math.h's layout
    p.tensors.push_back({"encoding.gaussians",
                         {m.encoding.gaussians, int64_t(k_gaussian_floats)},
                         s.params.subspan(0, size_t(m.encoding.gaussians) * size_t(k_gaussian_floats))});
  for (size_t k = 0; k < layers.size(); ++k) {
    const DenseLayer& L = layers[k];
    p.tensors.push_back({"layers." + std::to_string(k) + ".weight",
                         {int64_t(L.out), int64_t(L.in)},
                         s.params.subspan(size_t(L.weight_offset), size_t(L.out) * size_t(L.in))});
    p.tensors.push_back(
        {"layers." + std::to_string(k) + ".bias", {int64_t(L.out)}, s.params.subspan(size_t(L.bias_offset), size_t(L.out))});
  }
  nlohmann::json header = nlohmann::json::object();
  uint64_t offset = 0;
  for (const TensorPart& t : p.tensors) {
    const uint64_t bytes = t.values.size() * sizeof(float);
    header[t.name] = {{"dtype", "F32"}, {"shape", t.shape}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  header["__metadata__"] = metadata(s, layers);
  // ensure_ascii: a config name with any bytes stays valid JSON; spaces pad to 8 (the format's alignment).
  p.header = header.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
  p.header.append((8 - p.header.size() % 8) % 8, ' ');
  return p;
}

void put_u64_le(uint8_t* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out[i] = uint8_t(v >> (8 * i));
}

} // namespace

std::vector<uint8_t> weights_safetensors(const WeightsSource& source) {
  const WeightsPlan p = plan_weights(source);
  std::vector<uint8_t> out(8 + p.header.size());
  put_u64_le(out.data(), p.header.size());
  std::memcpy(out.data() + 8, p.header.data(), p.header.size());
  for (const TensorPart& t : p.tensors) {
    const auto* b = reinterpret_cast<const uint8_t*>(t.values.data());
    out.insert(out.end(), b, b + t.values.size() * sizeof(float));
  }
  return out;
}

void export_weights_safetensors(const std::filesystem::path& file, const WeightsSource& source) {
  const WeightsPlan p = plan_weights(source);
  AtomicFileWriter out(file);
  uint8_t length[8];
  put_u64_le(length, p.header.size());
  out.write(length, sizeof length);
  out.write(p.header.data(), p.header.size());
  for (const TensorPart& t : p.tensors) out.write(t.values.data(), t.values.size() * sizeof(float));
  out.commit();
}

} // namespace redraw
