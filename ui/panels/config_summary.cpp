#include "ui/panels/config_summary.h"

#include "engine/backend.h"
#include "engine/backend_names.h"
#include "engine/model_family.h"
#include "engine/model_spec.h"
#include "engine/training/schedule.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace redraw {

ConfigSummary summarize_config(const RunConfig& config, int32_t w, int32_t h, int32_t channels,
                               const std::string& backend) {
  ConfigSummary s;
  ModelSpec m = config.model;
  m.output_channels = channels;
  m.hidden_activations.resize(m.hidden.size(),
                              m.hidden_activations.empty() ? Activation::Relu : m.hidden_activations.front());
  try {
    validate(m);
  } catch (const std::exception& e) {
    s.problem = e.what();
    return s;
  }
  s.valid = true;
  s.parameters = parameter_count(m);
  s.table_parameters = encoding_parameter_count(m.encoding);
  s.table_bytes = uint64_t(s.table_parameters) * sizeof(float);
  s.samples = int64_t(w) * h;
  const BackendInfo& info = find_backend(backend) ? *find_backend(backend) : k_cpu_backend;
  const int64_t batch = backend_batch(config.training, info.name);
  s.batch = batch > 0 ? std::min<int64_t>(batch, std::max<int64_t>(s.samples, 1)) : s.samples;
  const int arrays = optimizer_state_arrays(config.optimizer);
  s.parameter_bytes = uint64_t(s.parameters) * sizeof(float) * uint64_t(2 + arrays);
  s.recovery_bytes = uint64_t(s.parameters) * sizeof(float) * uint64_t(1 + arrays);
  s.table_state_bytes = s.table_bytes * uint64_t(2 + arrays);
  // A CPU minibatch of a family that defers its floats' update (a hash grid's table) keeps what
  // its record says instead of a gradient array for them.
  const auto deferred_floats = model_family(m.encoding.kind).deferred_update_floats;
  if (info.deferred_table_gradients && deferred_floats && batch > 0) {
    const uint64_t deferred = uint64_t(deferred_floats(m.encoding, batch)) * sizeof(float);
    s.parameter_bytes = s.parameter_bytes - s.table_bytes + deferred;
    s.table_state_bytes = s.table_state_bytes - s.table_bytes + deferred;
  }
  int64_t per_sample = m.encoding.width();
  for (int32_t width : m.hidden)
    per_sample += 2 * int64_t(width);                                    // pre- and post-activation
  per_sample += 2 * int64_t(channels) + 2 * int64_t(max_layer_width(m)); // output + gradient ping-pong
  s.activation_bytes = uint64_t(s.batch) * uint64_t(per_sample) * sizeof(float);
  const int64_t floats_per_sample = int64_t(channels) + info.extra_floats_per_pixel;
  s.dataset_bytes = uint64_t(s.samples) * uint64_t(floats_per_sample) * sizeof(float);
  s.gflop_per_step = 6.0 * double(forward_macs_per_sample(m)) * double(s.batch) * 1e-9; // fwd 2, bwd 4
  return s;
}

std::vector<float> sample_schedule(const ScheduleSpec& spec, int64_t total_steps, int32_t n) {
  std::vector<float> out;
  if (n <= 0) return out;
  try {
    auto sched = make_schedule(spec, std::max<int64_t>(total_steps, 1));
    out.reserve(size_t(n));
    for (int32_t i = 0; i < n; ++i) {
      const int64_t t = int64_t(std::floor(double(i) * double(std::max<int64_t>(total_steps, 1)) / double(n)));
      out.push_back(float(sched->learning_rate(t)));
    }
  } catch (const std::exception&) {
    out.clear();
  }
  return out;
}

std::string format_count(int64_t n) {
  const uint64_t mag = n < 0 ? uint64_t(0) - uint64_t(n) : uint64_t(n);
  std::string digits = std::to_string(mag), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string format_bytes(uint64_t bytes) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  double v = double(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

void scaled_size(int32_t w, int32_t h, int32_t max_side, int32_t& out_w, int32_t& out_h) {
  out_w = w;
  out_h = h;
  if (max_side <= 0 || w <= 0 || h <= 0) return;
  const int32_t side = std::max(w, h);
  if (side <= max_side) return;
  const double s = double(max_side) / double(side);
  out_w = std::max(1, int32_t(std::lround(w * s)));
  out_h = std::max(1, int32_t(std::lround(h * s)));
}

void edited_training_size(int32_t image_w, int32_t image_h, int32_t run_w, int32_t run_h, const DataSpec& data,
                          int32_t& out_w, int32_t& out_h) {
  if (data.width > 0 && data.height > 0) {
    out_w = data.width;
    out_h = data.height;
    return;
  }
  const bool known = image_w > 0 && image_h > 0, running = run_w > 0 && run_h > 0;
  const int32_t w = known ? image_w : running ? run_w : 256, h = known ? image_h : running ? run_h : 256;
  scaled_size(w, h, data.max_side, out_w, out_h);
}

} // namespace redraw
