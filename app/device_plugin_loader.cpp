#include "app/device_plugin_loader.h"

#include "engine/install_paths.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <system_error>
#include <vector>

#ifndef REDRAW_CUDA_PLUGIN_NAME
#define REDRAW_CUDA_PLUGIN_NAME "libredraw_cuda.so"
#endif

namespace redraw {

namespace {

std::string dl_error() {
  const char* e = dlerror();
  return e ? e : "unknown dynamic loader error";
}

bool driver_present(std::string* why) {
  // dlopen of the driver library is what the CUDA runtime does first; doing it here keeps a
  // machine without a driver from ever loading the module and its cuBLAS.
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    if (why) *why = "no NVIDIA driver (libcuda.so.1 cannot be loaded)";
    (void)dlerror();
    return false;
  }
  dlclose(h);
  return true;
}

#ifdef REDRAW_CUBLAS_SONAME
/// Where a CUDA toolkit keeps cuBLAS when the system's library path does not list it.
std::vector<std::string> cuda_library_dirs() {
  std::vector<std::string> dirs;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(var); v && *v) dirs.push_back(std::string(v) + "/lib64");
#ifdef REDRAW_CUDA_LIBRARY_DIR
  dirs.push_back(REDRAW_CUDA_LIBRARY_DIR); // the toolkit the module was built with
#endif
  dirs.push_back("/usr/local/cuda/lib64");
  std::vector<std::string> unique;
  for (auto& d : dirs)
    if (std::find(unique.begin(), unique.end(), d) == unique.end()) unique.push_back(std::move(d));
  return unique;
}

/// An installed module has no RUNPATH into the toolkit (Debian policy), so when its cuBLAS is not
/// on the library path, cuBLAS is loaded here by its full path; the module's NEEDED entry then
/// finds it by soname. Returns the folders tried, for the message when none has it.
std::string preload_cublas() {
  std::string tried;
  for (const auto& dir : cuda_library_dirs()) {
    const std::string file = dir + "/" REDRAW_CUBLAS_SONAME;
    std::error_code ec;
    if (std::filesystem::exists(file, ec) && dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL)) return {};
    (void)dlerror();
    tried += (tried.empty() ? "" : ", ") + dir;
  }
  return tried;
}
#endif

} // namespace

std::vector<std::string> device_plugin_candidates() {
  std::vector<std::string> out;
  const std::filesystem::path dir = executable_dir();
  if (!dir.empty()) {
    out.push_back((dir / REDRAW_CUDA_PLUGIN_NAME).string());
    out.push_back((dir / installed_module_reldir() / REDRAW_CUDA_PLUGIN_NAME).lexically_normal().string());
  }
#ifdef REDRAW_PLUGIN_DIR
  out.push_back(std::string(REDRAW_PLUGIN_DIR) + "/" REDRAW_CUDA_PLUGIN_NAME);
#endif
  return out;
}

DevicePlugin load_device_plugin(const std::string& path, bool require_driver) {
  DevicePlugin p;
  p.path = path;
  if (require_driver && !driver_present(&p.why)) return p;
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    p.why = "the CUDA module could not be loaded: " + dl_error();
#ifdef REDRAW_CUBLAS_SONAME
    if (p.why.find("libcublas") == std::string::npos) return p;
    if (const std::string tried = preload_cublas(); !tried.empty()) {
      p.why += " (nor is it in " + tried + ")";
      return p;
    }
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      p.why = "the CUDA module could not be loaded: " + dl_error();
      return p;
    }
#else
    return p;
#endif
  }
  auto entry = reinterpret_cast<DevicePluginEntry>(dlsym(handle, k_device_plugin_entry));
  if (!entry) {
    p.why = path + " is not a Redraw GPU module (no " + k_device_plugin_entry + ")";
    dlclose(handle);
    return p;
  }
  const DevicePluginApi* api = entry();
  if (!api || api->abi != k_device_plugin_abi) {
    p.why = path + " speaks another module interface (version " + std::to_string(api ? api->abi : 0) +
            ", this redraw needs " + std::to_string(k_device_plugin_abi) + ")";
    dlclose(handle);
    return p;
  }
  if (!api->signature || device_plugin_signature() != api->signature) {
    p.why = path + " comes from another build of Redraw (" + (api->signature ? api->signature : "?") +
            "; this one is " + device_plugin_signature() + ")";
    dlclose(handle);
    return p;
  }
  // Loaded for good: the module's static CUDA runtime registers exit handlers, so it is never
  // unloaded.
  p.api = api;
  return p;
}

const DevicePlugin& cuda_plugin() {
  static DevicePlugin plugin;
  static std::once_flag once;
  std::call_once(once, [] {
    if (const char* env = std::getenv("REDRAW_CUDA_PLUGIN"); env && *env) {
      if (std::strcmp(env, "off") == 0 || std::strcmp(env, "0") == 0) {
        plugin.why = "the GPU is switched off (REDRAW_CUDA_PLUGIN=" + std::string(env) + ")";
        return;
      }
      if (!std::filesystem::exists(env)) {
        plugin.path = env;
        plugin.why = std::string("REDRAW_CUDA_PLUGIN: ") + env + " does not exist";
        return;
      }
      plugin = load_device_plugin(env, true);
      return;
    }
    for (const auto& candidate : device_plugin_candidates()) {
      std::error_code ec;
      if (!std::filesystem::exists(candidate, ec)) continue;
      plugin = load_device_plugin(candidate, true);
      return;
    }
#if REDRAW_HAVE_CUDA
    plugin.why = "the CUDA module (" REDRAW_CUDA_PLUGIN_NAME ") was not found beside redraw";
#else
    plugin.why = "built without CUDA";
#endif
  });
  return plugin;
}

} // namespace redraw
