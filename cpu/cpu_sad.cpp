#include "cpu/cpu_sad.h"
#include "cpu/cpu_family_encoders.h"

#include "engine/errors.h"
#include "engine/sad_list_math.h"
#include "engine/sad_lists.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
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
                     float* out, SadRowsWork& work) {
  if (n <= 0) return;
  sad_check_lists(p, lists);
  sad_shapes_into(p, params, work.shapes);
  const SadShape<float>* shapes = work.shapes.data();
#pragma omp parallel for schedule(static)
  for (int64_t s = 0; s < n; ++s) {
    int32_t ids[k_sad_k];
    float w[k_sad_k];
    const float x = coords[2 * s], y = coords[2 * s + 1];
    sad_point_blend(shapes, params, sad_list_at(lists, x, y), x, y, ids, w, out + s * k_sad_channels);
  }
}

void sad_encode_rows(const SadParams& p, const float* params, const SadLists& lists, const float* coords, int64_t n,
                     float* out) {
  SadRowsWork work;
  sad_encode_rows(p, params, lists, coords, n, out, work);
}

void sad_backward_rows(const SadParams& p, const float* params, const SadLists& lists, const float* coords,
                       const float* d_out, int64_t n, float* grads, bool accumulate, SadRowsWork& work) {
  const int64_t floats = p.count * k_sad_floats;
  if (n <= 0) {
    if (!accumulate) std::fill(grads, grads + floats, 0.0f);
    return;
  }
  sad_check_lists(p, lists);
  sad_shapes_into(p, params, work.shapes);
  const SadShape<float>* shapes = work.shapes.data();
  // Each point's pairs: site, weight, dLoss/dlogit (site -1 past the point's list).
  const int64_t pairs = n * k_sad_k;
  sad_pairs_resize(work.pair_site, pairs);
  sad_pairs_resize(work.pair_w, pairs);
  sad_pairs_resize(work.pair_dl, pairs);
  int32_t* pair_site = work.pair_site.data();
  float *pair_w = work.pair_w.data(), *pair_dl = work.pair_dl.data();
#pragma omp parallel for schedule(static)
  for (int64_t s = 0; s < n; ++s) {
    const int64_t at = s * k_sad_k;
    sad_point_pairs(shapes, params, sad_list_at(lists, coords[2 * s], coords[2 * s + 1]), coords[2 * s],
                    coords[2 * s + 1], d_out + s * k_sad_channels, pair_site + at, pair_w + at, pair_dl + at);
  }
  // The pairs sorted stably by site: a counting sort in pair (point) order.
  sad_pairs_resize(work.first, p.count + 1);
  sad_pairs_resize(work.cursor, p.count);
  sad_pairs_resize(work.order, pairs);
  int64_t *first = work.first.data(), *cursor = work.cursor.data(), *order = work.order.data();
  std::fill(first, first + p.count + 1, int64_t(0));
  for (int64_t k = 0; k < pairs; ++k)
    if (pair_site[k] >= 0) ++first[pair_site[k] + 1];
  for (int64_t i = 0; i < p.count; ++i) first[i + 1] += first[i];
  std::copy(first, first + p.count, cursor);
  for (int64_t k = 0; k < pairs; ++k)
    if (pair_site[k] >= 0) order[cursor[pair_site[k]]++] = k;
  const float cell = p.cell;
#pragma omp parallel for schedule(dynamic, 64)
  for (int64_t i = 0; i < p.count; ++i)
    sad_site_gradient(shapes[i], params + i * k_sad_floats, cell, order, first[i], first[i + 1], pair_w, pair_dl,
                      coords, d_out, grads + i * k_sad_floats, accumulate);
}

void sad_backward_rows(const SadParams& p, const float* params, const SadLists& lists, const float* coords,
                       const float* d_out, int64_t n, float* grads, bool accumulate) {
  SadRowsWork work;
  sad_backward_rows(p, params, lists, coords, d_out, n, grads, accumulate, work);
}

namespace {
class CpuSadEncoding final : public cpu::CpuTrainedEncoding {
public:
  explicit CpuSadEncoding(const EncodingSpec& enc) : m_p(sad_params(enc.sites)) {}
  void encode(const float* params, const float* coords, int64_t n, float* out) override {
    ready(params);
    sad_encode_rows(m_p, params, m_lists, coords, n, out, m_work);
  }
  void backward(const float* params, const float* coords, const float* d_out, int64_t n, float* grads,
                bool accumulate) override {
    ready(params);
    sad_backward_rows(m_p, params, m_lists, coords, d_out, n, grads, accumulate, m_work);
  }
  void step_begins(const float* params) override {
    m_built_from.clear();
    sad_refresh_lists(m_p, params, m_lists, k_sad_step_stride); // half the rows, taking turns
  }
  void parameters_replaced() override {
    m_built_from.clear();
    m_lists = SadLists{};
  }
  void parameters_moved(const float* params) override {
    m_built_from.clear();
    sad_refresh_lists(m_p, params, m_lists); // a moved site is offered at its new node (engine/sad_lists.h)
  }
  void render_begins(const float* params) override;
  bool site_lists(std::vector<int32_t>& out) const override {
    if (!m_lists.built()) return false;
    out = m_lists.ids;
    return true;
  }

private:
  void ready(const float* params) {
    if (!m_lists.built()) sad_build_lists(m_p, params, m_lists);
  }
  SadParams m_p;
  SadLists m_lists;
  SadRowsWork m_work;             ///< the rows' scratch, kept between calls
  std::vector<float> m_built_from; ///< the floats m_lists were built from afresh; empty when not so built
};

void CpuSadEncoding::render_begins(const float* params) {
  // A compare of 240,000 floats at 24,000 sites costs a fraction of a millisecond; a build, as
  // much as the rest of a 768 x 512 render.
  const size_t floats = size_t(m_p.count) * size_t(k_sad_floats);
  if (m_lists.built() && m_built_from.size() == floats &&
      std::memcmp(m_built_from.data(), params, floats * sizeof(float)) == 0)
    return;
  m_built_from.clear(); // a build that throws leaves no lists to trust
  sad_build_lists(m_p, params, m_lists);
  m_built_from.assign(params, params + floats);
}
} // namespace

std::unique_ptr<cpu::CpuTrainedEncoding> make_cpu_sad_encoding(const EncodingSpec& enc) {
  return std::make_unique<CpuSadEncoding>(enc);
}

} // namespace redraw
