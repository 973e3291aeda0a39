#include "cuda/trained_encoding.h"

#include "cuda/cuda_check.h"
#include "cuda/encoding_kernels.cuh"

namespace redraw::cuda {

namespace {
/// The hash grid: its table needs nothing prepared, and its backward scatters with atomics into
/// the table's gradient (cuda/encoding_kernels.cuh).
class CudaHashGridEncoding final : public CudaTrainedEncoding {
public:
  explicit CudaHashGridEncoding(const EncodingSpec& enc)
      : m_grid(hash_grid_params(enc)), m_table_floats(int64_t(m_grid.offset[m_grid.n_levels]) * m_grid.n_features) {}
  const char* prepare_name() const override { return "hash grid prepare"; }
  const char* backward_name() const override { return "hash grid backward"; }
  void prepare(const DevicePool&, cudaStream_t, const float*) override {}
  bool graph_safe() const override { return true; }
  const float* encode_input(const CudaContext& c, MlpWorkspace& ws, const float* params, const float* coords,
                            int64_t rows) override {
    return encode_grid_input(c, ws, m_grid, params, coords, rows);
  }
  const float* encode_pixels(const CudaContext& c, MlpWorkspace& ws, const float* params, int32_t w, int32_t h,
                             int64_t p0, int64_t count) override {
    return encode_grid_pixels(c, ws, m_grid, params, w, h, p0, count);
  }
  void encode(cudaStream_t stream, const float* params, const float* coords, int64_t n, float* out) override {
    hash_grid_encode(stream, m_grid, params, coords, n, out);
  }
  void backward(const DevicePool&, cudaStream_t stream, const float*, const float* coords, const float* d_out,
                int64_t n, float* grads, bool accumulate) override {
    if (!accumulate) CUDA_CHECK(cudaMemsetAsync(grads, 0, size_t(m_table_floats) * sizeof(float), stream));
    hash_grid_backward(stream, m_grid, coords, d_out, n, grads);
  }
  uint64_t model_bytes() const override { return 0; }
  uint64_t row_bytes() const override { return 0; }

private:
  HashGridParams m_grid;
  int64_t m_table_floats;
};
} // namespace

std::unique_ptr<CudaTrainedEncoding> make_cuda_hash_grid_encoding(const EncodingSpec& enc) {
  return std::make_unique<CudaHashGridEncoding>(enc);
}

} // namespace redraw::cuda
