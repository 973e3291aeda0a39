#include "cpu/cpu_gaussians.h"
#include "cpu/cpu_family_encoders.h"
#include "cpu/cpu_gaussian_grid.h"

#include <cstring>
#include <vector>

namespace redraw {

void gaussian_encode_rows(const GaussianParams& g, const float* params, const float* coords, int64_t n, float* out) {
  if (n <= 0) return;
  cpu::GaussianGrid grid;
  grid.build(g, params);
  grid.encode(coords, n, out);
}

void gaussian_backward_rows(const GaussianParams& g, const float* params, const float* coords, const float* d_out,
                            int64_t n, float* grads, bool accumulate) {
  if (n <= 0) {
    if (!accumulate) std::fill(grads, grads + g.count * g.floats, 0.0f);
    return;
  }
  cpu::GaussianGrid grid;
  grid.build(g, params);
  grid.backward(params, coords, d_out, n, grads, accumulate);
}

namespace {
/// Bins the Gaussians once per set of parameters: at a step's start (step_begins), then every
/// chunk's encode and backward of the step reads the same grid. A call whose parameters differ
/// from the grid's (the update moved them, a metrics pass or a render between steps, new
/// parameters) bins them again first, so a call never reads a stale grid: the check is a compare
/// of the Gaussians' floats with the copy the grid was built from (a fraction of a millisecond at
/// 300 K floats, against milliseconds to bin).
class CpuGaussiansEncoding final : public cpu::CpuTrainedEncoding {
public:
  explicit CpuGaussiansEncoding(const EncodingSpec& enc) : m_g(gaussian_params(enc.gaussians, enc.carrier)) {}
  void encode(const float* params, const float* coords, int64_t n, float* out) override {
    if (n <= 0) return;
    ready(params);
    m_grid.encode(coords, n, out);
  }
  void backward(const float* params, const float* coords, const float* d_out, int64_t n, float* grads,
                bool accumulate) override {
    if (n <= 0) return gaussian_backward_rows(m_g, params, coords, d_out, n, grads, accumulate);
    ready(params);
    m_grid.backward(params, coords, d_out, n, grads, accumulate);
  }
  void step_begins(const float* params) override { ready(params); }
  void parameters_replaced() override { m_built.clear(); }

private:
  void ready(const float* params) {
    const size_t floats = size_t(m_g.count * m_g.floats);
    if (m_built.size() == floats && std::memcmp(m_built.data(), params, floats * sizeof(float)) == 0) return;
    m_built.clear(); // a build that throws leaves no grid to trust
    m_grid.build(m_g, params);
    m_built.assign(params, params + floats);
  }
  GaussianParams m_g;
  cpu::GaussianGrid m_grid;
  std::vector<float> m_built; ///< the floats m_grid was built from; empty when there is none
};
} // namespace

std::unique_ptr<cpu::CpuTrainedEncoding> make_cpu_gaussians_encoding(const EncodingSpec& enc) {
  return std::make_unique<CpuGaussiansEncoding>(enc);
}

} // namespace redraw
