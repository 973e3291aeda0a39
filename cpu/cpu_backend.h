#pragma once
/// The CPU backend: the reference implementation of the Backend interface.
/// - Matrix products go through OpenBLAS sgemm (row-major: Z = X * W^T); per-element work
///   (encodings, bias + activation, loss, optimizer) calls the shared REDRAW_HD math and runs on
///   every core with OpenMP.
/// - The batch is processed in fixed chunks of rows, so memory stays bounded for any image size
///   and gradients accumulate in the same order every run.
/// - Deterministic: every product is cut into pieces whose shapes follow the network and the
///   chunk, never the thread count (row tiles for the forward and input-gradient products, row
///   slots for the weight gradients), and every reduction adds its pieces in a fixed order. The
///   same seed gives bit-identical parameters at any team size and load, whatever split the BLAS
///   kernel would make of a call.
/// - cpu/cpu_backend.cpp holds the bound training state and the operations on it;
///   cpu/cpu_backend_stateless.cpp the stateless ones (predict, loss_and_gradients,
///   optimizer_update, encode), which run a ChunkedPass of their own (cpu/cpu_chunked_pass.h).
#include "engine/backend.h"
#include "engine/backend_names.h"
#include "engine/model_spec.h"
#include "engine/deferred_table_memory.h"

#include <memory>

namespace redraw {
namespace cpu {
class CpuTrainedEncoding;
}

/// Rows per weight-gradient slot (CpuWorkspace::slots), and the most memory the slots may take.
constexpr int64_t k_slot_rows = 512;
constexpr int64_t k_max_slot_bytes = int64_t(256) << 20;
/// Rows per chunk of the forward/backward pass: the most, and the least a wide network falls back
/// to. A chunk is cut into 512-row tiles and slots, one thread's share of work each, so a chunk of
/// k_max_chunk_rows keeps 16 threads busy (k_min_chunk_rows: 8). Not more: a chunk's activations
/// are read back by its backward pass, and at 16384 rows `instant`'s (28 MB) no longer stayed in
/// cache on one thread (10% slower; 8192 rows as fast as 4096).
constexpr int64_t k_max_chunk_rows = 8192;
constexpr int64_t k_min_chunk_rows = 4096;
/// The most a chunk's activations and gradients (CpuWorkspace, slots aside) may take: a network
/// whose chunk of k_max_chunk_rows would need more takes a chunk of half as many rows, down to
/// k_min_chunk_rows.
constexpr int64_t k_max_workspace_bytes = int64_t(256) << 20;

/// Rows per chunk for a network of these layers on this encoding width: k_max_chunk_rows, halved
/// while the chunk's workspace would pass k_max_workspace_bytes (never below k_min_chunk_rows).
/// A function of the network alone, never of the thread count, so the weight-gradient slots (and
/// so the sums' order) are the same on any team.
int64_t cpu_chunk_rows(const std::vector<DenseLayer>& layers, int32_t encoding_width);

/// Forward/backward buffers for up to `rows` samples of one network shape.
struct CpuWorkspace {
  int64_t rows = 0;
  std::vector<float> input;              ///< rows x encoding width
  std::vector<std::vector<float>> z, y;  ///< per dense layer: rows x out (pre- and post-activation)
  std::vector<float> grad_a, grad_b;     ///< rows x grad_width, ping-pong for dL/dY
  int32_t grad_width = 0;                ///< the widest layer input or output (or the encoding)
  std::vector<double> partial;           ///< per-block partial sums
  /// Dense weights' gradient, one partial per slot of slot_rows rows of a chunk (slot k of every
  /// chunk accumulates into the same partial); the slots are added in order at the end of a pass.
  std::vector<float> slots;
  std::vector<int64_t> slot_offset; ///< per dense layer: where its weights start within a slot
  int64_t slot_floats = 0;          ///< one slot's size: every dense layer's in x out
  int64_t slot_rows = 0;
  /// Bias gradient, one partial per 512-row tile of the chunk (each the tile's rows summed in
  /// order), added into the gradient in tile order at the end of the chunk.
  std::vector<float> bias_parts;
  std::vector<int64_t> bias_part_offset; ///< per dense layer: where its biases start within a tile's part
  int64_t bias_part_floats = 0;          ///< one tile's part: every dense layer's out
  void reserve(const std::vector<DenseLayer>& layers, int32_t encoding_width, int64_t rows);
};


class CpuBackend final : public Backend {
public:
  CpuBackend();
  ~CpuBackend() override;
  std::string name() const override { return k_cpu_backend.name; }
  std::string device_description() const override;
  bool supports(BackendFeature f) const override;
  /// Applies a table update the last step left for the next one (the step's work, done now).
  void synchronize() override;
  /// Forward, backward, update and metrics wall time of the steps since the last call.
  StepProfile take_step_profile() override;

  /// The threads the next operation runs on: the fixed count (set_cpu_threads), or what this
  /// backend's TeamSizer measured fastest (cpu/team_sizer.h).
  int team_size() const;

  /// The most rows per chunk of the forward/backward pass (cpu_chunk_rows picks a network's).
  static constexpr int64_t k_chunk_rows = k_max_chunk_rows;

protected:
  void configure_impl(const TrainSetup& setup, const Dataset& data) override;
  void set_parameters_impl(std::span<const float> params) override;
  void get_parameters_impl(std::vector<float>& out) override;
  void set_optimizer_state_impl(const OptimizerState& state) override;
  void get_optimizer_state_impl(OptimizerState& out) override;
  void train_step_impl(const StepArgs& args) override;
  std::optional<LossSample> poll_loss_impl() override;
  double dataset_mse_impl() override;
  void predict_bound_impl(const float* coords, int64_t n, float* out) override;
  bool copy_state_if_sound_impl(std::vector<float>& params, OptimizerState& optimizer) override;
  bool parameters_sound_impl(bool with_optimizer) override;

  void predict_impl(const ModelSpec& model, std::span<const float> params, std::span<const float> fourier_b,
                    const float* coords, int64_t n, float* out) override;
  double loss_and_gradients_impl(const ModelSpec& model, const LossParams& loss, std::span<const float> params,
                                 std::span<const float> fourier_b, const float* coords, const float* targets,
                                 int64_t n, std::span<float> grads) override;
  void optimizer_update_impl(const OptimizerSpec& opt, std::span<float> params, std::span<const float> grads,
                             OptimizerState& state, float learning_rate, int64_t step) override;
  void encode_impl(const EncodingSpec& enc, std::span<const float> fourier_b, const float* coords, int64_t n,
                   float* out) override;

  void set_moved_parameters_impl(std::span<const float> params) override;
  bool bound_site_lists_impl(std::vector<int32_t>& out) override;

private:
  struct State;
  std::unique_ptr<State> m_state;
  /// The trained encoding predict renders with (a sad model's lists), kept between calls with its
  /// spec: the bands of one picture and the frames of unchanged floats share its state, which
  /// is a function of the floats rendered alone (CpuTrainedEncoding::render_begins).
  std::unique_ptr<cpu::CpuTrainedEncoding> m_render_encoding;
  EncodingSpec m_render_spec;
};

} // namespace redraw
