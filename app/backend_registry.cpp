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

std::unique_ptr<Backend> make_backend(const std::string& name, std::string* notice) {
  if (name == "cpu") return std::make_unique<CpuBackend>();
  if (name == "cuda") {
#if REDRAW_HAVE_CUDA
    return make_cuda_backend(); // throws BackendError with the reason when no device is usable
#else
    throw BackendError("--backend cuda: this build of redraw has no CUDA backend (built without the CUDA toolkit)");
#endif
  }
  if (name == "auto") {
#if REDRAW_HAVE_CUDA
    std::string why;
    if (cuda_device_count(&why) > 0) return make_cuda_backend();
    if (notice) *notice = "no CUDA device (" + why + "), using the CPU backend";
#else
    if (notice) *notice = "built without CUDA, using the CPU backend";
#endif
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
