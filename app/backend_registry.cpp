#include "app/backend_registry.h"

#include "app/device_plugin_loader.h"
#include "cpu/cpu_backend.h"
#include "engine/errors.h"

namespace redraw {

namespace {

/// "", auto or fp32 keep the CPU's arithmetic; tf32 and bf16 only exist on the GPU's tensor cores.
bool is_reduced_precision(const std::string& precision) {
  return !precision.empty() && precision != "fp32" && precision != "auto";
}

void check_precision_name(const std::string& precision) {
  if (!precision.empty() && precision != "auto" && precision != "fp32" && precision != "tf32" && precision != "bf16")
    throw ConfigError("--precision: '" + precision + "' not found (known: auto, fp32, tf32, bf16)");
}

/// Usable CUDA devices through the module; 0 with the reason otherwise.
int cuda_devices(std::string* why) {
  const DevicePlugin& p = cuda_plugin();
  if (!p.api) {
    if (why) *why = p.why;
    return 0;
  }
  return p.api->device_count(why);
}

} // namespace

bool cuda_available() { return cuda_devices(nullptr) > 0; }

std::unique_ptr<Backend> make_backend(const std::string& name, std::string* notice, const std::string& precision) {
  check_precision_name(precision);
  if (name == "cpu") {
    if (is_reduced_precision(precision))
      throw ConfigError("--precision " + precision + ": the CPU backend computes in fp32 only (use --backend cuda)");
    return std::make_unique<CpuBackend>();
  }
  if (name == "cuda") {
    const DevicePlugin& p = cuda_plugin();
    if (!p.api) throw BackendError("--backend cuda: the GPU is unavailable: " + p.why);
    return p.api->make_backend(precision); // throws BackendError with the reason when no device is usable
  }
  if (name == "auto") {
    std::string why;
    const DevicePlugin& p = cuda_plugin();
    if (!p.api) {
      why = p.why;
    } else if (p.api->device_count(&why) > 0) {
      // A device that is there but can't be used (no kernels for its architecture, held by
      // another process in exclusive mode, full, or lacking the precision) still falls back.
      try {
        return p.api->make_backend(precision);
      } catch (const BackendError& e) {
        why = std::string("CUDA device unusable: ") + e.what();
      }
    } else {
      why = "no CUDA device (" + why + ")";
    }
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
  const DevicePlugin& p = cuda_plugin();
  if (!p.api) {
#if REDRAW_HAVE_CUDA
    s += "cuda: compiled in, unavailable: " + p.why + "\n";
#else
    s += "cuda: not compiled in\n";
#endif
    return s;
  }
  s += "cuda: module " + p.path + " (" + p.api->build_description() + ")\n";
  s += p.api->devices_description();
  return s;
}

BackendFactory backend_factory() {
  return [](const std::string& name, std::string* notice, const std::string& precision) {
    return make_backend(name, notice, precision);
  };
}

std::shared_ptr<DeviceInterop> make_device_interop(std::string* why) {
  const DevicePlugin& p = cuda_plugin();
  if (!p.api) {
    if (why) *why = p.why;
    return nullptr;
  }
  if (p.api->device_count(why) == 0) return nullptr;
  try {
    return p.api->make_interop();
  } catch (const std::exception& e) {
    if (why) *why = e.what();
    return nullptr;
  }
}

} // namespace redraw
