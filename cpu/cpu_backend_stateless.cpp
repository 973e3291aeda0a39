/// CpuBackend's stateless operations (Backend's predict, loss_and_gradients, optimizer_update and
/// encode): each takes the model, parameters and coordinates it is given and touches no bound
/// training state (cpu/cpu_backend.cpp holds that state and the operations on it). The forward
/// passes run a chunk at a time through a ChunkedPass of their own (cpu/cpu_chunked_pass.h).
#include "cpu/cpu_backend.h"

#include "cpu/cpu_chunked_pass.h"
#include "cpu/cpu_family_encoders.h"
#include "cpu/cpu_passes.h"
#include "cpu/flushed_team.h"

#include <algorithm>
#include <vector>

namespace redraw {

using namespace cpu;

void CpuBackend::predict_impl(const ModelSpec& model, std::span<const float> params, std::span<const float> fourier_b,
                              const float* coords, int64_t n, float* out) {
  const FlushedTeam flushed = use_team(team_size());
  // A forward pass gives the same bits in chunks of any multiple of a tile: the smallest chunk,
  // whose workspace (made for every call: a timelapse frame, an export band) costs least to make.
  if (!m_render_encoding || !(m_render_spec == model.encoding)) {
    m_render_encoding.reset();
    m_render_encoding = cpu_trained_encoding(model.encoding);
    m_render_spec = model.encoding;
  }
  if (m_render_encoding) m_render_encoding->render_begins(params.data());
  ChunkedPass pass(model, params, fourier_b, n, k_min_chunk_rows, m_render_encoding.get());
  predict_chunks(pass.net, pass.ws, coords, n, out);
}

double CpuBackend::loss_and_gradients_impl(const ModelSpec& model, const LossParams& loss,
                                           std::span<const float> params, std::span<const float> fourier_b,
                                           const float* coords, const float* targets, int64_t n,
                                           std::span<float> grads) {
  const FlushedTeam flushed = use_team(team_size());
  const auto layers = dense_layers(model);
  ChunkedPass pass(model, params, fourier_b, n, cpu_chunk_rows(layers, model.encoding.width()));
  const int32_t C = pass.channels;
  const float inv_count = float(1.0 / (double(n) * C));
  std::vector<float> scratch;
  double sum = 0;
  for (int64_t r0 = 0; r0 < n; r0 += pass.ws.rows) {
    const int64_t rows = pass.forward(coords, r0, n);
    sum += backward_rows(pass.net, pass.ws, coords + 2 * r0, pass.ws.input.data(), targets + r0 * C, rows, loss,
                         inv_count, grads.data(), r0 == 0, scratch);
  }
  reduce_weight_slots(pass.layers, pass.ws, std::min(pass.ws.rows, n), grads.data());
  return sum / (double(n) * C);
}

void CpuBackend::optimizer_update_impl(const OptimizerSpec& opt, std::span<float> params, std::span<const float> grads,
                                       OptimizerState& st, float lr, int64_t step) {
  const FlushedTeam flushed = use_team(team_size());
  optimizer_all(opt, params.data(), grads.data(), st.first.empty() ? nullptr : st.first.data(),
                st.second.empty() ? nullptr : st.second.data(), int64_t(params.size()), lr, step);
}

void CpuBackend::encode_impl(const EncodingSpec& enc, std::span<const float> fourier_b, const float* coords, int64_t n,
                             float* out) {
  const FlushedTeam flushed = use_team(team_size());
  if (const auto trained = cpu_trained_encoding(enc)) // its floats come in fourier_b
    trained->encode(fourier_b.data(), coords, n, out);
  else
    encode_rows(enc.params(), fourier_b.data(), coords, n, out);
}

} // namespace redraw
