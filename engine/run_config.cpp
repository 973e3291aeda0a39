#include "engine/run_config.h"

#include "engine/growth.h"
#include "engine/install_paths.h"
#include "engine/json_read.h"
#include "engine/model_family.h"
#include "engine/named_enum.h"
#include "engine/path_problem.h"
#include "engine/soundness.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <set>

namespace redraw {
using nlohmann::json;

namespace {
const NameTable<ColorMode> k_color_modes = {
    {"rgb", ColorMode::Rgb}, {"gray", ColorMode::Gray}, {"binary", ColorMode::Binary}, {"auto", ColorMode::Auto}};
const NameTable<LossKind> k_losses = {
    {"MSE", LossKind::MSE}, {"L1", LossKind::L1}, {"Huber", LossKind::Huber}, {"BCE", LossKind::BCE}};
const NameTable<OptimizerKind> k_optimizers = {{"SGD", OptimizerKind::Sgd}, {"Adam", OptimizerKind::Adam}};
const NameTable<ScheduleKind> k_schedules = {{"Constant", ScheduleKind::Constant},
                                             {"Cosine", ScheduleKind::Cosine},
                                             {"WarmRestarts", ScheduleKind::WarmRestarts}};


/// Walks one JSON object, reading known keys and rejecting the rest.
class Reader {
public:
  Reader(const json& j, std::string source, std::string path)
      : m_j(j), m_source(std::move(source)), m_path(std::move(path)) {
    if (!m_j.is_object()) fail("", "must be a JSON object");
  }
  ~Reader() noexcept(false) {
    if (std::uncaught_exceptions()) return;
    for (auto it = m_j.begin(); it != m_j.end(); ++it)
      if (!m_seen.count(it.key())) fail(it.key(), "unknown key");
  }
  bool has(const std::string& k) {
    m_seen.insert(k);
    return m_j.contains(k);
  }
  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw ConfigError(m_source + ": " + field(key) + ": " + what);
  }
  std::string field(const std::string& key) const {
    return m_path.empty() ? (key.empty() ? "(root)" : key) : (key.empty() ? m_path : m_path + "." + key);
  }
  const json& at(const std::string& k) {
    m_seen.insert(k);
    return m_j.at(k);
  }

  template <class T> void number(const std::string& k, T& out, double lo, double hi) {
    if (!has(k)) return;
    const json& v = at(k);
    if (!v.is_number()) fail(k, "must be a number");
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < lo || d > hi)
      fail(k, fmt(d) + " is outside [" + fmt(lo) + ", " + fmt(hi) + "]");
    if constexpr (std::is_integral_v<T>) {
      if (d != std::floor(d)) fail(k, "must be a whole number");
    }
    out = T(d);
  }
  /// A seed: a whole number in [0, 2^64 - 1], read exactly (through a double it would round
  /// above 2^53). A whole-valued float such as 7.0 is accepted up to 2^53, where it is still exact.
  void seed(const std::string& k, uint64_t& out) {
    if (!has(k)) return;
    const json& v = at(k);
    const std::string range = "must be a whole number in [0, " + std::to_string(k_max_seed) + "]";
    if (v.is_number_unsigned()) {
      out = v.get<uint64_t>();
    } else if (v.is_number_integer()) { // signed: a negative literal, or a json(5) built in code
      if (v.get<int64_t>() < 0) fail(k, std::to_string(v.get<int64_t>()) + " is negative; " + range);
      out = uint64_t(v.get<int64_t>());
    } else if (v.is_number_float()) {
      const double d = v.get<double>();
      if (!(d >= 0 && d <= 9007199254740992.0 && d == std::floor(d))) fail(k, v.dump() + ": " + range);
      out = uint64_t(d);
    } else {
      fail(k, range);
    }
  }
  void boolean(const std::string& k, bool& out) {
    if (!has(k)) return;
    if (!at(k).is_boolean()) fail(k, "must be true or false");
    out = at(k).get<bool>();
  }
  std::string string(const std::string& k) {
    const json& v = at(k);
    if (!v.is_string()) fail(k, "must be a string");
    return v.get<std::string>();
  }
  /// A name a model file keeps: at most k_max_model_string_bytes, no NUL (JSON text is UTF-8).
  std::string name(const std::string& k) {
    std::string s = string(k);
    if (s.size() > k_max_model_string_bytes)
      fail(k, "is " + std::to_string(s.size()) + " bytes long (a model keeps at most " +
                  std::to_string(k_max_model_string_bytes) + ")");
    if (s.find('\0') != std::string::npos) fail(k, "holds a NUL character");
    return s;
  }
  template <class E> void named(const std::string& k, E& out, E (*parse)(const std::string&)) {
    if (!has(k)) return;
    const std::string s = string(k);
    try {
      out = parse(s);
    } catch (const ConfigError& e) {
      fail(k, e.what());
    }
  }
  Reader child(const std::string& k) { return Reader(at(k), m_source, field(k)); }
  const std::string& source() const { return m_source; }

private:
  static std::string fmt(double d) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", d);
    return b;
  }
  const json& m_j;
  std::string m_source, m_path;
  std::set<std::string> m_seen;
};

ColorMode parse_color(const std::string& s) { return lookup_name("Colour mode", s, k_color_modes); }
LossKind parse_loss(const std::string& s) { return lookup_name("Loss", s, k_losses); }
OptimizerKind parse_optimizer(const std::string& s) { return lookup_name("Optimizer", s, k_optimizers); }
ScheduleKind parse_schedule(const std::string& s) { return lookup_name("Schedule", s, k_schedules); }

void read_model(Reader r, ModelSpec& m) {
  if (r.has("encoding")) {
    Reader e = r.child("encoding");
    e.named("otype", m.encoding.kind, parse_encoding);
    e.number("levels", m.encoding.levels, 1, 24);
    e.number("features", m.encoding.features, 1, 4096);
    e.number("sigma", m.encoding.sigma, 1e-6, 1e4);
    e.seed("seed", m.encoding.seed);
    e.number("n_levels", m.encoding.n_levels, 1, k_hash_grid_max_levels);
    e.number("n_features_per_level", m.encoding.n_features_per_level, 1, 8);
    e.boolean("carrier", m.encoding.carrier);
    if (m.encoding.carrier && !model_family(m.encoding.kind).carries)
      e.fail("carrier", std::string("only the Gaussians take a cosine carrier (otype is ") +
                            encoding_name(m.encoding.kind) + ")");
    // "auto": sized to the image (size_hash_grid_to_image); a saved model lists in
    // "sized_to_image" the fields it resolved, with their values beside them.
    const auto auto_or_number = [&e](const char* key, int32_t& value, bool& is_auto, double lo, double hi) {
      if (e.has(key) && e.at(key).is_string()) {
        if (e.at(key).get<std::string>() != "auto") e.fail(key, "must be a number or \"auto\"");
        is_auto = true;
      } else {
        e.number(key, value, lo, hi);
        if (e.has(key)) is_auto = false;
      }
    };
    auto_or_number("log2_hashmap_size", m.encoding.log2_hashmap_size, m.encoding.auto_table_size, 10, 24);
    e.number("base_resolution", m.encoding.base_resolution, 2, 1 << 20);
    e.number("per_level_scale", m.encoding.per_level_scale, 1, 16);
    auto_or_number("finest_resolution", m.encoding.finest_resolution, m.encoding.auto_finest_resolution, 0, 1 << 20);
    if (e.has("sized_to_image")) {
      const json& list = e.at("sized_to_image");
      if (!list.is_array()) e.fail("sized_to_image", "must be a list of field names");
      for (const json& f : list) {
        if (f == "log2_hashmap_size") m.encoding.auto_table_size = true;
        else if (f == "finest_resolution") m.encoding.auto_finest_resolution = true;
        else e.fail("sized_to_image", "names log2_hashmap_size or finest_resolution, not " + json_excerpt(f));
      }
    }
    e.named("interpolation", m.encoding.interpolation, parse_interpolation);
  }
  if (r.has("hidden")) {
    const json& h = r.at("hidden");
    if (!h.is_array()) r.fail("hidden", "must be an array of layer widths");
    m.hidden.clear();
    for (size_t i = 0; i < h.size(); ++i) {
      if (!h[i].is_number_integer() || h[i].get<int64_t>() < 1 || h[i].get<int64_t>() > 8192)
        r.fail("hidden[" + std::to_string(i) + "]", "must be a whole number in [1, 8192]");
      m.hidden.push_back(h[i].get<int32_t>());
    }
  }
  Activation act = m.hidden_activations.empty() ? Activation::Relu : m.hidden_activations.front();
  r.named("activation", act, parse_activation);
  m.hidden_activations.assign(m.hidden.size(), act);
  if (r.has("activations")) {
    const json& a = r.at("activations");
    if (!a.is_array() || a.size() != m.hidden.size())
      r.fail("activations", "must be an array with one activation per hidden layer");
    for (size_t i = 0; i < a.size(); ++i) {
      if (!a[i].is_string()) r.fail("activations[" + std::to_string(i) + "]", "must be a string");
      try {
        m.hidden_activations[i] = parse_activation(a[i].get<std::string>());
      } catch (const ConfigError& e) {
        r.fail("activations[" + std::to_string(i) + "]", e.what());
      }
    }
  }
  r.named("output_activation", m.output_activation, parse_activation);
  r.named("init", m.init, parse_init);
  r.number("omega_0", m.omega_0, 1e-3, 1e4);
  r.number("first_layer_scale", m.first_layer_scale, 0, 1e4);
  r.number("gauss_scale", m.gauss_scale, 1e-3, 1e4);
  r.number("first_bias_scale", m.first_bias_scale, 0, 1e4);
  // The bounds in full: number()'s %g would print 4e+06.
  r.number("gaussians", m.encoding.gaussians, -1e18, 1e18);
  if (r.has("gaussians") && (m.encoding.gaussians < k_gaussian_min_count || m.encoding.gaussians > k_gaussian_max_count))
    r.fail("gaussians", std::to_string(m.encoding.gaussians) + " is outside [" + std::to_string(k_gaussian_min_count) +
                            ", " + std::to_string(k_gaussian_max_count) + "]");
  r.number("sites", m.encoding.sites, -1e18, 1e18);
  if (r.has("sites") && (m.encoding.sites < k_sad_min_sites || m.encoding.sites > k_sad_max_sites))
    r.fail("sites", std::to_string(m.encoding.sites) + " is outside [" + std::to_string(k_sad_min_sites) + ", " +
                        std::to_string(k_sad_max_sites) + "]");
}

/// training.grow (GrowSpec): `every` is required, the rest keep their defaults.
void read_grow(Reader g, GrowSpec& grow) {
  if (!g.has("every")) g.fail("every", "must be given (the steps between relocations)");
  g.number("every", grow.every, 1, 1e12);
  g.number("fraction", grow.fraction, 1e-6, 0.5);
  g.number("until", grow.until, 1e-6, 1);
}

} // namespace

json float_json(float f) {
  char buf[48];
  const auto r = std::to_chars(buf, buf + sizeof buf - 1, f);
  if (r.ec != std::errc()) return json(double(f));
  *r.ptr = '\0';
  const double d = std::strtod(buf, nullptr);
  return json(float(d) == f ? d : double(f));
}

const char* color_mode_name(ColorMode m) { return name_of(m, k_color_modes); }
std::string color_mode_label(ColorMode m, int32_t channels) {
  if (m != ColorMode::Auto) return color_mode_name(m);
  return std::string("auto (") + (channels == 1 ? "gray" : "rgb") + ")";
}
ColorMode parse_color_mode(const std::string& s) { return parse_color(s); }
const char* loss_name(LossKind k) { return name_of(k, k_losses); }
const char* optimizer_name(OptimizerKind k) { return name_of(k, k_optimizers); }
const char* schedule_name(ScheduleKind k) { return name_of(k, k_schedules); }

RunConfig parse_run_config(const json& j, const std::string& source) {
  RunConfig c;
  c.model.hidden = {256, 256, 256};
  c.model.hidden_activations.assign(3, Activation::Relu);
  {
    Reader r(j, source, "");
    if (r.has("name")) c.name = r.name("name");
    if (r.has("description")) (void)r.string("description");
    if (r.has("model")) read_model(r.child("model"), c.model);
    if (r.has("loss")) {
      Reader l = r.child("loss");
      l.named("otype", c.loss.kind, parse_loss);
      l.number("huber_delta", c.loss.huber_delta, 1e-6, 1e3);
      l.number("epsilon", c.loss.bce_epsilon, 1e-12, 0.1);
    }
    if (r.has("optimizer")) {
      Reader o = r.child("optimizer");
      o.named("otype", c.optimizer.kind, parse_optimizer);
      o.number("beta1", c.optimizer.adam.beta1, 0, 0.999999);
      o.number("beta2", c.optimizer.adam.beta2, 0, 0.99999999);
      o.number("epsilon", c.optimizer.adam.epsilon, 0, 1);
      o.number("momentum", c.optimizer.sgd.momentum, 0, 0.9999);
      o.boolean("nesterov", c.optimizer.sgd.nesterov);
      float wd = 0.0f;
      o.number("weight_decay", wd, 0, 1);
      c.optimizer.adam.weight_decay = c.optimizer.sgd.weight_decay = wd;
    }
    if (r.has("schedule")) {
      Reader s = r.child("schedule");
      s.named("otype", c.schedule.kind, parse_schedule);
      s.number("lr_max", c.schedule.lr_max, 0, 100);
      s.number("lr_min", c.schedule.lr_min, 0, 100);
      s.number("period", c.schedule.period, 0, 1e12);
      s.number("period_mult", c.schedule.period_mult, 1, 100);
      s.number("warmup_steps", c.schedule.warmup_steps, 0, 1e12);
      if (c.schedule.lr_min > c.schedule.lr_max) s.fail("lr_min", "must not exceed lr_max");
    }
    if (r.has("training")) {
      Reader t = r.child("training");
      if (t.has("batch")) {
        const json& b = t.at("batch");
        if (b.is_string() && b.get<std::string>() == "full")
          c.training.batch_size = 0;
        else if (b.is_number_integer() && b.get<int64_t>() >= 1 && b.get<int64_t>() <= (int64_t(1) << 26))
          c.training.batch_size = b.get<int64_t>();
        else
          t.fail("batch", "must be \"full\" or a whole number in [1, 67108864]");
      }
      if (t.has("batch_cpu")) {
        const json& b = t.at("batch_cpu");
        if (b.is_string() && b.get<std::string>() == "same")
          c.training.cpu_batch_size = -1;
        else if (b.is_string() && b.get<std::string>() == "full")
          c.training.cpu_batch_size = 0;
        else if (b.is_number_integer() && b.get<int64_t>() >= 1 && b.get<int64_t>() <= (int64_t(1) << 26))
          c.training.cpu_batch_size = b.get<int64_t>();
        else
          t.fail("batch_cpu", "must be \"same\", \"full\" or a whole number in [1, 67108864]");
      }
      t.number("steps", c.training.steps, 0, 1e12);
      t.seed("seed", c.training.seed);
      t.number("metrics_every", c.training.metrics_every, 1, 1e9);
      t.number("max_recoveries", c.training.max_recoveries, 0, 100);
      t.number("recovery_lr_factor", c.training.recovery_lr_factor, 1e-6, 0.999);
      t.number("good_state_every", c.training.good_state_every, 1, 1e12);
      if (t.has("grow")) read_grow(t.child("grow"), c.training.grow);
    }
    if (r.has("data")) {
      Reader d = r.child("data");
      d.named("color_mode", c.data.color_mode, parse_color);
      d.number("threshold", c.data.threshold, 0, 1);
      d.number("width", c.data.width, 0, 16384);
      d.number("height", c.data.height, 0, 16384);
      d.number("max_side", c.data.max_side, 0, 16384);
      if (d.has("background")) {
        const json& bg = d.at("background");
        if (!bg.is_array() || bg.size() != 3 || !std::all_of(bg.begin(), bg.end(), [](const json& v) {
              return v.is_number() && v.get<double>() >= 0 && v.get<double>() <= 1;
            }))
          d.fail("background", "must be [r, g, b] with each in [0, 1]");
        for (int i = 0; i < 3; ++i)
          c.data.background[size_t(i)] = bg[size_t(i)].get<float>();
      }
      if ((c.data.width == 0) != (c.data.height == 0)) d.fail("width", "width and height must be given together");
    }
  }
  c.model.output_channels = channels_of(c.data.color_mode);
  try {
    validate(c.model);
  } catch (const ConfigError& e) {
    throw ConfigError(source + ": " + e.what());
  }
  if (const std::string why = grow_problem(c); !why.empty()) throw ConfigError(source + ": " + why);
  return c;
}

RunConfig load_run_config(const std::filesystem::path& file) {
  std::string text;
  if (const std::string why = read_user_text(file, uint64_t(16) << 20, "a config file", "16 MiB", text); !why.empty())
    throw ConfigError(why);
  return parse_run_config(parse_json(text, file.string()), file.string());
}

namespace {
bool same_encoding(const EncodingSpec& a, const EncodingSpec& b) {
  if (a.kind != b.kind || a.levels != b.levels || a.features != b.features || a.sigma != b.sigma || a.seed != b.seed)
    return false;
  const ModelFamily& f = model_family(a.kind);
  return !f.same_fields || f.same_fields(a, b);
}

bool same_network(const ModelSpec& a, const ModelSpec& b) {
  const auto scale = [](float s) { return s > 0 ? s : 0.0f; }; // 0 or less: the init's own bounds
  return same_encoding(a.encoding, b.encoding) && a.hidden == b.hidden &&
         a.hidden_activations == b.hidden_activations && a.output_activation == b.output_activation &&
         a.init == b.init && a.omega_0 == b.omega_0 && scale(a.first_layer_scale) == scale(b.first_layer_scale) &&
         a.gauss_scale == b.gauss_scale && a.first_bias_scale == b.first_bias_scale;
}

bool same_training(const TrainingSpec& a, const TrainingSpec& b) {
  const auto cpu_batch = [](int64_t n) { return n < 0 ? int64_t(-1) : n; }; // below 0: as batch_size
  return a.batch_size == b.batch_size && cpu_batch(a.cpu_batch_size) == cpu_batch(b.cpu_batch_size) &&
         a.seed == b.seed && a.max_recoveries == b.max_recoveries && a.recovery_lr_factor == b.recovery_lr_factor &&
         a.good_state_every == b.good_state_every && a.grow == b.grow;
}
} // namespace

bool requires_new_trainer(const RunConfig& a, const RunConfig& b) {
  const LossParams &la = a.loss, &lb = b.loss;
  const OptimizerSpec &oa = a.optimizer, &ob = b.optimizer;
  const DataSpec &da = a.data, &db = b.data;
  // One weight decay for both optimizers: parse_run_config sets adam's and sgd's from one key.
  const bool same = same_network(a.model, b.model) && la.kind == lb.kind && la.huber_delta == lb.huber_delta &&
                    la.bce_epsilon == lb.bce_epsilon && oa.kind == ob.kind && oa.adam.beta1 == ob.adam.beta1 &&
                    oa.adam.beta2 == ob.adam.beta2 && oa.adam.epsilon == ob.adam.epsilon &&
                    oa.adam.weight_decay == ob.adam.weight_decay && oa.sgd.momentum == ob.sgd.momentum &&
                    oa.sgd.nesterov == ob.sgd.nesterov && same_training(a.training, b.training) &&
                    da.color_mode == db.color_mode && da.threshold == db.threshold && da.max_side == db.max_side &&
                    da.background == db.background;
  return !same;
}

json to_json(const RunConfig& c) {
  const ModelSpec& m = c.model;
  json acts = json::array();
  for (Activation a : m.hidden_activations)
    acts.push_back(activation_name(a));
  json encoding = {{"otype", encoding_name(m.encoding.kind)},
                   {"levels", m.encoding.levels},
                   {"features", m.encoding.features},
                   {"sigma", float_json(m.encoding.sigma)},
                   {"seed", m.encoding.seed}};
  json model = {{"encoding", encoding},
                {"hidden", m.hidden},
                {"activations", acts},
                {"output_activation", activation_name(m.output_activation)},
                {"init", init_name(m.init)},
                {"omega_0", float_json(m.omega_0)}};
  // Written only when set, so models and configs without it stay readable by an older redraw.
  if (m.first_layer_scale > 0) model["first_layer_scale"] = float_json(m.first_layer_scale);
  if (m.gauss_scale != k_default_gauss_scale) model["gauss_scale"] = float_json(m.gauss_scale);
  if (m.first_bias_scale != k_default_first_bias_scale) model["first_bias_scale"] = float_json(m.first_bias_scale);
  if (const ModelFamily& f = model_family(m.encoding.kind); f.write_config)
    f.write_config(m.encoding, model["encoding"], model);
  json background = json::array();
  for (float v : c.data.background)
    background.push_back(float_json(v));
  json batch = c.training.batch_size == 0 ? json("full") : json(c.training.batch_size);

  json out = {{"name", c.name},
              {"model", model},
              {"loss",
               {{"otype", loss_name(c.loss.kind)},
                {"huber_delta", float_json(c.loss.huber_delta)},
                {"epsilon", float_json(c.loss.bce_epsilon)}}},
              {"optimizer",
               {{"otype", optimizer_name(c.optimizer.kind)},
                {"beta1", float_json(c.optimizer.adam.beta1)},
                {"beta2", float_json(c.optimizer.adam.beta2)},
                {"epsilon", float_json(c.optimizer.adam.epsilon)},
                {"momentum", float_json(c.optimizer.sgd.momentum)},
                {"nesterov", c.optimizer.sgd.nesterov},
                {"weight_decay", float_json(c.optimizer.adam.weight_decay)}}},
              {"schedule",
               {{"otype", schedule_name(c.schedule.kind)},
                {"lr_max", c.schedule.lr_max},
                {"lr_min", c.schedule.lr_min},
                {"period", c.schedule.period},
                {"period_mult", c.schedule.period_mult},
                {"warmup_steps", c.schedule.warmup_steps}}},
              {"training",
               {{"batch", batch},
                {"steps", c.training.steps},
                {"seed", c.training.seed},
                {"metrics_every", c.training.metrics_every},
                {"max_recoveries", c.training.max_recoveries},
                {"recovery_lr_factor", c.training.recovery_lr_factor},
                {"good_state_every", c.training.good_state_every}}},
              {"data",
               {{"color_mode", color_mode_name(c.data.color_mode)},
                {"threshold", float_json(c.data.threshold)},
                {"width", c.data.width},
                {"height", c.data.height},
                {"max_side", c.data.max_side},
                {"background", background}}}};
  if (c.training.grow.on()) // written only when on, so other configs and models stay as before
    out["training"]["grow"] = {{"every", c.training.grow.every},
                               {"fraction", c.training.grow.fraction},
                               {"until", c.training.grow.until}};
  if (c.training.cpu_batch_size >= 0) // written only when set, so other configs stay as before
    out["training"]["batch_cpu"] = c.training.cpu_batch_size == 0 ? json("full") : json(c.training.cpu_batch_size);
  return out;
}

std::filesystem::path asset_dir() { return find_asset_dir(); }
std::filesystem::path default_image_path() { return asset_dir() / "default.png"; }

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(asset_dir() / "presets", ec))
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string preset_list_text() {
  std::string known;
  for (const auto& n : preset_names())
    known += (known.empty() ? "" : ", ") + n;
  return known.empty() ? "none found in " + (asset_dir() / "presets").string() : known;
}

RunConfig load_preset(const std::string& name) {
  const auto file = asset_dir() / "presets" / (name + ".json");
  if (name.find('/') != std::string::npos || !std::filesystem::exists(file))
    throw ConfigError("Preset '" + name + "' not found (known: " + preset_list_text() + ")");
  return load_run_config(file);
}

} // namespace redraw
