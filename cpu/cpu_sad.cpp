#include "cpu/cpu_sad.h"
#include "cpu/cpu_family_encoders.h"

#include "engine/errors.h"
#include "engine/sad_list_math.h"
#include "engine/sad_lists.h"

#include <omp.h>

#include <algorithm>
#include <new>
#include <string>
#include <vector>

namespace redraw {
namespace {
template <class T> void sad_pairs_resize(std::vector<T>& v, int64_t n) {
  try {
    v.resize(size_t(n));
  } catch (const std::bad_alloc&) {
    throw BackendError("cpu backend: out of memory for the sites' gradient pairs (" +
                       std::to_string(n * int64_t(sizeof(T)) >> 20) + " MiB)");
  }
}
} // namespace

void sad_encode_rows(const SadParams& p, const float* params, const SadLists& lists, const float* coords, int64_t n,
                     float* out) {
  if (n <= 0) return;
  sad_check_lists(p, lists);
  const std::vector<SadShape<float>> shapes = sad_shapes(p, params);
#pragma omp parallel for schedule(static)
  for (int64_t s = 0; s < n; ++s) {
    int32_t ids[k_sad_k];
    float w[k_sad_k];
    sad_point(shapes, params, lists, coords[2 * s], coords[2 * s + 1], ids, w, out + s * k_sad_channels);
  }
}

void sad_backward_rows(const SadParams& p, const float* params, const SadLists& lists, const float* coords,
                       const float* d_out, int64_t n, float* grads, bool accumulate) {
  const int64_t floats = p.count * k_sad_floats;
  if (n <= 0) {
    if (!accumulate) std::fill(grads, grads + floats, 0.0f);
    return;
  }
  sad_check_lists(p, lists);
  const std::vector<SadShape<float>> shapes = sad_shapes(p, params);
  // Each point's pairs: site, weight, dLoss/dlogit (site -1 past the point's list).
  const int64_t pairs = n * k_sad_k;
  std::vector<int32_t> pair_site;
  std::vector<float> pair_w, pair_dl;
  sad_pairs_resize(pair_site, pairs);
  sad_pairs_resize(pair_w, pairs);
  sad_pairs_resize(pair_dl, pairs);
#pragma omp parallel for schedule(static)
  for (int64_t s = 0; s < n; ++s) {
    const size_t at = size_t(s * k_sad_k);
    sad_point_pairs(shapes.data(), params, sad_list_at(lists, coords[2 * s], coords[2 * s + 1]), coords[2 * s],
                    coords[2 * s + 1], d_out + s * k_sad_channels, pair_site.data() + at, pair_w.data() + at,
                    pair_dl.data() + at);
  }
  // The pairs sorted stably by site: a counting sort in pair (point) order.
  std::vector<int64_t> first(size_t(p.count) + 1, 0), order;
  sad_pairs_resize(order, pairs);
  for (int64_t k = 0; k < pairs; ++k)
    if (pair_site[size_t(k)] >= 0) ++first[size_t(pair_site[size_t(k)]) + 1];
  for (int64_t i = 0; i < p.count; ++i) first[size_t(i + 1)] += first[size_t(i)];
  {
    std::vector<int64_t> cursor(first.begin(), first.end() - 1);
    for (int64_t k = 0; k < pairs; ++k)
      if (pair_site[size_t(k)] >= 0) order[size_t(cursor[size_t(pair_site[size_t(k)])]++)] = k;
  }
  const float cell = p.cell;
#pragma omp parallel for schedule(dynamic, 64)
  for (int64_t i = 0; i < p.count; ++i)
    sad_site_gradient(shapes[size_t(i)], params + i * k_sad_floats, cell, order.data(), first[size_t(i)],
                      first[size_t(i) + 1], pair_w.data(), pair_dl.data(), coords, d_out, grads + i * k_sad_floats,
                      accumulate);
}

namespace {
class CpuSadEncoding final : public cpu::CpuTrainedEncoding {
public:
  explicit CpuSadEncoding(const EncodingSpec& enc) : m_p(sad_params(enc.sites)) {}
  void encode(const float* params, const float* coords, int64_t n, float* out) override {
    ready(params);
    sad_encode_rows(m_p, params, m_lists, coords, n, out);
  }
  void backward(const float* params, const float* coords, const float* d_out, int64_t n, float* grads,
                bool accumulate) override {
    ready(params);
    sad_backward_rows(m_p, params, m_lists, coords, d_out, n, grads, accumulate);
  }
  void step_begins(const float* params) override { sad_refresh_lists(m_p, params, m_lists); }
  void parameters_replaced() override { m_lists = SadLists{}; }

private:
  void ready(const float* params) {
    if (!m_lists.built()) sad_build_lists(m_p, params, m_lists);
  }
  SadParams m_p;
  SadLists m_lists;
};
} // namespace

std::unique_ptr<cpu::CpuTrainedEncoding> make_cpu_sad_encoding(const EncodingSpec& enc) {
  return std::make_unique<CpuSadEncoding>(enc);
}

} // namespace redraw
