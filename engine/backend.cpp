#include "engine/backend.h"

#include "engine/soundness.h"
#include "engine/errors.h"
#include "engine/model_family.h"

#include <string>

namespace redraw {

namespace {
void check_size(const char* what, size_t got, int64_t want) {
  if (int64_t(got) != want)
    throw BackendError(std::string(what) + ": expected " + std::to_string(want) + " values, got " + std::to_string(got));
}
/// The fixed matrix a family draws from the seed (the Fourier features), when it has one.
void check_fourier(const EncodingSpec& enc, std::span<const float> b) {
  if (const ModelFamily& f = model_family(enc.kind); f.fixed_count) check_size(f.fixed_noun, b.size(), f.fixed_count(enc));
}
} // namespace

void Backend::require_configured(const char* what) const {
  if (!m_configured) throw BackendError(std::string(what) + ": backend '" + name() + "' has no model configured");
}

void Backend::configure(const TrainSetup& setup, const Dataset& data) {
  validate(setup.model);
  if (data.size() < 1) throw ConfigError("dataset: the image is empty");
  if (data.channels() != setup.model.output_channels)
    throw ConfigError("dataset: image has " + std::to_string(data.channels()) + " channels but the model outputs " +
                      std::to_string(setup.model.output_channels));
  if (setup.batch_size < 0) throw ConfigError("training.batch: must not be negative");
  if (data.size() >= (int64_t(1) << 32)) throw ConfigError("dataset: over 2^32 pixels");
  m_configured = false;
  m_copies.clear();
  m_bound_copy = std::vector<float>();
  m_bound_copy_version = -1;
  m_bound_fourier.clear();
  configure_impl(setup, data);
  m_setup = setup;
  m_parameter_count = redraw::parameter_count(setup.model);
  m_dataset_size = data.size();
  m_configured = true;
}

void Backend::set_parameters(std::span<const float> params) {
  require_configured("set_parameters");
  check_size("set_parameters", params.size(), m_parameter_count);
  ++m_bound_version;
  set_parameters_impl(params);
}

void Backend::set_moved_parameters(std::span<const float> params) {
  require_configured("set_moved_parameters");
  check_size("set_moved_parameters", params.size(), m_parameter_count);
  ++m_bound_version;
  set_moved_parameters_impl(params);
}

bool Backend::bound_site_lists(std::vector<int32_t>& out) {
  require_configured("bound_site_lists");
  out.clear();
  if (bound_site_lists_impl(out)) return true;
  out.clear();
  return false;
}

std::vector<float> Backend::parameters() {
  require_configured("parameters");
  std::vector<float> out;
  get_parameters_impl(out);
  return out;
}

void Backend::parameters_into(std::vector<float>& out) {
  require_configured("parameters");
  get_parameters_impl(out);
}

void Backend::set_optimizer_state(const OptimizerState& s) {
  require_configured("set_optimizer_state");
  const int arrays = optimizer_state_arrays(m_setup.optimizer);
  if (arrays >= 1) check_size("optimizer state (first moment)", s.first.size(), m_parameter_count);
  if (arrays >= 2) check_size("optimizer state (second moment)", s.second.size(), m_parameter_count);
  set_optimizer_state_impl(s);
}

OptimizerState Backend::optimizer_state() {
  require_configured("optimizer_state");
  OptimizerState s;
  get_optimizer_state_impl(s);
  return s;
}

int64_t Backend::begin_parameter_copy(bool with_optimizer) {
  require_configured("begin_parameter_copy");
  return begin_parameter_copy_impl(with_optimizer);
}

bool Backend::finish_parameter_copy(int64_t ticket, ParameterCopy& out, bool wait) {
  require_configured("finish_parameter_copy");
  return finish_parameter_copy_impl(ticket, out, wait);
}

void Backend::drop_parameter_copy(int64_t ticket) {
  if (m_configured) drop_parameter_copy_impl(ticket);
}

int64_t Backend::begin_parameter_copy_impl(bool with_optimizer) {
  ParameterCopy c;
  get_parameters_impl(c.params);
  if (with_optimizer) get_optimizer_state_impl(c.optimizer);
  const int64_t ticket = next_ticket();
  m_copies.emplace_back(ticket, std::move(c));
  return ticket;
}

bool Backend::finish_parameter_copy_impl(int64_t ticket, ParameterCopy& out, bool /*wait*/) {
  for (auto it = m_copies.begin(); it != m_copies.end(); ++it)
    if (it->first == ticket) {
      out = std::move(it->second);
      m_copies.erase(it);
      return true;
    }
  throw BackendError("finish_parameter_copy: ticket " + std::to_string(ticket) + " is not in flight");
}

void Backend::drop_parameter_copy_impl(int64_t ticket) {
  std::erase_if(m_copies, [&](const auto& c) { return c.first == ticket; });
}

bool Backend::train_step(const StepArgs& args) {
  require_configured("train_step");
  if (args.step < 0) throw BackendError("train_step: negative step index");
  if (args.stop && args.stop->load(std::memory_order_relaxed)) return false; // not begun
  m_step_abandoned = false;
  ++m_bound_version;
  train_step_impl(args);
  return !m_step_abandoned;
}

double Backend::dataset_mse() {
  require_configured("dataset_mse");
  return dataset_mse_impl();
}

bool Backend::copy_state_if_sound(std::vector<float>& params, OptimizerState& optimizer) {
  require_configured("copy_state_if_sound");
  return copy_state_if_sound_impl(params, optimizer);
}

bool Backend::copy_state_if_sound_impl(std::vector<float>& params, OptimizerState& optimizer) {
  std::vector<float> p;
  OptimizerState o;
  get_parameters_impl(p);
  get_optimizer_state_impl(o);
  if (count_unsound(p, k_max_model_weight) + count_unsound(o.first, k_max_optimizer_value) +
          count_unsound(o.second, k_max_optimizer_value) >
      0)
    return false;
  params = std::move(p);
  optimizer = std::move(o);
  return true;
}

bool Backend::parameters_sound(bool with_optimizer) {
  require_configured("parameters_sound");
  return parameters_sound_impl(with_optimizer);
}

const std::vector<float>& Backend::bound_copy() {
  if (m_bound_copy_version != m_bound_version) { // one copy while the weights stay as they are
    get_parameters_impl(m_bound_copy);
    m_bound_copy_version = m_bound_version;
  }
  return m_bound_copy;
}

bool Backend::parameters_sound_impl(bool with_optimizer) {
  if (count_unsound(bound_copy(), k_max_model_weight) != 0) return false;
  if (!with_optimizer) return true;
  OptimizerState o;
  get_optimizer_state_impl(o);
  return count_unsound(o.first, k_max_optimizer_value) + count_unsound(o.second, k_max_optimizer_value) == 0;
}

void Backend::predict_bound(const float* coords, int64_t n, float* out) {
  require_configured("predict_bound");
  if (n < 0) throw BackendError("predict_bound: negative sample count");
  if (n == 0) return;
  predict_bound_impl(coords, n, out);
}

void Backend::predict_bound_impl(const float* coords, int64_t n, float* out) {
  const std::vector<float>& params = bound_copy();
  if (m_bound_fourier.empty()) m_bound_fourier = fourier_matrix(m_setup.model.encoding, m_setup.seed);
  predict_impl(m_setup.model, params, m_bound_fourier, coords, n, out);
}

void Backend::predict(const ModelSpec& model, std::span<const float> params, std::span<const float> fourier_b,
                      const float* coords, int64_t n, float* out) {
  check_size("predict: parameters", params.size(), redraw::parameter_count(model));
  check_fourier(model.encoding, fourier_b);
  if (n < 0) throw BackendError("predict: negative sample count");
  if (n == 0) return;
  predict_impl(model, params, fourier_b, coords, n, out);
}

double Backend::loss_and_gradients(const ModelSpec& model, const LossParams& loss, std::span<const float> params,
                                   std::span<const float> fourier_b, const float* coords, const float* targets,
                                   int64_t n, std::span<float> grads) {
  const int64_t count = redraw::parameter_count(model);
  check_size("loss_and_gradients: parameters", params.size(), count);
  check_size("loss_and_gradients: gradients", grads.size(), count);
  check_fourier(model.encoding, fourier_b);
  if (n < 1) throw BackendError("loss_and_gradients: need at least one sample");
  return loss_and_gradients_impl(model, loss, params, fourier_b, coords, targets, n, grads);
}

void Backend::optimizer_update(const OptimizerSpec& opt, std::span<float> params, std::span<const float> grads,
                               OptimizerState& state, float learning_rate, int64_t step) {
  check_size("optimizer_update: gradients", grads.size(), int64_t(params.size()));
  const int arrays = optimizer_state_arrays(opt);
  if (arrays >= 1 && state.first.size() != params.size()) state.first.assign(params.size(), 0.0f);
  if (arrays >= 2 && state.second.size() != params.size()) state.second.assign(params.size(), 0.0f);
  if (step < 0) throw BackendError("optimizer_update: negative step index");
  optimizer_update_impl(opt, params, grads, state, learning_rate, step);
}

void Backend::encode(const EncodingSpec& enc, std::span<const float> fourier_b, const float* coords, int64_t n,
                     float* out) {
  check_fourier(enc, fourier_b);
  if (const ModelFamily& f = model_family(enc.kind); f.trained_count)
    check_size(("encode: " + std::string(f.trained_noun)).c_str(), fourier_b.size(), encoding_parameter_count(enc));
  if (n < 0) throw BackendError("encode: negative sample count");
  if (n == 0) return;
  encode_impl(enc, fourier_b, coords, n, out);
}

} // namespace redraw
