#pragma once
/// Finds and loads the CUDA backend module (libredraw_cuda.so) at run time, once per process.
/// - Where: $REDRAW_CUDA_PLUGIN when set (a path, or "off" to disable the GPU), else beside the
///   executable (the build tree), else <libdir>/redraw relative to it (an installed tree:
///   installed_module_reldir() in engine/install_paths.h, e.g. ../lib/redraw), else
///   REDRAW_PLUGIN_DIR when compiled in (an absolute folder, for distributions that want one).
/// - cuBLAS (when the module links it shared): the module's RUNPATH in the build tree; an installed
///   module has none (Debian policy), so cuBLAS comes from the library path, else from
///   $CUDA_HOME/lib64, $CUDA_PATH/lib64, the toolkit it was built with, or /usr/local/cuda/lib64.
/// - When: only if a driver is present (libcuda.so.1 can be opened); otherwise the reason is "no
///   NVIDIA driver" and the module is never touched.
/// - Never throws: every failure (no module in this build, no driver, cuBLAS missing, a module
///   from another build) leaves api null and a one-line reason in `why`.
/// - The module stays loaded until the process exits (its static CUDA runtime must not unload).
#include "engine/device_plugin.h"

#include <string>

namespace redraw {

struct DevicePlugin {
  const DevicePluginApi* api = nullptr; ///< null when the module is unavailable
  std::string path;                     ///< the module file tried last ("" when none was found)
  std::string why;                      ///< why api is null
};

/// The CUDA module, loaded on first use (thread-safe).
const DevicePlugin& cuda_plugin();

/// Loads the module at `path` now, bypassing the cache; `require_driver` false skips the driver
/// check (tests load the module on machines without a GPU to prove it links and reports cleanly).
DevicePlugin load_device_plugin(const std::string& path, bool require_driver);

/// Where the module is looked for, in order (for messages and tests).
std::vector<std::string> device_plugin_candidates();

} // namespace redraw
