#pragma once
/// The contract between the redraw executable and a GPU backend module loaded at run time
/// (libredraw_cuda.so; ggml's backend registry, Cycles' CUDA loader).
/// - The executable links no GPU library, so it starts on any machine; app/device_plugin_loader
///   dlopen()s the module only when a driver is present, and every failure (no driver, a missing
///   cuBLAS, a module from another build) becomes a one-line reason instead of a loader error.
/// - The module exports one C symbol, k_device_plugin_entry, returning a DevicePluginApi. C++
///   types cross the boundary, so executable and module must come from the same build: the entry
///   carries k_device_plugin_abi and device_plugin_signature(), and the loader refuses a mismatch.
/// - Exceptions thrown by the module are engine's types (BackendError, ConfigError) and are caught
///   by their type in the executable.
#include "engine/backend.h"
#include "engine/device_interop.h"

#include <cstdint>
#include <memory>
#include <string>

namespace redraw {

inline constexpr uint32_t k_device_plugin_abi = 1;
inline constexpr const char* k_device_plugin_entry = "redraw_device_plugin_v1";

/// Identifies the build: version, compiler and the sizes of the structs that cross the boundary.
inline std::string device_plugin_signature() {
  return std::string("redraw ") + REDRAW_VERSION + "; " +
#if defined(__VERSION__)
         __VERSION__ +
#endif
         "; " + std::to_string(sizeof(TrainSetup)) + "/" + std::to_string(sizeof(StepArgs)) + "/" +
         std::to_string(sizeof(ModelSpec)) + "/" + std::to_string(sizeof(Dataset)) + "/" +
         std::to_string(sizeof(std::string));
}

struct DevicePluginApi {
  uint32_t abi = k_device_plugin_abi;
  const char* name = "";      ///< backend name, e.g. "cuda"
  const char* signature = ""; ///< device_plugin_signature() of the module's build
  /// Usable devices; 0 with the reason in *why. Never throws.
  int (*device_count)(std::string* why) = nullptr;
  /// A backend on device 0 at `precision` ("" = the module's default). BackendError / ConfigError.
  std::unique_ptr<Backend> (*make_backend)(const std::string& precision) = nullptr;
  /// Runtime and library versions and the architectures compiled in, on one line.
  std::string (*build_description)() = nullptr;
  /// One line per device, or why there is none.
  std::string (*devices_description)() = nullptr;
  /// The GUI's GPU preview path on device 0. BackendError when the device cannot be used.
  std::unique_ptr<DeviceInterop> (*make_interop)() = nullptr;
};

using DevicePluginEntry = const DevicePluginApi* (*)();

} // namespace redraw
