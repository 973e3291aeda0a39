#include "cuda/trained_encoding.h"

#include "cuda/sad_kernels.cuh"
#include "engine/sad_list_math.h"

namespace redraw::cuda {

namespace {
/// The sites (cuda/sad_kernels.cuh): prepare() shapes them and builds their lists when there are
/// none (a stateless call, new parameters); a step's start also follows the sites with one pass
/// (renewing half the rows, taking turns),
/// as the CPU's step_begins, so the metric passes and renders between steps blend the lists the
/// last step refreshed, as the CPU's do. Everything enqueues (the pass counter lives on the
/// device), so a sad step is captured into a CUDA graph after its warm-up step; new parameters
/// drop the lists, and the backend then captures its step again.
class CudaSadEncoding final : public CudaTrainedEncoding {
public:
  explicit CudaSadEncoding(const EncodingSpec& enc) : m_p(sad_params(enc.sites)) {}
  const char* prepare_name() const override { return "sad lists"; }
  const char* backward_name() const override { return "sad backward"; }
  void prepare(const DevicePool& pool, cudaStream_t stream, const float* params) override {
    m_lattice.shapes(pool, stream, m_p, params);
    if (!m_lattice.built()) m_lattice.build(pool, stream);
  }
  void step_begins(const DevicePool& pool, cudaStream_t stream, const float* params) override {
    m_lattice.shapes(pool, stream, m_p, params);
    m_lattice.refresh(pool, stream, k_sad_step_stride); // half the rows, taking turns, as the CPU's
  }
  void parameters_replaced() override { m_lattice.drop(); }
  bool graph_safe() const override { return true; }
  const float* encode_input(const CudaContext& c, MlpWorkspace& ws, const float* params, const float* coords,
                            int64_t rows) override {
    m_lattice.encode(c.stream, params, coords, rows, ws.input());
    return ws.input();
  }
  const float* encode_pixels(const CudaContext& c, MlpWorkspace& ws, const float* params, int32_t w, int32_t h,
                             int64_t p0, int64_t count) override {
    m_lattice.encode_pixels(c.stream, params, w, h, p0, count, ws.input());
    return ws.input();
  }
  void encode(cudaStream_t stream, const float* params, const float* coords, int64_t n, float* out) override {
    m_lattice.encode(stream, params, coords, n, out);
  }
  void backward(const DevicePool& pool, cudaStream_t stream, const float* params, const float* coords,
                const float* d_out, int64_t n, float* grads, bool accumulate) override {
    m_lattice.backward(pool, stream, params, coords, d_out, n, grads, accumulate);
  }
  /// Per site: its shape (32 bytes), node, index and bucket (16), its gradient range (4); per
  /// node of the lattice: two lists of k_sad_k ids and a bucket start; cub's scratch besides.
  uint64_t model_bytes() const override {
    const uint64_t nodes = uint64_t(m_p.grid) * uint64_t(m_p.grid);
    return uint64_t(m_p.count) * 52 + nodes * (2 * k_sad_k * 4 + 4) + (uint64_t(1) << 20);
  }
  /// Per row: k_sad_k gradient pairs (site and index, sorted, weight, dLoss/dlogit: 24 bytes)
  /// and the sort's double buffer (16).
  uint64_t row_bytes() const override { return uint64_t(k_sad_k) * 40; }

private:
  SadParams m_p;
  SadLattice m_lattice;
};
} // namespace

std::unique_ptr<CudaTrainedEncoding> make_cuda_sad_encoding(const EncodingSpec& enc) {
  return std::make_unique<CudaSadEncoding>(enc);
}

} // namespace redraw::cuda
