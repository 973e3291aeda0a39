#include "cpu/cpu_chunked_pass.h"

#include <algorithm>
#include <cstring>

namespace redraw::cpu {

int64_t forward_chunk(const NetView& net, CpuWorkspace& ws, const float* coords, int64_t r0, int64_t n) {
  const int64_t rows = std::min(ws.rows, n - r0);
  encode_input(net, coords + 2 * r0, rows, ws.input.data());
  forward_rows(net, ws, ws.input.data(), rows);
  return rows;
}

void predict_chunks(const NetView& net, CpuWorkspace& ws, const float* coords, int64_t n, float* out) {
  const int32_t C = net.layers->back().out;
  for (int64_t r0 = 0; r0 < n; r0 += ws.rows) {
    const int64_t rows = forward_chunk(net, ws, coords, r0, n);
    std::memcpy(out + r0 * C, ws.y.back().data(), size_t(rows * C) * sizeof(float));
  }
}

ChunkedPass::ChunkedPass(const ModelSpec& model, std::span<const float> params, std::span<const float> fourier_b,
                         int64_t n, int64_t chunk, CpuTrainedEncoding* kept)
    : layers(dense_layers(model)),
      trained(kept ? nullptr : cpu_trained_encoding(model.encoding)),
      net{&model, &layers, params.data(), fourier_b.data(), kept ? kept : trained.get()},
      channels(layers.back().out) {
  ws.reserve(layers, model.encoding.width(), std::min(n, chunk));
}

} // namespace redraw::cpu
