// The entry point of libredraw_cuda.so, the CUDA backend as a run-time module
// (engine/device_plugin.h). The only symbol the module exports; everything else is hidden.
#include "cuda/cuda_backend.h"
#include "cuda/cuda_gl_interop.h"
#include "engine/backend_names.h"
#include "engine/device_plugin.h"

namespace {

const redraw::DevicePluginApi* plugin_api() {
  static const std::string signature = redraw::device_plugin_signature();
  static const redraw::DevicePluginApi api = [] {
    redraw::DevicePluginApi a;
    a.name = redraw::k_cuda_backend.name;
    a.signature = signature.c_str();
    a.device_count = [](std::string* why) { return redraw::cuda_device_count(why); };
    a.make_backend = [](const std::string& precision) { return redraw::make_cuda_backend(precision); };
    a.build_description = [] { return redraw::cuda_build_description(); };
    a.devices_description = [] { return redraw::cuda_devices_description(); };
    a.make_interop = [] { return redraw::make_cuda_interop(); };
    return a;
  }();
  return &api;
}

} // namespace

extern "C" __attribute__((visibility("default"))) const redraw::DevicePluginApi* redraw_device_plugin_v1() {
  return plugin_api();
}
