#pragma once
/// Small fixtures shared by the engine tests: tiny configs, temp folders, a forwarding backend
/// (synthetic images and the other helpers the benchmarks share are in tool_support.h).
#include "cpu/cpu_backend.h"
#include "engine/rng_math.h"
#include "engine/run_config.h"
#include "engine/training/trainer.h"
#include "tool_support.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <fstream>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>
#include <csignal>
#include <sys/resource.h>
#include <unistd.h>

namespace redraw::test {

/// Sets an environment variable for one scope (unset when `value` is null), then restores it.
struct ScopedEnv {
  std::string name, old;
  bool had;
  ScopedEnv(const char* n, const char* value) : name(n) {
    const char* v = std::getenv(n);
    had = v != nullptr;
    if (had) old = v;
    if (value)
      setenv(n, value, 1);
    else
      unsetenv(n);
  }
  ScopedEnv(const char* n, const std::string& value) : ScopedEnv(n, value.c_str()) {}
  ~ScopedEnv() {
    if (had)
      setenv(name.c_str(), old.c_str(), 1);
    else
      unsetenv(name.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
};

/// A folder from the environment variable `env` when set, else the build tree's `fallback`.
inline std::filesystem::path data_dir(const char* env, const char* fallback) {
  const char* v = std::getenv(env);
  return std::filesystem::path(v && *v ? v : fallback);
}
/// A sample image from tests/data (or $REDRAW_SAMPLE_DIR, e.g. a packed copy on a GPU machine).
inline std::filesystem::path sample(const std::string& name) {
  return data_dir("REDRAW_SAMPLE_DIR", REDRAW_SAMPLE_DIR) / name;
}
/// The project's assets/ folder (or $REDRAW_TEST_ASSET_DIR).
inline std::filesystem::path test_assets() { return data_dir("REDRAW_TEST_ASSET_DIR", REDRAW_TEST_ASSET_DIR); }

/// How far two renders of one network at one size may differ when only their tiling differs.
/// BLAS kernels may sum a row's products in an order that depends on where the row sits in the
/// call (OpenBLAS's Haswell sgemm does so on AVX-512 EPYC machines, by about 1e-6 on outputs in
/// [0, 1]), so this is float rounding, not zero. A misplaced or mis-addressed tile is off by
/// orders of magnitude more.
constexpr double k_tiling_tolerance = 1e-5;

/// Largest absolute difference between two images; infinity when their shapes differ.
inline double max_abs_diff(const Image& a, const Image& b) {
  if (a.width != b.width || a.height != b.height || a.channels != b.channels || a.pixels.size() != b.pixels.size())
    return std::numeric_limits<double>::infinity();
  double worst = 0;
  for (size_t i = 0; i < a.pixels.size(); ++i) worst = std::max(worst, double(std::abs(a.pixels[i] - b.pixels[i])));
  return worst;
}

/// A tiny tanh network for fast, exact tests.
inline RunConfig small_config(OptimizerKind opt, int64_t batch) {
  RunConfig c;
  c.name = "test";
  c.model.hidden = {8, 6};
  c.model.hidden_activations = {Activation::Tanh, Activation::Tanh};
  c.model.output_activation = Activation::Sigmoid;
  c.model.init = InitKind::Xavier;
  c.optimizer.kind = opt;
  c.optimizer.sgd.momentum = 0.9f;
  c.schedule.kind = ScheduleKind::Constant;
  c.schedule.lr_max = opt == OptimizerKind::Adam ? 1e-2 : 0.1;
  c.training.batch_size = batch;
  c.training.steps = 100;
  c.training.seed = 42;
  c.training.metrics_every = 5;
  return c;
}

/// A hash-grid encoding: `levels` levels of `features` features, at most 2^log2_size entries per
/// level, `base` cells per side on the coarsest level and `finest` on the finest (0: the default
/// per-level scale of 1.5).
inline EncodingSpec hash_grid_spec(int32_t levels, int32_t features, int32_t log2_size, int32_t base,
                                   int32_t finest = 0) {
  EncodingSpec e;
  e.kind = EncodingKind::HashGrid;
  e.n_levels = levels;
  e.n_features_per_level = features;
  e.log2_hashmap_size = log2_size;
  e.base_resolution = base;
  e.finest_resolution = finest;
  return e;
}

/// `n` values drawn evenly from [lo, hi) by random_unit(seed, stream, i).
inline std::vector<float> uniform_values(size_t n, uint64_t seed, uint64_t stream, float lo, float hi) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = lo + (hi - lo) * float(random_unit(seed, stream, i));
  return v;
}

/// small_config (Adam) with two Tanh layers of 16: `steps` steps, a metrics row every `metrics_every`.
inline RunConfig tanh16_config(int64_t batch, int64_t steps, int64_t metrics_every) {
  RunConfig c = small_config(OptimizerKind::Adam, batch);
  c.model.hidden = {16, 16};
  c.model.hidden_activations = {Activation::Tanh, Activation::Tanh};
  c.training.steps = steps;
  c.training.metrics_every = metrics_every;
  return c;
}

/// A SIREN preset with two sine layers of `width`, at a constant learning rate of 1e-3.
inline RunConfig siren_config(int32_t width) {
  RunConfig c = load_preset("siren");
  c.model.hidden = {width, width};
  c.model.hidden_activations = {Activation::Sine, Activation::Sine};
  c.schedule.kind = ScheduleKind::Constant;
  c.schedule.lr_max = 1e-3;
  return c;
}

/// small_config on plain SGD with ReLU layers, a linear output and a learning rate of 1e6: it
/// diverges at its first step.
inline RunConfig diverging_config() {
  RunConfig c = small_config(OptimizerKind::Sgd, 0);
  c.model.output_activation = Activation::Identity;
  c.model.hidden_activations = {Activation::Relu, Activation::Relu};
  c.optimizer.sgd.momentum = 0.0f;
  c.schedule.lr_max = 1e6;
  return c;
}

/// The PSNR of `a` against `b` (values in [0, 1]) in float64; infinity when they are equal. The
/// reference for rounded weights and frames.
inline double psnr_f64(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  double se = 0;
  for (size_t i = 0; i < a.size(); ++i) se += (double(a[i]) - double(b[i])) * (double(a[i]) - double(b[i]));
  return se == 0 ? INFINITY : 10 * std::log10(double(a.size()) / se);
}

inline Trainer small_trainer(const RunConfig& cfg, const Image& img) {
  return Trainer(std::make_unique<CpuBackend>(), cfg, Dataset{img});
}

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    static int counter = 0;
    path = std::filesystem::temp_directory_path() /
           ("redraw-test-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

inline std::vector<uint8_t> read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::filesystem::path& p, const std::vector<uint8_t>& b) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

/// Files that hold no more than `bytes`: writes beyond fail with EFBIG, like a full disk.
struct ScopedFileSizeLimit {
  rlimit old{};
  void (*old_handler)(int);
  explicit ScopedFileSizeLimit(rlim_t bytes) {
    old_handler = std::signal(SIGXFSZ, SIG_IGN);
    getrlimit(RLIMIT_FSIZE, &old);
    rlimit lim = old;
    lim.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &lim);
  }
  ~ScopedFileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, old_handler);
  }
};

inline int files_in(const std::filesystem::path& dir) {
  int n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

/// A test backend that forwards every operation to a CpuBackend (`m_cpu`): a test derives from it
/// and overrides only what it changes (slow measurements, lagging loss reports, ...).
class CpuWrapperBackend : public Backend {
public:
  std::string name() const override { return "cpu"; }
  bool supports(BackendFeature f) const override { return m_cpu.supports(f); }

protected:
  void configure_impl(const TrainSetup& setup, const Dataset& data) override { m_cpu.configure(setup, data); }
  void set_parameters_impl(std::span<const float> p) override { m_cpu.set_parameters(p); }
  void get_parameters_impl(std::vector<float>& out) override { out = m_cpu.parameters(); }
  void set_optimizer_state_impl(const OptimizerState& st) override { m_cpu.set_optimizer_state(st); }
  void get_optimizer_state_impl(OptimizerState& out) override { out = m_cpu.optimizer_state(); }
  void train_step_impl(const StepArgs& args) override { m_cpu.train_step(args); }
  std::optional<LossSample> poll_loss_impl() override { return m_cpu.poll_loss(); }
  double dataset_mse_impl() override { return m_cpu.dataset_mse(); }
  void predict_impl(const ModelSpec& model, std::span<const float> params, std::span<const float> fourier_b,
                    const float* coords, int64_t n, float* out) override {
    m_cpu.predict(model, params, fourier_b, coords, n, out);
  }
  double loss_and_gradients_impl(const ModelSpec& model, const LossParams& loss, std::span<const float> params,
                                 std::span<const float> fourier_b, const float* coords, const float* targets,
                                 int64_t n, std::span<float> grads) override {
    return m_cpu.loss_and_gradients(model, loss, params, fourier_b, coords, targets, n, grads);
  }
  void optimizer_update_impl(const OptimizerSpec& opt, std::span<float> params, std::span<const float> grads,
                             OptimizerState& state, float lr, int64_t step) override {
    m_cpu.optimizer_update(opt, params, grads, state, lr, step);
  }
  void encode_impl(const EncodingSpec& enc, std::span<const float> fourier_b, const float* coords, int64_t n,
                   float* out) override {
    m_cpu.encode(enc, fourier_b, coords, n, out);
  }

  CpuBackend m_cpu;
};

} // namespace redraw::test
