#pragma once
/// The backend vocabulary: one registration record per backend (its name, GPU or not, precisions,
/// batch rule and memory estimate), read by the CLI's checks (--backend, --precision), the GUI's
/// lists, the batch rule, the config summary's memory estimate, the sweep and bench, and the
/// factory (app/backend_registry.cpp: engine never links a backend, so the record's factory lives
/// there, one entry per record). No backend name is spelled anywhere else
/// (tests/project/backend_names.sh checks). A new backend: a record here, its factory there.
#include "engine/run_config.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace redraw {

struct BackendInfo {
  const char* name; ///< as --backend, a config, a sweep, a settings file and Backend::name() spell it
  bool is_gpu;      ///< runs on a device (its interop preview, the sweep's one-cell-at-a-time jobs)
  /// Its matrix-product precisions, besides "auto" (the backend's own choice); the CPU's is fp32 only.
  std::span<const char* const> precisions;
  /// The batch rule: trains with training.cpu_batch_size when the config sets one (>= 0), else
  /// training.batch_size (a GPU wants big batches; CPU cores learn faster per second from small ones).
  bool small_minibatch;
  /// Memory estimate: a hash-grid table's gradient is not kept whole (the update waits for the next
  /// step's encoding: only a group of levels' gradients are held).
  bool deferred_table_gradients;
  /// Memory estimate: floats per training pixel beyond its channels (a GPU keeps its coordinates).
  int32_t extra_floats_per_pixel;
};

/// The choice that takes a GPU backend when one is usable, else the CPU.
inline constexpr const char* k_auto_backend = "auto";
/// The precision choice that leaves it to the backend.
inline constexpr const char* k_auto_precision = "auto";
inline constexpr const char* k_cpu_precisions[] = {"fp32"};
inline constexpr const char* k_gpu_precisions[] = {"fp32", "tf32", "bf16"};

inline constexpr BackendInfo k_cpu_backend{"cpu", false, k_cpu_precisions, true, true, 0};
inline constexpr BackendInfo k_cuda_backend{"cuda", true, k_gpu_precisions, false, false, 2};
/// Every backend, in the order lists show them (the CPU first: the one "auto" falls back to).
inline constexpr const BackendInfo* k_backends[] = {&k_cpu_backend, &k_cuda_backend};

/// The record named `name`, or null (for "auto" and an unknown name).
const BackendInfo* find_backend(std::string_view name);
/// "auto", then every backend's name: what --backend, a sweep and the GUI accept.
std::vector<std::string> backend_choices();
/// Names for a sentence: "a, b or c".
std::string or_list(const std::vector<std::string>& names);
/// backend_choices() for a sentence: "auto, cpu or cuda".
std::string backend_choices_text();
/// "auto", then every backend's precisions (each once, in order): what --precision accepts.
std::vector<std::string> precision_choices();
/// `precision` is one of precision_choices() (the empty string too: the default).
bool known_precision(std::string_view precision);
/// `name` is a GPU backend's.
bool is_gpu_backend(std::string_view name);
/// The choice `requested` may train on a GPU: "auto", or a GPU backend's name.
bool may_use_gpu(std::string_view requested);
/// The batch rule: the batch a run of `training` takes on the backend named `backend` (an unknown
/// name or "auto": training.batch_size).
int64_t backend_batch(const TrainingSpec& training, std::string_view backend);

} // namespace redraw
