#include "cuda/trained_encoding.h"

#include "cuda/gaussian_kernels.cuh"

namespace redraw::cuda {

namespace {
/// The Gaussians: prepare() bins them for the parameters (and waits for the pair count, so a
/// gaussians step runs without a CUDA graph); encode and backward walk the bins
/// (cuda/gaussian_kernels.cuh).
class CudaGaussiansEncoding final : public CudaTrainedEncoding {
public:
  explicit CudaGaussiansEncoding(const EncodingSpec& enc) : m_g(gaussian_params(enc.gaussians, enc.carrier)) {}
  const char* prepare_name() const override { return "gaussians binning"; }
  const char* backward_name() const override { return "gaussians backward"; }
  void prepare(const DevicePool& pool, cudaStream_t stream, const float* params) override {
    m_binning.bin(pool, stream, m_g, params);
  }
  bool graph_safe() const override { return false; }
  const float* encode_input(const CudaContext& c, MlpWorkspace& ws, const float* params, const float* coords,
                            int64_t rows) override {
    m_binning.encode(c.stream, params, coords, rows, ws.input());
    return ws.input();
  }
  const float* encode_pixels(const CudaContext& c, MlpWorkspace& ws, const float* params, int32_t w, int32_t h,
                             int64_t p0, int64_t count) override {
    m_binning.encode_pixels(c.stream, params, w, h, p0, count, ws.input());
    return ws.input();
  }
  void encode(cudaStream_t stream, const float* params, const float* coords, int64_t n, float* out) override {
    m_binning.encode(stream, params, coords, n, out);
  }
  void backward(const DevicePool& pool, cudaStream_t stream, const float* params, const float* coords,
                const float* d_out, int64_t n, float* grads, bool accumulate) override {
    m_binning.backward(pool, stream, params, coords, d_out, n, grads, accumulate);
  }
  /// Their shapes, boxes and offsets, and the binning's (bin, Gaussian) pairs at about 16 a
  /// Gaussian (their initial size), 28 bytes each and the backward's partial gradient (4 a float).
  uint64_t model_bytes() const override { return uint64_t(m_g.count) * (52 + 16 * (28 + 4 * uint64_t(m_g.floats))); }
  uint64_t row_bytes() const override { return 16; } ///< the backward's sample sort

private:
  GaussianParams m_g;
  GaussianBinning m_binning;
};
} // namespace

std::unique_ptr<CudaTrainedEncoding> make_cuda_gaussians_encoding(const EncodingSpec& enc) {
  return std::make_unique<CudaGaussiansEncoding>(enc);
}

} // namespace redraw::cuda
