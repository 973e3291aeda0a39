#pragma once
/// The CUDA backend: engine's Backend interface on one NVIDIA GPU.
/// - Pure C++ header (no CUDA headers): app/, ui/, tests and bench include it with any compiler.
/// - Memory: every buffer comes from the backend's stream-ordered pool (release threshold
///   UINT64_MAX) and is allocated once per network shape in configure(); train_step() allocates
///   nothing and never waits for the device. Out of memory throws BackendError naming the sizes.
/// - A training step is cuBLAS sgemm for the matrix products plus fused kernels (bias + activation,
///   activation backward + bias-gradient reduction, loss + gradient, one optimizer launch), all on
///   one stream. The first step runs eagerly (warm-up); the second captures the step into a CUDA
///   graph, which every later step replays. The step index and learning rate reach the graph through
///   a small device block written by a one-thread kernel whose argument carries the values.
/// - Recorded losses reach the host through pinned memory and an event (poll_loss never blocks);
///   timelapse frames likewise (begin_parameter_copy), on a copy stream of their own.
/// - Precision of the matrix products: auto (default), fp32, tf32 or bf16 tensor cores (inputs
///   rounded to a 10- or 7-bit mantissa; accumulation and all storage stay fp32), set with
///   set_precision() or the REDRAW_CUDA_PRECISION environment variable (auto | fp32 | tf32 | bf16)
///   read by make_cuda_backend(), or the command line's --precision. auto runs a narrow network
///   (hidden layers all 16, 32, 64 or 128 wide; cuda/fused_mlp.cuh) on the fully fused fp16
///   tensor-core kernels, with loss scaling, and everything else in fp32 through cuBLAS, exactly as
///   fp32 does. fp32 never uses the fused kernels. fp16 cuBLAS products are not offered: their range
///   flushes the small gradients of a mean loss over 10^5 samples to zero without loss scaling.
/// - REDRAW_CUDA_GRAPHS=0 disables graph capture (every step enqueued op by op), for debugging.
/// - Threading: one thread at a time uses a backend (the trainer's thread), as for every Backend.
#include "engine/backend.h"
#include "engine/backend_names.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace redraw {

enum class CudaPrecision : int32_t { Fp32 = 0, Tf32, Bf16, Auto };

const char* cuda_precision_name(CudaPrecision p);
/// "auto", "fp32", "tf32" or "bf16" (case-insensitive); ConfigError listing the known names otherwise.
CudaPrecision parse_cuda_precision(const std::string& name);

/// Timings of training steps on the bound network (for the benchmark).
struct CudaStepProfile {
  int64_t steps = 0;
  bool graphs = false;                 ///< graph replay was measured (false: graphs disabled)
  double graph_ms_per_step = 0;        ///< GPU time per step, graph replays back to back (CUDA events)
  double eager_ms_per_step = 0;        ///< GPU time per step, every op enqueued one by one
  double kernel_ms_per_step = 0;       ///< sum of per-op event brackets of an eager step
  double host_enqueue_us_per_step = 0; ///< host time to enqueue one replayed step
  std::vector<std::pair<std::string, double>> per_op_ms; ///< per step, by op kind
};

class CudaBackend final : public Backend, public DeviceRenderer {
public:
  /// Opens `device`, creates its stream, pool and cuBLAS handle. Throws BackendError when the
  /// device cannot be used (no driver, no device, no kernels for its compute capability).
  explicit CudaBackend(int device = 0);
  ~CudaBackend() override;
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  std::string name() const override { return k_cuda_backend.name; }
  std::string device_description() const override;
  bool supports(BackendFeature f) const override;
  std::string model_refusal(const ModelSpec& model) const override;
  /// Device memory in use on the whole device (cudaMemGetInfo); no phase times (StepProfile).
  StepProfile take_step_profile() override;
  int64_t device_memory_in_use() override;
  DeviceRenderer* device_renderer() override { return this; }
  void synchronize() override;

  /// Matrix-product precision from the next step on (re-captures the step graph, rebuilds the
  /// training workspace and drops the render workspace, which may be fused or cuBLAS).
  void set_precision(CudaPrecision p);
  CudaPrecision precision() const;
  /// Whether `model`, trained with `loss` (null: forward passes only), runs on the fully fused fp16
  /// MLP kernels at the current precision (auto, and a shape and loss cuda/fused_mlp_rules.h
  /// covers); otherwise on cuBLAS.
  bool uses_fused_mlp(const ModelSpec& model, const LossParams* loss = nullptr) const;
  /// Graph capture on (default, unless REDRAW_CUDA_GRAPHS=0) or off.
  void set_graphs_enabled(bool on);
  bool graphs_enabled() const;

  /// Renders the bound network's current parameters at w x h into dst_device, a device buffer of
  /// w * h RGBA8 pixels (row 0 at the top; each value clamped to [0, 1], times 255, rounded; gray
  /// replicated to RGB; alpha 255). Works in tiles on the backend's stream and returns once the
  /// image is complete. Call from the thread that owns the backend. Throws BackendError when no
  /// network is configured, ConfigError for a size outside [1, k_max_render_side].
  void render_rgba8_device(int32_t w, int32_t h, void* dst_device) override;
  /// The same image copied to the host (w * h * 4 bytes), for tests and for a GUI without interop.
  std::vector<uint8_t> render_rgba8(int32_t w, int32_t h);

  /// Runs 2 * steps + a few training steps on the bound network starting at args.step (they
  /// change the parameters) and times them; for the benchmark.
  CudaStepProfile profile_steps(const StepArgs& args, int64_t steps);

protected:
  void configure_impl(const TrainSetup& setup, const Dataset& data) override;
  void set_parameters_impl(std::span<const float> params) override;
  void get_parameters_impl(std::vector<float>& out) override;
  void set_optimizer_state_impl(const OptimizerState& state) override;
  void get_optimizer_state_impl(OptimizerState& out) override;
  void train_step_impl(const StepArgs& args) override;
  std::optional<LossSample> poll_loss_impl() override;
  double dataset_mse_impl() override;

  void predict_impl(const ModelSpec& model, std::span<const float> params, std::span<const float> fourier_b,
                    const float* coords, int64_t n, float* out) override;
  double loss_and_gradients_impl(const ModelSpec& model, const LossParams& loss, std::span<const float> params,
                                 std::span<const float> fourier_b, const float* coords, const float* targets,
                                 int64_t n, std::span<float> grads) override;
  void optimizer_update_impl(const OptimizerSpec& opt, std::span<float> params, std::span<const float> grads,
                             OptimizerState& state, float learning_rate, int64_t step) override;
  void encode_impl(const EncodingSpec& enc, std::span<const float> fourier_b, const float* coords, int64_t n,
                   float* out) override;
  /// Device-to-device into staging on the step's stream, then to pinned memory on a stream of its
  /// own (cuda/parameter_copy.h): neither the host nor the following steps wait for it.
  int64_t begin_parameter_copy_impl(bool with_optimizer) override;
  bool finish_parameter_copy_impl(int64_t ticket, ParameterCopy& out, bool wait) override;
  void drop_parameter_copy_impl(int64_t ticket) override;

private:
  struct Impl;
  std::unique_ptr<Impl> m;
};

/// Number of usable CUDA devices; 0 with the reason in *why when there is no driver or device.
/// Never throws or aborts (the binary links cudart statically and never libcuda directly).
int cuda_device_count(std::string* why = nullptr);
/// A CudaBackend on device 0. `precision` ("auto", "fp32", "tf32" or "bf16") sets the matrix-product
/// precision; empty means the REDRAW_CUDA_PRECISION environment variable, or auto without it.
/// BackendError with the reason when no device is usable (or the device lacks the precision);
/// ConfigError for an unknown precision name.
std::unique_ptr<Backend> make_cuda_backend(const std::string& precision = {});
/// CUDA runtime and cuBLAS versions and the GPU architectures compiled in, on one line.
std::string cuda_build_description();
/// One line per device (name, memory, compute capability), or why there is none.
std::string cuda_devices_description();

/// A column-major cuBLAS product shape (as passed to cublasSgemm).
struct GemmShape {
  int32_t m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false;
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
};
/// Seconds one pass over `shapes` takes with cuBLAS sgemm at `precision` on device 0 (median of
/// `repeats` passes, CUDA events). BackendError when no device.
double cuda_sgemm_seconds(const std::vector<GemmShape>& shapes, CudaPrecision precision, int repeats);

} // namespace redraw
