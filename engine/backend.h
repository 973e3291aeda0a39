#pragma once
/// The Backend interface: everything that touches the numbers of a training run.
/// - Two implementations: CpuBackend (always built) and CudaBackend (built when the toolkit is
///   found, chosen at run time when a device exists). make_backend() in app/backend_registry picks.
/// - Public methods check their arguments and then call the private *_impl, so every backend gets
///   the same checks (tiny-cuda-nn's inference / inference_impl).
/// - Two layers of API:
///   1. the bound training state: configure() allocates every buffer once per network shape and
///      uploads the dataset; train_step() then allocates nothing and, on the GPU, never waits for
///      the device. The loss reaches the host through poll_loss() when it was asked for.
///   2. stateless ops on host arrays (predict, loss_and_gradients, optimizer_update, encode),
///      used by rendering and by the backend-parity tests. These may allocate.
/// - Threading: a backend is used by one thread at a time (the trainer's thread).
#include "engine/dataset.h"
#include "engine/device_interop.h"
#include "engine/optimizer_state.h"
#include "engine/pixel_sample.h"
#include "engine/run_config.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace redraw {

/// StepMetrics: a recorded step also measures the clamped MSE of the parameters it started from
/// (StepArgs::record_mse, LossSample::mse), with no wait: over the whole dataset, or over its fixed
/// metric sample when the image has more pixels than that (a minibatch step's cost then never
/// grows with the image).
/// StepProfile: take_step_profile() splits the step time into phases (StepProfile below).
enum class BackendFeature : int32_t {
  Training = 0,
  Rendering,
  Tf32,
  DeviceInterop,
  CudaGraphs,
  StepMetrics,
  StepProfile
};

/// Where a backend's time went since the last take_step_profile() (the performance panel).
/// Wall seconds summed over `steps` train_step() calls and `metrics_calls` dataset_mse() calls.
/// A backend that cannot split a step (a GPU that never waits) leaves the phases at 0 and may
/// report the whole step in `step_s`; step_s >= forward_s + backward_s + update_s otherwise.
struct StepProfile {
  int64_t steps = 0, metrics_calls = 0;
  double forward_s = 0;  ///< encoding (and the minibatch gather) and the forward pass
  double backward_s = 0; ///< loss and its gradient, back-propagation
  double update_s = 0;   ///< the optimizer update
  double metrics_s = 0;  ///< dataset_mse(): the PSNR measurement over the whole image
  double step_s = 0;     ///< whole train_step() calls
  /// Device memory in use and in all, in bytes; -1 when the backend does not report it.
  int64_t device_used_bytes = -1, device_total_bytes = -1;
};

/// Everything a step needs besides the parameters.
struct TrainSetup {
  ModelSpec model;
  LossParams loss;
  OptimizerSpec optimizer;
  int64_t batch_size = 0; ///< 0 = full batch
  uint64_t seed = 1;      ///< minibatch RNG and Fourier matrix
  /// Pixels in the fixed metric sample a minibatch run's rows measure (engine/pixel_sample.h:
  /// metric_sample_pixels(batch_size), which the Trainer sets).
  int64_t metric_sample_pixels = k_metric_sample_pixels;
};

struct StepArgs {
  int64_t step = 0;            ///< 0-based index of this step (minibatch RNG, loss reports)
  int64_t optimizer_step = -1; ///< updates since the optimizer state was last zeroed (a reset, a
                               ///< branch from a snapshot); Adam's bias correction uses it + 1.
                               ///< -1: the same as `step`
  float learning_rate = 0;
  bool record_loss = false;    ///< make this step's loss available to poll_loss()
  bool record_mse = false;     ///< with record_loss, on a StepMetrics backend: also LossSample::mse
  /// When set and it becomes true (a signal handler may set it), the step is abandoned: not begun,
  /// or (the CPU backend) left between its chunks before the update, so the bound state stays
  /// that of the last finished step. train_step() then returns false.
  const std::atomic<bool>* stop = nullptr;
  /// The 0-based update count Adam's bias correction is computed from.
  int64_t bias_step() const { return optimizer_step >= 0 ? optimizer_step : step; }
};

struct LossSample {
  int64_t step = 0;
  double loss = 0;
  /// Some step since the previous sample (or since set_parameters) had a non-finite loss. Each
  /// step sets this flag on the device when its loss is not finite; it travels with the loss, so
  /// checking it costs no extra wait.
  bool nonfinite = false;
  /// Clamped MSE of the parameters step `step` started from, when the backend measured it; NaN
  /// otherwise. Over the whole dataset (what dataset_mse() returned after step - 1), or, when
  /// mse_sampled, over the dataset's fixed metric sample (engine/pixel_sample.h: the pixels
  /// stratified_pixel_sample(width, height, TrainSetup::metric_sample_pixels, 0) picks, as the Trainer's rows).
  double mse = std::numeric_limits<double>::quiet_NaN();
  bool mse_sampled = false;
};

/// The bound parameters (and optimizer state, when asked for) at one point of a run, copied
/// without waiting (Backend::begin_parameter_copy).
struct ParameterCopy {
  std::vector<float> params;
  OptimizerState optimizer; ///< empty arrays unless the copy was asked to include it
};

class Backend {
public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;               ///< "cpu" or "cuda"
  virtual std::string device_description() const = 0; ///< e.g. "2 CPU threads, OpenBLAS" or the GPU
  virtual bool supports(BackendFeature f) const = 0;
  /// Empty, or why this backend cannot train or draw `model` (a family without kernels here, say);
  /// "auto" then takes the CPU (backend_for_model, engine/training/open_run.h).
  virtual std::string model_refusal(const ModelSpec&) const { return {}; }
  /// The backend's device-side preview renderer (a GPU backend), or null. Owned by the backend.
  virtual DeviceRenderer* device_renderer() { return nullptr; }

  // ---- bound training state -------------------------------------------------------------
  /// Allocates every buffer for this shape and uploads the dataset. Parameters are zero until
  /// set_parameters(). Throws ConfigError (bad setup) or BackendError (e.g. out of memory).
  /// `data` must outlive the binding: the CPU backend reads its pixels in place (no copy of a
  /// large image) and makes each pixel's coordinate when it needs it.
  void configure(const TrainSetup& setup, const Dataset& data);
  /// A temporary dataset would be gone before the first step reads it: refused at compile time.
  void configure(const TrainSetup& setup, Dataset&& data) = delete;
  bool configured() const { return m_configured; }
  const TrainSetup& setup() const { return m_setup; }
  int64_t parameter_count() const { return m_parameter_count; }
  int64_t dataset_size() const { return m_dataset_size; }

  /// Uploads parameters; also clears the divergence flag (LossSample::nonfinite).
  void set_parameters(std::span<const float> params);
  /// set_parameters for the bound parameters edited in place (a relocation, engine/growth.h):
  /// state the trained encoding keeps for them may follow the edit instead of starting afresh
  /// (the CPU's sad lists take one refresh pass, engine/sad_lists.h). The default starts afresh.
  void set_moved_parameters(std::span<const float> params);
  /// The bound trained encoding's per-node site lists as its last step used them (the sad
  /// family's top-K lists: SadLists::ids) into `out`; false (out emptied) when it keeps none.
  bool bound_site_lists(std::vector<int32_t>& out);
  std::vector<float> parameters();
  /// The same into `out`, reusing its memory (no fresh pages for a large network each time).
  void parameters_into(std::vector<float>& out);
  void set_optimizer_state(const OptimizerState& state);
  OptimizerState optimizer_state();
  /// When the bound parameters and optimizer state are all sound (finite, and within the bounds a
  /// model file may hold: engine/soundness.h's count_unsound), copies them into `params` and
  /// `optimizer` (reusing their memory: a 24-megapixel run's good state is 87 MB) and returns
  /// true; otherwise returns false and leaves both as they were.
  bool copy_state_if_sound(std::vector<float>& params, OptimizerState& optimizer);
  /// True when every bound parameter is sound (the CPU backend looks in place), and with
  /// with_optimizer every value of the optimizer's state too.
  bool parameters_sound(bool with_optimizer = false);

  /// Starts copying the bound parameters (and, when with_optimizer, the optimizer state) as they
  /// are after every step enqueued so far, and returns its ticket. A GPU backend copies on a
  /// stream of its own into pinned memory: neither this call nor the steps after it wait for the
  /// device or for the copy. The default copies at once. configure() forgets every ticket.
  int64_t begin_parameter_copy(bool with_optimizer);
  /// The copy `ticket` once it has arrived: true with `out` filled and the ticket spent; false
  /// while it is on its way (never with wait, which blocks until it arrives). BackendError for a
  /// ticket not in flight.
  bool finish_parameter_copy(int64_t ticket, ParameterCopy& out, bool wait);
  /// Forgets copy `ticket` (a frame no longer wanted); a ticket not in flight is ignored.
  void drop_parameter_copy(int64_t ticket);

  /// One optimisation step: forward, loss, backward, update. Allocates nothing. False when
  /// StepArgs::stop abandoned it (nothing of it applied).
  bool train_step(const StepArgs& args);
  /// The newest recorded loss that has reached the host, if one arrived since the last call.
  /// Never blocks.
  std::optional<LossSample> poll_loss() { return poll_loss_impl(); }
  /// Blocks until every queued step is done (e.g. before timing or saving).
  virtual void synchronize() {}
  /// Mean squared error of the clamped prediction over the whole dataset (for PSNR). Blocks.
  double dataset_mse();
  /// Forward pass of the bound network (the weights train_step updates) on n coordinates (n x 2);
  /// out is n x channels. The CPU backend reads its weights in place (a metrics row at 24
  /// megapixels used to copy 29 MB of weights out first). Call it from the thread that trains.
  void predict_bound(const float* coords, int64_t n, float* out);
  /// The time spent since the last call (see StepProfile), then starts counting again. A backend
  /// without BackendFeature::StepProfile returns zero counts (and may still report memory).
  virtual StepProfile take_step_profile() { return {}; }
  /// Bytes of the device's memory in use now, by every process on it (a GPU backend; never
  /// blocks on the stream); -1 where there is no device memory (the CPU) or it could not be read.
  virtual int64_t device_memory_in_use() { return -1; }

  // ---- stateless ops ----------------------------------------------------------------------
  /// Forward pass on n coordinates (n x 2, row-major); out is n x channels.
  void predict(const ModelSpec& model, std::span<const float> params, std::span<const float> fourier_b,
               const float* coords, int64_t n, float* out);
  /// Mean loss over n samples; grads (same layout as params) receive its gradient.
  double loss_and_gradients(const ModelSpec& model, const LossParams& loss, std::span<const float> params,
                            std::span<const float> fourier_b, const float* coords, const float* targets, int64_t n,
                            std::span<float> grads);
  /// One optimizer update in place; step is 0-based as in StepArgs.
  void optimizer_update(const OptimizerSpec& opt, std::span<float> params, std::span<const float> grads,
                        OptimizerState& state, float learning_rate, int64_t step);
  /// Encodes n coordinates; out is n x encoding width. For a HashGrid, `fourier_b` is its table
  /// (the first encoding_parameter_count(enc) parameters of a network).
  void encode(const EncodingSpec& enc, std::span<const float> fourier_b, const float* coords, int64_t n, float* out);

protected:
  virtual void configure_impl(const TrainSetup& setup, const Dataset& data) = 0;
  virtual void set_parameters_impl(std::span<const float> params) = 0;
  /// Default: set_parameters_impl (the encoding's state starts afresh).
  virtual void set_moved_parameters_impl(std::span<const float> params) { set_parameters_impl(params); }
  /// Default: none kept.
  virtual bool bound_site_lists_impl(std::vector<int32_t>&) { return false; }
  virtual void get_parameters_impl(std::vector<float>& out) = 0;
  virtual void set_optimizer_state_impl(const OptimizerState& state) = 0;
  virtual void get_optimizer_state_impl(OptimizerState& out) = 0;
  virtual void train_step_impl(const StepArgs& args) = 0;
  /// Called by a train_step_impl that leaves the step unfinished because StepArgs::stop is set.
  void abandon_step() { m_step_abandoned = true; }
  virtual std::optional<LossSample> poll_loss_impl() = 0;
  virtual double dataset_mse_impl() = 0;
  /// Default: fresh copies, checked, then moved into place. The CPU backend checks in place.
  virtual bool copy_state_if_sound_impl(std::vector<float>& params, OptimizerState& optimizer);
  /// Default: a copy into the reused buffer predict_bound_impl uses, counted.
  virtual bool parameters_sound_impl(bool with_optimizer);
  /// Default: the bound weights copied into a reused buffer, then predict_impl.
  virtual void predict_bound_impl(const float* coords, int64_t n, float* out);

  virtual void predict_impl(const ModelSpec& model, std::span<const float> params, std::span<const float> fourier_b,
                            const float* coords, int64_t n, float* out) = 0;
  virtual double loss_and_gradients_impl(const ModelSpec& model, const LossParams& loss, std::span<const float> params,
                                         std::span<const float> fourier_b, const float* coords, const float* targets,
                                         int64_t n, std::span<float> grads) = 0;
  virtual void optimizer_update_impl(const OptimizerSpec& opt, std::span<float> params, std::span<const float> grads,
                                     OptimizerState& state, float learning_rate, int64_t step) = 0;
  virtual void encode_impl(const EncodingSpec& enc, std::span<const float> fourier_b, const float* coords, int64_t n,
                           float* out) = 0;
  /// Parameter copies: the defaults read the parameters (and optimizer state) at once through
  /// get_parameters_impl / get_optimizer_state_impl and keep them until finished or dropped. A
  /// backend that overrides one overrides all three; tickets are unique per backend (next_ticket).
  virtual int64_t begin_parameter_copy_impl(bool with_optimizer);
  virtual bool finish_parameter_copy_impl(int64_t ticket, ParameterCopy& out, bool wait);
  virtual void drop_parameter_copy_impl(int64_t ticket);
  int64_t next_ticket() { return m_next_ticket++; }

private:
  void require_configured(const char* what) const;
  bool m_configured = false;
  TrainSetup m_setup;
  int64_t m_parameter_count = 0;
  int64_t m_dataset_size = 0;
  int64_t m_next_ticket = 1;
  std::vector<std::pair<int64_t, ParameterCopy>> m_copies; ///< the default copies, by ticket
  /// The default predict_bound_impl's copy of the bound weights, made again only after a step or
  /// set_parameters (a render calls it once per band).
  const std::vector<float>& bound_copy();
  std::vector<float> m_bound_copy, m_bound_fourier;
  int64_t m_bound_version = 0, m_bound_copy_version = -1;
  bool m_step_abandoned = false;
};

/// Makes a backend by name ("auto", "cpu", "cuda"), with a one-line notice when "auto" falls back
/// and the GPU precision ("" = default). app/backend_registry's make_backend is the one the
/// executable hands to the GUI, so ui/ never includes app/ (STYLE: arrows point down).
using BackendFactory =
    std::function<std::unique_ptr<Backend>(const std::string& name, std::string* notice, const std::string& precision)>;

} // namespace redraw
