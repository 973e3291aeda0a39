#include "engine/model_files/weights_export.h"

#include "engine/atomic_file.h"
#include "engine/errors.h"
#include "engine/model_family.h"

#include <nlohmann/json.hpp>

#include <bit>
#include <cstdio>
#include <cstring>

namespace redraw {

namespace {

static_assert(std::endian::native == std::endian::little, "safetensors data is little-endian, as this host");

using TensorPart = FamilyTensor;

/// The tensors in file order, their values borrowed from `params` (or the family's own, such as
/// the Fourier matrix), and the header.
struct WeightsPlan {
  FamilyExport family; ///< the encoding's metadata and tensors (engine/model_family.h)
  std::vector<TensorPart> tensors;
  std::string header; ///< padded to a multiple of 8
};

nlohmann::json metadata(const WeightsSource& s, const std::vector<DenseLayer>& layers, const FamilyExport& family) {
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
  for (const auto& [key, value] : family.metadata) md[key] = value;
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
  if (const ModelFamily& f = model_family(m.encoding.kind); f.export_rule)
    f.export_rule(m.encoding, s.config->training.seed, s.params, p.family);
  p.tensors = p.family.tensors;
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
  header["__metadata__"] = metadata(s, layers, p.family);
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
