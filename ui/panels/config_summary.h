#pragma once
/// Numbers the controls panel shows about an edited config, without building a trainer.
/// Pure functions on engine types; no GL, no ImGui (unit-tested in tests/ui/window/test_ui_logic.cpp).
#include "engine/backend_names.h"
#include "engine/run_config.h"

#include <cstdint>
#include <string>
#include <vector>

namespace redraw {

struct ConfigSummary {
  bool valid = false;
  std::string problem; ///< why the shape is invalid (when !valid)
  int64_t parameters = 0;
  int64_t table_parameters = 0;   ///< of which a hash grid's table
  uint64_t table_bytes = 0;       ///< the table alone, in fp32
  uint64_t table_state_bytes = 0; ///< the table with its gradients and optimizer state
  int64_t samples = 0;           ///< pixels in the training image
  int64_t batch = 0;             ///< samples per step
  uint64_t parameter_bytes = 0;  ///< parameters, gradients and optimizer state
  uint64_t recovery_bytes = 0;   ///< the divergence recovery's rollback point: parameters and optimizer state
  uint64_t activation_bytes = 0; ///< forward/backward activations for one batch (whole batch at once, as on the GPU)
  /// The targets, and on the GPU the coordinates too (the CPU makes a pixel's coordinate when it
  /// needs it, and reads the image's floats in place).
  uint64_t dataset_bytes = 0;
  /// Everything a run holds but its timelapse frames (which have a memory cap of their own).
  uint64_t total_bytes() const { return parameter_bytes + recovery_bytes + activation_bytes + dataset_bytes; }
  double gflop_per_step = 0; ///< forward + backward, dense layers only
};

/// Summary for `config` trained on a w x h image with `channels` output channels.
/// `backend` (a record's name in engine/backend_names.h; another: the CPU's) picks the batch and the
/// memory rules (backend_batch: the CPU's minibatch is smaller).
ConfigSummary summarize_config(const RunConfig& config, int32_t w, int32_t h, int32_t channels,
                               const std::string& backend = k_cpu_backend.name);

/// n learning rates of the config's schedule, evenly spread over [0, total_steps).
std::vector<float> sample_schedule(const ScheduleSpec& spec, int64_t total_steps, int32_t n);

/// "1.5 KB", "12.3 MB", "2.0 GB".
std::string format_bytes(uint64_t bytes);
/// A count with thousands separators: 99457 -> "99,457", -1200 -> "-1,200".
std::string format_count(int64_t n);

/// The training size max_side gives for a w x h image (aspect kept, never above the image).
void scaled_size(int32_t w, int32_t h, int32_t max_side, int32_t& out_w, int32_t& out_h);
/// The training size an edited data spec gives: an explicit width x height, else max_side applied
/// to the image file's own size (image_w x image_h; 0 when unknown, e.g. a model without its image,
/// where the running run's size run_w x run_h stands in; 256 x 256 before any run).
void edited_training_size(int32_t image_w, int32_t image_h, int32_t run_w, int32_t run_h, const DataSpec& data,
                          int32_t& out_w, int32_t& out_h);

} // namespace redraw
