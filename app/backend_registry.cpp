#include "app/backend_registry.h"

#include "engine/cpu_backend.h"
#include "engine/errors.h"

#if REDRAW_HAVE_CUDA
#include "cuda/cuda_backend.h"
#endif

namespace redraw {

bool cuda_available() {
#if REDRAW_HAVE_CUDA
  return cuda_device_count() > 0;
#else
  return false;
#endif
}

namespace {

/// "", auto or fp32 keep the CPU's arithmetic; tf32 and bf16 only exist on the GPU's tensor cores.
bool is_reduced_precision(const std::string& precision) {
  return !precision.empty() && precision != "fp32" && precision != "auto";
}

void check_precision_name(const std::string& precision) {
  if (!precision.empty() && precision != "auto" && precision != "fp32" && precision != "tf32" && precision != "bf16")
    throw ConfigError("--precision: '" + precision + "' not found (known: auto, fp32, tf32, bf16)");
}

} // namespace

std::unique_ptr<Backend> make_backend(const std::string& name, std::string* notice, const std::string& precision) {
  check_precision_name(precision);
  if (name == "cpu") {
    if (is_reduced_precision(precision))
      throw ConfigError("--precision " + precision + ": the CPU backend computes in fp32 only (use --backend cuda)");
    return std::make_unique<CpuBackend>();
  }
  if (name == "cuda") {
#if REDRAW_HAVE_CUDA
    return make_cuda_backend(precision); // throws BackendError with the reason when no device is usable
#else
    throw BackendError("--backend cuda: this build of redraw has no CUDA backend (built without the CUDA toolkit)");
#endif
  }
  if (name == "auto") {
    std::string why;
#if REDRAW_HAVE_CUDA
    if (cuda_device_count(&why) > 0) {
      // A device that is there but can't be used (no kernels for its architecture, held by
      // another process in exclusive mode, full, or lacking the precision) still falls back.
      try {
        return make_cuda_backend(precision);
      } catch (const BackendError& e) {
        why = e.what();
      }
      why = "CUDA device unusable: " + why;
    } else {
      why = "no CUDA device (" + why + ")";
    }
#else
    why = "built without CUDA";
#endif
    if (notice) {
      *notice = why + ", using the CPU backend";
      if (is_reduced_precision(precision)) *notice += " in fp32 (--precision " + precision + " needs a GPU)";
    }
    return std::make_unique<CpuBackend>();
  }
  throw ConfigError("Backend '" + name + "' not found (known: auto, cpu, cuda)");
}

std::string describe_backends() {
  std::string s = "cpu: " + CpuBackend().device_description() + "\n";
#if REDRAW_HAVE_CUDA
  s += "cuda: compiled in (" + cuda_build_description() + ")\n";
  s += cuda_devices_description();
#else
  s += "cuda: not compiled in\n";
#endif
  return s;
}

} // namespace redraw
