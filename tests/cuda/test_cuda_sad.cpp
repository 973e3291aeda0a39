// The `sad` model on the GPU (cuda/sad_kernels.cuh) against the CPU (cpu/cpu_sad.h, itself checked
// against brute force, a float64 loop and finite differences in tests/engine/cpu/test_cpu_sad.cpp
// and tests/engine/bench/test_sad_model.cpp). Both run engine/sad_list_math.h's passes on the same
// schedule with the same random candidates and add the same terms in the same order, so only
// expf, sqrtf and FMA contraction differ; a node's list may then differ where two sites' energies
// tie within those roundings. Bounds:
//   lists (built, then refreshed after the sites move)   at least 99.5% of nodes identical, and
//                                                          every other node's energies those of a tie
//   encode on the GPU's own lists                        1e-5 (normalised error, reference_mlp.h)
//   loss gradients                                       1e-4, and bit-identical reruns
//   100-step runs, full batch and minibatch              PSNR within 0.25 dB of the CPU's at every row
//   a captured step against eager steps                  the same bits
//   rendering after new parameters                       RGBA8 within 1 level at 99.9% of values
// Without a device every case prints "SKIPPED: no CUDA device: <why>" and checks nothing.
#if REDRAW_HAVE_CUDA

#include "cuda_test_support.h"
#include "primitive_fixtures.h"
#include "reference_mlp.h"
#include "test_support.h"

#include "cpu/cpu_backend.h"
#include "cpu/cpu_sad.h"
#include "cuda/cuda_backend.h"
#include "cuda/device_buffer.h"
#include "cuda/sad_kernels.cuh"
#include "cuda/trained_encoding.h"
#include "engine/frames/renderer.h"
#include "engine/rng_math.h"
#include "engine/training/trainer.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace redraw;
using redraw::test::normalised_error;

namespace {

/// The sad preset at `sites` sites, 3 channels.
ModelSpec sad_model(int64_t sites) { return test::preset_model("sad", &EncodingSpec::sites, sites); }

/// Its initial parameters with the sites moved off their grid (metrics from round to three to
/// one, radii and temperatures spread, colours of both signs) and the head away from the
/// identity, so every float's gradient is nonzero somewhere.
std::vector<float> sad_test_params(const ModelSpec& m, uint64_t seed) {
  std::vector<float> p = initial_parameters(m, seed);
  const std::vector<float> drawn =
      test::drawn_sites(m.encoding.sites, seed, {.stream = 61, .mean = 0.05, .temp_lo = -1.5, .temp_hi = 0.0});
  for (int64_t i = 0; i < m.encoding.sites; ++i) {
    float* s = p.data() + i * k_sad_floats;
    const float* d = drawn.data() + i * k_sad_floats;
    s[k_sad_mx] += d[k_sad_mx];
    s[k_sad_my] += d[k_sad_my];
    std::copy(d + k_sad_l11, d + k_sad_floats, s + k_sad_l11);
  }
  test::shake_head(m, seed, 62, p);
  return p;
}

/// The sites' lists as the device builds and refreshes them (SadLattice), for host parameters.
class DeviceLists {
public:
  explicit DeviceLists(const SadParams& p) : m_p(p), m_pool(cuda::DevicePool::shared(0)) {
    CUDA_CHECK(cudaStreamCreate(&m_stream));
  }
  ~DeviceLists() {
    m_params = cuda::DeviceBuffer<float>();
    m_lattice.reset();
    (void)cudaStreamSynchronize(m_stream);
    (void)cudaStreamDestroy(m_stream);
  }
  DeviceLists(const DeviceLists&) = delete;
  DeviceLists& operator=(const DeviceLists&) = delete;
  /// Uploads the sites, shapes them and builds (or, with `refresh`, follows) the lists.
  std::vector<int32_t> lists_for(const std::vector<float>& sites, bool refresh, int32_t stride = 1) {
    if (m_params.size() < sites.size()) m_params = cuda::DeviceBuffer<float>(*m_pool, m_stream, sites.size(), "test");
    m_params.upload(sites.data(), sites.size());
    m_lattice->shapes(*m_pool, m_stream, m_p, m_params.data());
    if (refresh)
      m_lattice->refresh(*m_pool, m_stream, stride);
    else
      m_lattice->build(*m_pool, m_stream);
    return m_lattice->download_lists(m_stream);
  }

private:
  SadParams m_p;
  std::shared_ptr<cuda::DevicePool> m_pool;
  cudaStream_t m_stream = nullptr;
  cuda::DeviceBuffer<float> m_params;
  std::unique_ptr<cuda::SadLattice> m_lattice = std::make_unique<cuda::SadLattice>();
};

/// Compares the device's lists with the CPU's for the same sites: the share of nodes whose lists
/// are identical, and whether every other node's k_sad_k energies (float64, at its centre) are
/// those of the CPU's list within `tie` (relative): a tie the roundings broke another way.
struct ListComparison {
  double identical = 0;
  bool ties_only = true;
};
ListComparison compare_lists(const SadParams& p, const std::vector<float>& sites, const std::vector<int32_t>& gpu,
                             const std::vector<int32_t>& cpu, double tie) {
  ListComparison r;
  const int64_t nodes = int64_t(p.grid) * p.grid;
  int64_t same = 0;
  for (int64_t node = 0; node < nodes; ++node) {
    const int32_t* a = gpu.data() + node * k_sad_k;
    const int32_t* b = cpu.data() + node * k_sad_k;
    if (std::equal(a, a + k_sad_k, b)) {
      ++same;
      continue;
    }
    const double x = pixel_centre<double>(node % p.grid, p.grid), y = pixel_centre<double>(node / p.grid, p.grid);
    auto energies = [&](const int32_t* list) {
      std::vector<double> e;
      for (int k = 0; k < k_sad_k; ++k)
        if (list[k] >= 0)
          e.push_back(sad_key(sad_shape<double>(sites.data() + int64_t(list[k]) * k_sad_floats, double(p.cell)), x, y));
      std::sort(e.begin(), e.end());
      return e;
    };
    const auto ea = energies(a), eb = energies(b);
    if (ea.size() != eb.size()) {
      r.ties_only = false;
      continue;
    }
    for (size_t k = 0; k < ea.size(); ++k)
      if (std::abs(ea[k] - eb[k]) > tie * std::max(1.0, std::abs(eb[k]))) r.ties_only = false;
  }
  r.identical = double(same) / double(nodes);
  return r;
}

RunConfig small_sad_run(int64_t sites, int64_t batch) {
  return test::parity_run("sad", &EncodingSpec::sites, sites, batch);
}

/// The share of an RGBA8 render's colour values more than one level from `want`'s.
double share_off_by_more_than_one(const std::vector<uint8_t>& rgba, const Image& want) {
  int64_t off = 0, all = 0;
  for (size_t px = 0; px < size_t(want.width) * size_t(want.height); ++px)
    for (int k = 0; k < want.channels; ++k, ++all) {
      const int v = int(std::clamp(want.pixels[px * size_t(want.channels) + size_t(k)], 0.0f, 1.0f) * 255.0f + 0.5f);
      off += std::abs(int(rgba[px * 4 + size_t(k)]) - v) > 1;
    }
  return double(off) / double(all);
}

} // namespace

TEST_CASE("cuda sad: auto keeps the family on the CPU until its kernels are checked; a named backend makes them") {
  // No device needed: the table's answers (cuda/trained_encodings.cpp).
  const ModelSpec m = sad_model(100);
  CHECK(cuda::cuda_family_refusal(m.encoding).find("await their first check on a GPU") != std::string::npos);
  CHECK(cuda::cuda_trained_encoding(m.encoding) != nullptr);
  CHECK(cuda::cuda_family_refusal(load_preset("gaussians").model.encoding).empty());
}

TEST_CASE("cuda sad: the device's lists are the CPU's, built and refreshed after the sites move") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  for (int64_t count : {int64_t(1), int64_t(9), int64_t(700), int64_t(5000)}) {
    CAPTURE(count);
    const ModelSpec m = sad_model(count);
    const SadParams p = sad_params(count);
    std::vector<float> sites = test::encoding_floats(sad_test_params(m, 3), m);
    if (count > 2) sites[size_t(k_sad_floats + k_sad_mx)] = std::numeric_limits<float>::quiet_NaN(); // in no bucket
    DeviceLists device(p);
    SadLists cpu;
    sad_build_lists(p, sites.data(), cpu);
    const auto built = compare_lists(p, sites, device.lists_for(sites, false), cpu.ids, 1e-5);
    CHECK(built.identical >= 0.995);
    CHECK(built.ties_only);
    // The sites move a fifth of a cell; one refresh each, five times: the pass counter moves on
    // (the first two renew every row, the last three alternate rows, as a training step's).
    for (int round = 0; round < 5; ++round) {
      for (int64_t i = 0; i < count; ++i) {
        sites[size_t(i * k_sad_floats + k_sad_mx)] += float(0.2 * p.cell * (random_unit(7, 64, uint64_t(i * 2 + round * 99991)) - 0.5));
        sites[size_t(i * k_sad_floats + k_sad_my)] += float(0.2 * p.cell * (random_unit(7, 64, uint64_t(i * 2 + 1 + round * 99991)) - 0.5));
      }
      const int32_t stride = round < 2 ? 1 : k_sad_step_stride; // all rows, then a training step's half
      sad_refresh_lists(p, sites.data(), cpu, stride);
      const auto moved = compare_lists(p, sites, device.lists_for(sites, true, stride), cpu.ids, 1e-5);
      CAPTURE(round);
      CHECK(moved.identical >= 0.995);
      CHECK(moved.ties_only);
    }
  }
}

TEST_CASE("cuda sad: encode on the device's lists matches the CPU's blend of the same lists, and the backend's encode") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  auto gpu = test::cuda_backend(CudaPrecision::Fp32);
  CpuBackend cpu;
  for (int64_t count : {int64_t(1), int64_t(37), int64_t(2000)}) {
    CAPTURE(count);
    const ModelSpec m = sad_model(count);
    const SadParams p = sad_params(count);
    std::vector<float> sites = test::encoding_floats(sad_test_params(m, 4), m);
    const int64_t n = 7000;
    const auto coords = test::border_coords(n, 5, 63);
    // The blend alone: the CPU's pass over the device's own lists.
    DeviceLists device(p);
    SadLists lists;
    lists.grid = p.grid;
    lists.count = p.count;
    lists.ids = device.lists_for(sites, false);
    std::vector<float> want(size_t(n) * k_sad_channels), got(want.size(), 99.0f);
    sad_encode_rows(p, sites.data(), lists, coords.data(), n, want.data());
    gpu->encode(m.encoding, sites, coords.data(), n, got.data());
    CHECK(normalised_error(got, want) <= 1e-5);
    // The backends' stateless encodes, each building its own lists.
    std::vector<float> on_cpu(want.size());
    cpu.encode(m.encoding, sites, coords.data(), n, on_cpu.data());
    CHECK(normalised_error(got, on_cpu) <= 1e-4);
  }
}

TEST_CASE("cuda sad: loss and gradients match the CPU over several chunks, and reruns are bit-identical") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  const ModelSpec m = sad_model(900);
  (void)test::check_primitive_gradients(m, sad_test_params(m, 6), 63, 65);
}

TEST_CASE("cuda sad: 100-step training runs match the CPU (full batch and minibatch), and render alike") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  const Image img = test::gradient_image(72, 48, 3);
  for (int64_t batch : {int64_t(0), int64_t(1024)}) {
    CAPTURE(batch);
    const RunConfig c = small_sad_run(400, batch);
    Trainer cpu(std::make_unique<CpuBackend>(), c, Dataset{img});
    Trainer gpu(test::cuda_backend(CudaPrecision::Fp32), c, Dataset{img});
    cpu.run(100);
    gpu.run(100);
    const auto& hc = cpu.record().rows();
    const auto& hg = gpu.record().rows();
    REQUIRE(hc.size() == hg.size());
    for (size_t i = 0; i < hc.size(); ++i) {
      CAPTURE(hc[i].step);
      CHECK(std::abs(hg[i].psnr_db - hc[i].psnr_db) <= 0.25);
    }
    CHECK(hg.back().psnr_db > hg.front().psnr_db + 3.0); // it learns
    // New parameters drop the device's lists: its render builds them afresh, as the CPU's
    // stateless render does.
    const auto params = gpu.parameters();
    gpu.backend().set_parameters(params);
    auto* cuda = dynamic_cast<CudaBackend*>(&gpu.backend());
    REQUIRE(cuda);
    CpuBackend reference;
    const NetworkView view{&gpu.config().model, params, {}};
    const Image want = render_image(reference, view, 131, 77);
    CHECK(share_off_by_more_than_one(cuda->render_rgba8(131, 77), want) <= 1e-3);
  }
}

TEST_CASE("cuda sad: captured steps give the bits of eager ones, over several chunks, and reruns repeat them") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  // 320 x 240 = 76,800 pixels: a full batch is two chunks of the bound step (2^16 rows each).
  const Image img = test::gradient_image(320, 240, 3);
  RunConfig c = small_sad_run(3000, 0);
  c.training.steps = 30;
  c.training.metrics_every = 10;
  auto eager_backend = test::cuda_backend(CudaPrecision::Fp32);
  eager_backend->set_graphs_enabled(false);
  Trainer eager(std::move(eager_backend), c, Dataset{img});
  Trainer captured(test::cuda_backend(CudaPrecision::Fp32), c, Dataset{img});
  Trainer cpu(std::make_unique<CpuBackend>(), c, Dataset{img});
  eager.run(30);
  captured.run(30);
  cpu.run(30);
  auto* graphs = dynamic_cast<CudaBackend*>(&captured.backend());
  REQUIRE(graphs);
  CHECK(graphs->graphs_enabled()); // a failed capture turns graphs off (and would leave both eager)
  CHECK(captured.parameters() == eager.parameters()); // the pass counter moves on inside the graph
  const auto& hc = cpu.record().rows();
  const auto& hg = captured.record().rows();
  REQUIRE(hc.size() == hg.size());
  for (size_t i = 0; i < hc.size(); ++i) {
    CAPTURE(hc[i].step);
    CHECK(std::abs(hg[i].psnr_db - hc[i].psnr_db) <= 0.25);
  }
  Trainer again(test::cuda_backend(CudaPrecision::Fp32), c, Dataset{img});
  again.run(30);
  CHECK(again.parameters() == captured.parameters());
}

TEST_CASE("cuda sanitize: sad lists, encode, backward, bound steps and renders") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  // Small: compute-sanitizer (scripts/gpu_check.py run sanitize) runs every kernel of the model.
  const Image img = test::gradient_image(20, 13, 3);
  RunConfig c = small_sad_run(50, 64);
  c.training.steps = 3;
  Trainer gpu(test::cuda_backend(CudaPrecision::Fp32), c, Dataset{img});
  Trainer cpu(std::make_unique<CpuBackend>(), c, Dataset{img});
  gpu.run(3);
  cpu.run(3);
  CHECK(normalised_error(gpu.parameters(), cpu.parameters()) <= 1e-4);
  auto* cuda = dynamic_cast<CudaBackend*>(&gpu.backend());
  REQUIRE(cuda);
  const auto rgba = cuda->render_rgba8(301, 203); // larger than the training chunk
  CHECK(rgba.size() == size_t(301) * 203 * 4);
}

#endif // REDRAW_HAVE_CUDA
